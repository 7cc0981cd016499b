package temporalhost

// The Temporal backend of hive run: the run's pipeline machine is workflow
// code (objective.Workflow), stepped in the history Temporal
// keeps, as execute-phase's engine is; its commands (the roles' sessions,
// the lint, the phase, the checks, the delivery) are activities on the
// hive workers of the project's folder (piperun.Worker), and its
// implementers' plans a phase's workflow whose plans the workers of any
// clone run. This process begins the run in the folder (its journal
// record, branch and worktree), starts the workflow and follows it; the
// folder's journal is a view of the history, which the workers keep up.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/runworker"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/temporal/objective"
)

// legacyPipelineWorkflow is the workflow type of hive run's runs before
// the machine ran as workflow code: one worker at a time drove the run
// from the folder's journal. Such a run still open is not followed: the
// hive that started it finishes it, or it is ended and resumed from the
// journal.
const legacyPipelineWorkflow = "hive-pipeline"

// Run is hive run on Temporal, as the command asks for it.
type Run struct {
	// Run is the flags' request; its Stderr hears what is settled.
	*runconfig.Run
	// Dial connects to the Temporal server.
	Dial func(context.Context) (client.Client, error)
	// Address and Namespace are the server's, for the marker by which a
	// plain hive answer in the folder finds the run.
	Address, Namespace string
	// Queue is the workers' task queue; Remote the git remote through
	// which the workers of any clone share the run's work ("": the
	// folder's workers do it).
	Queue, Remote string
	// LocalWorker makes this process one of the run's workers.
	LocalWorker bool
	Commands    runconfig.Commands
	// Follow makes what shows the run here, once its settings are
	// settled: wait is how long a question waits for hive answer when
	// nobody answers at this terminal; answers are what a human types
	// here (nil: nobody).
	Follow func(wait time.Duration) (f Follower, answers <-chan string)
}

// Follower shows a run as its workflow steps it, then its result.
type Follower interface {
	piperun.Observer
	Result(piperun.Result)
}

// Start starts (or, with Resume, takes up) the project's run as a
// Temporal workflow and follows it here; this process is one of its
// workers with LocalWorker.
func Start(ctx context.Context, o *Run, repo *gitx.Repo, cfg *config.Config, goal string) error {
	since := time.Now() // what the run does from now on is this command's to show
	if err := reachRemote(ctx, repo, o.Remote); err != nil {
		return err
	}
	c, err := o.Dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	id, queue := runworker.WorkflowID(repo.Root), runworker.FolderQueue(o.Queue, repo.Root)
	running := false
	if d, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil {
		running = WorkflowRunning(d)
		if running && d.GetWorkflowExecutionInfo().GetType().GetName() == legacyPipelineWorkflow {
			return exit.Errorf(exit.Busy, "the run under way here (Temporal workflow %s) was started by an earlier hive, whose workers drive it from the journal: "+
				"let them finish it, or end it (temporal workflow terminate --workflow-id %s) and go on with %s", id, id, o.Commands.Resume())
		}
	} else if missing := (*serviceerror.NotFound)(nil); !errors.As(err, &missing) {
		return fmt.Errorf("the workflow %s: %w", id, err)
	}
	j, closeJournal, err := runconfig.Journal(repo, cfg)
	if err != nil {
		return err
	}
	defer closeJournal()
	switch {
	case running && o.Fresh:
		return exit.Errorf(exit.Busy, "a run is under way here (Temporal workflow %s): end it first (temporal workflow terminate --workflow-id %s), then hive run --fresh", id, id)
	case running && !o.Resume:
		return exit.Errorf(exit.Busy, "a run is under way here (Temporal workflow %s): follow it with %s", id, o.Commands.Resume())
	case !running:
		if err := takeUp(o, repo, j); err != nil {
			return err
		}
		if err := o.CheckTree(ctx, repo); err != nil {
			return err
		}
		given := o.Remote // reached above
		if err := resumeRemote(o, j); err != nil {
			return err
		}
		if given == "" {
			if err := reachRemote(ctx, repo, o.Remote); err != nil {
				return err
			}
		}
	}
	red := runconfig.SecretsOf(cfg).Red
	if o.Answer != "" {
		if err := answerRunQuestion(ctx, o, c, id, running, red, j); err != nil {
			return err
		}
	}
	roots := NewNames(ctx, repo.Root).Roots
	if o.Remote != "" && roots != "" {
		// The run's workflow and commands go to the workers of every
		// clone; this folder keeps its journal and takes its delivery.
		queue = runworker.AnywhereQueue(o.Queue, roots)
	}
	if o.LocalWorker {
		s := runworker.Service{Root: repo.Root, Stderr: o.Stderr, Agent: o.Agent, Queue: o.Queue, Remote: o.Remote, Roots: roots, Runs: true, Plans: true}
		stop, err := s.Start(c)
		if err != nil {
			return err
		}
		defer stop()
	}
	if running {
		fmt.Fprintf(o.Stderr, "hive: following the run under way (Temporal workflow %s)\n", id)
	} else {
		in, err := objectiveInput(ctx, o, repo, cfg, j, red.String(goal), queue)
		if err != nil {
			return err
		}
		_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue, WorkflowExecutionErrorWhenAlreadyStarted: true},
			objective.WorkflowName, in)
		var already *serviceerror.WorkflowExecutionAlreadyStarted
		switch {
		case errors.As(err, &already):
			running = true // another hive started it a moment ago
			fmt.Fprintf(o.Stderr, "hive: following the run under way (Temporal workflow %s)\n", id)
		case err != nil:
			return fmt.Errorf("start the run's workflow %s: %w", id, err)
		default:
			fmt.Fprintf(o.Stderr, "hive: run %d is Temporal workflow %s (task queue %s)\n", in.Dispatch.Run, id, queue)
		}
	}
	if err := markRun(repo.Root, Marker{Workflow: id, Address: o.Address, Namespace: o.Namespace}); err != nil {
		fmt.Fprintf(o.Stderr, "hive: %v (hive answer in this folder then needs --backend temporal)\n", err)
	}
	return follow(ctx, o, c, repo.Root, j, id, red, running, since, runconfig.CheckpointWait(cfg, o.WaitSet, o.Wait))
}

// objectiveInput begins the run in the folder and says how its workflow
// starts: a new run with its spec, or a run of the journal resumed from
// its events. The roles' agents are checked here only when this process
// is one of the run's workers.
func objectiveInput(ctx context.Context, o *Run, repo *gitx.Repo, cfg *config.Config, j journal.Journal, goal, queue string) (objective.Input, error) {
	d := temporal.DispatchFor(queue, cfg.Timeouts.Stall)
	in := objective.Input{Dispatch: &objective.Dispatch{TaskQueue: queue, FolderQueue: runworker.FolderQueue(o.Queue, repo.Root),
		Heartbeat: d.Heartbeat, Session: d.Session, Command: d.Command, Where: &temporal.Where{Dir: repo.Root, Remote: o.Remote, Agent: o.Agent}}}
	// share puts the run's worktree on the remote, where the workers of
	// every clone take it from.
	share := func(run journal.Run, dir string) error {
		if o.Remote == "" {
			return nil
		}
		in.Dispatch.Where.Namespace = runworker.RunSpace(run)
		if err := runworker.ShareRun(ctx, repo, o.Remote, in.Dispatch.Where.Namespace, dir); err != nil {
			return exit.Errorf(exit.Usage, "share run %d's worktree on the git remote %s: %v", run.ID, o.Remote, err)
		}
		return nil
	}
	if o.Resume {
		last, _, err := runjournal.Latest(j) // takeUp found it unfinished
		if err != nil {
			return in, exit.With(exit.Internal, err)
		}
		if in.Resume, err = runjournal.Events(j, last); err != nil {
			return in, exit.With(exit.Internal, fmt.Errorf("run %d's journal: %w", last.ID, err))
		}
		if len(in.Resume) == 0 || in.Resume[0].Type != roleplan.EvStarted {
			// Killed between the run's creation and its start: nothing
			// was done, and its objective is not known.
			runjournal.Abandon(j, time.Now())
			return in, exit.With(exit.Usage, fmt.Errorf("%w (run %d was stopped before it started, and is abandoned)", runjournal.ErrNoRun, last.ID))
		}
		in.Dispatch.Run = last.ID
		dir, err := piperun.RunWorktree(piperun.Options{Repo: repo, WorktreeRoot: runconfig.WorktreeRoot(cfg, repo.Root)}, last.ID)
		if err != nil {
			return in, err
		}
		return in, share(last, dir)
	}
	ch, err := o.Choose(ctx, repo, cfg, goal)
	if err != nil {
		return in, err
	}
	// The spec is in the workflow's history, a journal: a secret in a
	// context file is masked there, as in .hive/runs.db.
	red := runconfig.SecretsOf(cfg).Red
	for i := range ch.Context {
		ch.Context[i].Text = red.String(ch.Context[i].Text)
	}
	o.RolesElsewhere = !o.LocalWorker
	opts, err := o.Options(ctx, repo, cfg, goal, ch, j)
	if err != nil {
		return in, err
	}
	run, spec, err := piperun.Begin(ctx, opts)
	if err != nil {
		return in, runconfig.Exit(ctx, err, o.Commands)
	}
	spec.Remote = o.Remote
	in.Spec, in.Dispatch.Run = &spec, run.ID
	dir, err := piperun.RunWorktree(opts, run.ID)
	if err != nil {
		return in, err
	}
	return in, share(run, dir)
}

// reachRemote stops a run whose work would go to the workers through a git
// remote that does not answer ("": none), before anything starts.
func reachRemote(ctx context.Context, repo *gitx.Repo, remote string) error {
	if remote == "" {
		return nil
	}
	if err := repo.ReachRemote(ctx, remote); err != nil {
		return exit.Errorf(exit.Usage, "the run's work goes to the workers through the git remote %s, which does not answer: %v\nname a remote of this repository (git remote -v) or a URL with --git-remote or backend.temporal.remote", remote, err)
	}
	return nil
}

// resumeRemote has a resumed run go on through the git remote it started
// with, which holds its work: without --git-remote it is taken from the
// run's spec; another one is refused.
func resumeRemote(o *Run, j journal.Journal) error {
	if !o.Resume {
		return nil
	}
	last, ok, err := runjournal.Latest(j)
	if err != nil || !ok {
		return err
	}
	m, err := runjournal.Replay(j, last)
	if err != nil {
		return err
	}
	started := m.Snapshot().Spec.Remote
	switch {
	case started == "" || started == o.Remote:
	case o.Remote == "":
		o.Remote = started
		fmt.Fprintf(o.Stderr, "hive: run %d goes on through the git remote %s, as it started (its work is there)\n", last.ID, started)
	default:
		return exit.Errorf(exit.Usage, "run %d started with --git-remote %s, which holds its work: resume it with that remote, not %s", last.ID, started, o.Remote)
	}
	return nil
}

// takeUp checks the journal before a workflow starts: a new run needs no
// unfinished one there (--fresh abandons it), a resumed one needs one, and
// no local hive run may be driving it.
func takeUp(o *Run, repo *gitx.Repo, j journal.Journal) error {
	if pid, live := lock.PipelineHolder(repo.Root); live {
		return exit.Errorf(exit.Busy, "hive pid %d is driving this project's run here, without Temporal: let it end (or stop it, then hive run --resume --backend temporal takes it up)", pid)
	}
	if o.Fresh {
		if run, ok, err := runjournal.Abandon(j, time.Now()); err != nil {
			return exit.With(exit.Internal, err)
		} else if ok {
			fmt.Fprintf(o.Stderr, "run %d abandoned; its work stays on branch %s\n", run.ID, runjournal.RunBranch(j, run))
		}
	}
	last, ok, err := runjournal.Latest(j)
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	unfinished := ok && last.Finished.IsZero()
	switch {
	case o.Resume && !unfinished:
		return exit.With(exit.Usage, runjournal.ErrNoRun)
	case !o.Resume && unfinished:
		return runconfig.Exit(context.Background(), &piperun.UnfinishedError{Run: last}, o.Commands)
	case o.Resume:
		return o.ResumeSettings(repo.Root, j, o.Commands.Resume())
	}
	return nil
}

// answerRunQuestion answers the open question of the unfinished run with
// --answer, as hive answer does: a signal to the workflow id while it
// runs, else in the journal, whose events the resumed workflow steps.
func answerRunQuestion(ctx context.Context, o *Run, c client.Client, id string, running bool, red *redact.Redactor, j journal.Journal) error {
	if running {
		var refused *runjournal.AnswerError
		_, err := sendRunAnswer(ctx, c, id, j, red, "", o.Answer)
		if errors.As(err, &refused) {
			return exit.Errorf(exit.Usage, "%v", err)
		}
		return err
	}
	last, ok, err := runjournal.Latest(j)
	if err != nil || !ok {
		return exit.With(exit.Usage, runjournal.ErrNoRun)
	}
	m, err := runjournal.Replay(j, last)
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	open := m.Snapshot().Open
	if open == nil {
		return exit.Errorf(exit.Usage, "run %d has no open question to answer", last.ID)
	}
	if _, _, err := runjournal.Answer(j, open.Job, o.Answer, time.Now()); err != nil {
		return exit.Errorf(exit.Usage, "%v", err)
	}
	return nil
}

// sendRunAnswer answers job's open question (job "": the open one) in the
// run of the running workflow id, checked as hive answer checks it, and
// signals it to the workflow, masked by red. The question is the one the
// workflow shows, or, while no worker answers its queries (none is up: the
// signal waits in its history for one), the one in the folder's journal j
// (nil: none).
func sendRunAnswer(ctx context.Context, c client.Client, id string, j journal.Journal, red *redact.Redactor, job, text string) (roleplan.Checkpoint, error) {
	snap, err := ObjectiveState(ctx, c, id)
	if err != nil && j != nil {
		if last, ok, jerr := runjournal.Latest(j); jerr == nil && ok && last.Finished.IsZero() {
			if m, rerr := runjournal.Replay(j, last); rerr == nil {
				snap, err = m.Snapshot(), nil
			}
		}
	}
	if err != nil {
		return roleplan.Checkpoint{}, err
	}
	if job == "" && snap.Open != nil {
		job = snap.Open.Job // whoever asks now
	}
	ev, open, err := runjournal.AnswerEvent(snap, 0, job, text, time.Now())
	if err != nil {
		return open, err
	}
	ev.Text = red.String(ev.Text)
	if err := c.SignalWorkflow(ctx, id, "", objective.EventSignal, ev); err != nil {
		return open, fmt.Errorf("send the answer to the run's workflow %s: %w", id, err)
	}
	return open, nil
}

// RunAnswer is what AnswerRun did.
type RunAnswer struct {
	// Running is false when no run is under way on the server: nothing
	// was sent.
	Running  bool
	Workflow string
	Run      int64               // the run's number in the folder's journal
	Question roleplan.Checkpoint // the question answered
	Text     string              // the answer sent, masked
}

// AnswerRun answers job's question in the project's hive run under way on
// Temporal: a signal to its workflow, checked as hive answer checks it,
// the project's secrets masked in it.
func AnswerRun(ctx context.Context, c client.Client, repo *gitx.Repo, job, text string) (RunAnswer, error) {
	a := RunAnswer{Workflow: runworker.WorkflowID(repo.Root)}
	d, err := c.DescribeWorkflowExecution(ctx, a.Workflow, "")
	if missing := (*serviceerror.NotFound)(nil); errors.As(err, &missing) || err == nil && !WorkflowRunning(d) {
		return a, nil
	} else if err != nil {
		return a, fmt.Errorf("the workflow %s: %w", a.Workflow, err)
	}
	a.Running = true
	if d.GetWorkflowExecutionInfo().GetType().GetName() == legacyPipelineWorkflow {
		return a, exit.Errorf(exit.Usage, "the run under way (Temporal workflow %s) was started by an earlier hive: answer it with that hive", a.Workflow)
	}
	cfg, err := config.Load(repo.Root)
	if err != nil {
		return a, exit.With(exit.Usage, err)
	}
	red := runconfig.SecretsOf(cfg).Red
	j, closeJournal, err := runconfig.Journal(repo, cfg)
	if err != nil {
		return a, err
	}
	defer closeJournal()
	a.Question, err = sendRunAnswer(ctx, c, a.Workflow, j, red, job, text)
	var refused *runjournal.AnswerError
	switch {
	case errors.As(err, &refused):
		return a, exit.Errorf(exit.Usage, "%v", err)
	case err != nil:
		return a, exit.With(exit.Internal, err)
	}
	if last, ok, _ := runjournal.Latest(j); ok {
		a.Run = last.ID
	}
	a.Text = red.String(strings.TrimSpace(text))
	return a, nil
}
