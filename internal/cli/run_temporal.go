package cli

// The Temporal backend of hive run: the run's pipeline machine is workflow
// code (temporal.ObjectiveWorkflow), stepped in the history Temporal
// keeps, as execute-phase's engine is; its commands (the roles' sessions,
// the lint, the phase, the checks, the delivery) are activities on the
// hive workers of the project's folder (piperun.Worker), and its
// implementers' plans a phase's workflow whose plans the workers of any
// clone run. This process begins the run in the folder (its journal
// record, branch and worktree), starts the workflow and follows it; the
// folder's journal is a view of the history, which the workers keep up.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
)

// legacyPipelineWorkflow is the workflow type of hive run's runs before
// the machine ran as workflow code: one worker at a time drove the run
// from the folder's journal. Such a run still open is not followed: the
// hive that started it finishes it, or it is ended and resumed from the
// journal.
const legacyPipelineWorkflow = "hive-pipeline"

// pipelineWorkflowID names the workflow of hive run's runs in the
// repository in folder root: one at a time, as the journal holds one
// unfinished run at a time.
func pipelineWorkflowID(root string) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("hive-run-%x", sum[:4])
}

// pipelineQueue is the task queue of hive run's runs in the repository in
// folder root: its own, since the workers of a phase's runs carry out
// other work, and the folder's, since only a worker there has the run's
// worktree and journal.
func pipelineQueue(queue, root string) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("%s-run-%x", queue, sum[:4])
}

// runTemporal starts (or, with --resume, takes up) the project's run as a
// Temporal workflow and follows it here; this process is one of its
// workers unless --local-worker=false.
func runTemporal(ctx context.Context, o *runOptions, repo *gitx.Repo, cfg *config.Config, objective string) error {
	if err := reachRemote(ctx, repo, o.remote); err != nil {
		return err
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	id, queue := pipelineWorkflowID(repo.Root), pipelineQueue(o.queue, repo.Root)
	running := false
	if d, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil {
		running = workflowRunning(d)
		if running && d.GetWorkflowExecutionInfo().GetType().GetName() == legacyPipelineWorkflow {
			return exitf(ExitBusy, "the run under way here (Temporal workflow %s) was started by an earlier hive, whose workers drive it from the journal: "+
				"let them finish it, or end it (temporal workflow terminate --workflow-id %s) and go on with %s", id, id, o.resumeCommand(repo.Root))
		}
	} else if missing := (*serviceerror.NotFound)(nil); !errors.As(err, &missing) {
		return fmt.Errorf("the workflow %s: %w", id, err)
	}
	j, closeJournal, err := pipelineJournal(repo, cfg)
	if err != nil {
		return err
	}
	defer closeJournal()
	switch {
	case running && o.fresh:
		return exitf(ExitBusy, "a run is under way here (Temporal workflow %s): end it first (temporal workflow terminate --workflow-id %s), then hive run --fresh", id, id)
	case running && !o.resume:
		return exitf(ExitBusy, "a run is under way here (Temporal workflow %s): follow it with %s", id, o.resumeCommand(repo.Root))
	case !running:
		if err := takeUp(o, repo, j); err != nil {
			return err
		}
		if err := o.checkTree(ctx, repo); err != nil {
			return err
		}
		given := o.remote // reached above
		if err := resumeRemote(o, j); err != nil {
			return err
		}
		if given == "" {
			if err := reachRemote(ctx, repo, o.remote); err != nil {
				return err
			}
		}
	}
	red := secretsOf(cfg).red
	if o.answer != "" {
		if err := answerRunQuestion(ctx, o, c, id, running, red, j); err != nil {
			return err
		}
	}
	roots := newRunNames(ctx, repo.Root).roots
	if o.remote != "" && roots != "" {
		// The run's workflow and commands go to the workers of every
		// clone; this folder keeps its journal and takes its delivery.
		queue = anywhereQueue(o.queue, roots)
	}
	if o.localWorker {
		s := runService{g: o.globalOptions, agent: o.agent, queue: o.queue, remote: o.remote, root: repo.Root, roots: roots, runs: true, plans: true}
		stop, err := s.start(c)
		if err != nil {
			return err
		}
		defer stop()
	}
	if running {
		fmt.Fprintf(o.stderr, "hive: following the run under way (Temporal workflow %s)\n", id)
	} else {
		in, err := objectiveInput(ctx, o, repo, cfg, j, red.String(objective), queue)
		if err != nil {
			return err
		}
		_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue, WorkflowExecutionErrorWhenAlreadyStarted: true},
			temporal.ObjectiveWorkflowName, in)
		var already *serviceerror.WorkflowExecutionAlreadyStarted
		switch {
		case errors.As(err, &already):
			running = true // another hive started it a moment ago
			fmt.Fprintf(o.stderr, "hive: following the run under way (Temporal workflow %s)\n", id)
		case err != nil:
			return fmt.Errorf("start the run's workflow %s: %w", id, err)
		default:
			fmt.Fprintf(o.stderr, "hive: run %d is Temporal workflow %s (task queue %s)\n", in.Dispatch.Run, id, queue)
		}
	}
	if err := markRunOnTemporal(repo.Root, id, o.temporalFlags); err != nil {
		fmt.Fprintf(o.stderr, "hive: %v (hive answer in this folder then needs --backend temporal)\n", err)
	}
	obs := &runPrinter{w: o.stdout, json: o.json, start: time.Now(), width: terminalWidth(o.stdout), repo: repo, answer: o.answerCommand(repo.Root)}
	return followObjective(ctx, o, c, id, red, obs, running, checkpointWait(cfg, o.waitSet, o.wait))
}

// objectiveInput begins the run in the folder and says how its workflow
// starts: a new run with its spec, or a run of the journal resumed from
// its events. The roles' agents are checked here only when this process
// is one of the run's workers.
func objectiveInput(ctx context.Context, o *runOptions, repo *gitx.Repo, cfg *config.Config, j journal.Journal, objective, queue string) (temporal.ObjectiveInput, error) {
	d := temporalDispatch(queue, cfg.Timeouts.Stall)
	in := temporal.ObjectiveInput{Dispatch: &temporal.ObjectiveDispatch{TaskQueue: queue, FolderQueue: pipelineQueue(o.queue, repo.Root),
		Heartbeat: d.Heartbeat, Session: d.Session, Command: d.Command, Where: &temporal.Where{Dir: repo.Root, Remote: o.remote, Agent: o.agent}}}
	// share puts the run's worktree on the remote, where the workers of
	// every clone take it from.
	share := func(run journal.Run, dir string) error {
		if o.remote == "" {
			return nil
		}
		in.Dispatch.Where.Namespace = runSpace(run)
		if err := shareRun(ctx, repo, o.remote, in.Dispatch.Where.Namespace, dir); err != nil {
			return exitf(ExitUsage, "share run %d's worktree on the git remote %s: %v", run.ID, o.remote, err)
		}
		return nil
	}
	if o.resume {
		last, _, err := piperun.Latest(j) // takeUp found it unfinished
		if err != nil {
			return in, &exitError{code: ExitInternal, err: err}
		}
		if in.Resume, err = piperun.Events(j, last); err != nil {
			return in, &exitError{code: ExitInternal, err: fmt.Errorf("run %d's journal: %w", last.ID, err)}
		}
		if len(in.Resume) == 0 || in.Resume[0].Type != pipeline.EvStarted {
			// Killed between the run's creation and its start: nothing
			// was done, and its objective is not known.
			piperun.Abandon(j, time.Now())
			return in, &exitError{code: ExitUsage, err: fmt.Errorf("%w (run %d was stopped before it started, and is abandoned)", piperun.ErrNoRun, last.ID)}
		}
		in.Dispatch.Run = last.ID
		dir, err := piperun.RunWorktree(piperun.Options{Repo: repo, WorktreeRoot: worktreeRoot(cfg, repo.Root)}, last.ID)
		if err != nil {
			return in, err
		}
		return in, share(last, dir)
	}
	ch, err := chooseRun(ctx, o, repo, cfg, objective)
	if err != nil {
		return in, err
	}
	// The spec is in the workflow's history, a journal: a secret in a
	// context file is masked there, as in .hive/runs.db.
	red := secretsOf(cfg).red
	for i := range ch.Context {
		ch.Context[i].Text = red.String(ch.Context[i].Text)
	}
	o.rolesElsewhere = !o.localWorker
	opts, err := pipelineOptions(ctx, o, repo, cfg, objective, ch, j)
	if err != nil {
		return in, err
	}
	run, spec, err := piperun.Begin(ctx, opts)
	if err != nil {
		return in, o.runExit(ctx, repo.Root, err)
	}
	spec.Remote = o.remote
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
		return exitf(ExitUsage, "the run's work goes to the workers through the git remote %s, which does not answer: %v\nname a remote of this repository (git remote -v) or a URL with --git-remote or backend.temporal.remote", remote, err)
	}
	return nil
}

// resumeRemote has a resumed run go on through the git remote it started
// with, which holds its work: without --git-remote it is taken from the
// run's spec; another one is refused.
func resumeRemote(o *runOptions, j journal.Journal) error {
	if !o.resume {
		return nil
	}
	last, ok, err := piperun.Latest(j)
	if err != nil || !ok {
		return err
	}
	m, err := piperun.Replay(j, last)
	if err != nil {
		return err
	}
	started := m.Snapshot().Spec.Remote
	switch {
	case started == "" || started == o.remote:
	case o.remote == "":
		o.remote = started
		fmt.Fprintf(o.stderr, "hive: run %d goes on through the git remote %s, as it started (its work is there)\n", last.ID, started)
	default:
		return exitf(ExitUsage, "run %d started with --git-remote %s, which holds its work: resume it with that remote, not %s", last.ID, started, o.remote)
	}
	return nil
}

// takeUp checks the journal before a workflow starts: a new run needs no
// unfinished one there (--fresh abandons it), a resumed one needs one, and
// no local hive run may be driving it.
func takeUp(o *runOptions, repo *gitx.Repo, j journal.Journal) error {
	if pid, live := runner.PipelineHolder(repo.Root); live {
		return exitf(ExitBusy, "hive pid %d is driving this project's run here, without Temporal: let it end (or stop it, then hive run --resume --backend temporal takes it up)", pid)
	}
	if o.fresh {
		if run, ok, err := piperun.Abandon(j, time.Now()); err != nil {
			return &exitError{code: ExitInternal, err: err}
		} else if ok {
			fmt.Fprintf(o.stderr, "run %d abandoned; its work stays on branch %s\n", run.ID, piperun.RunBranch(j, run))
		}
	}
	last, ok, err := piperun.Latest(j)
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	unfinished := ok && last.Finished.IsZero()
	switch {
	case o.resume && !unfinished:
		return &exitError{code: ExitUsage, err: piperun.ErrNoRun}
	case !o.resume && unfinished:
		return o.runExit(context.Background(), repo.Root, &piperun.UnfinishedError{Run: last})
	case o.resume:
		return resumeSettings(o, repo.Root, j)
	}
	return nil
}

// answerRunQuestion answers the open question of the unfinished run with
// --answer, as hive answer does: a signal to the workflow id while it
// runs, else in the journal, whose events the resumed workflow steps.
func answerRunQuestion(ctx context.Context, o *runOptions, c client.Client, id string, running bool, red *redact.Redactor, j journal.Journal) error {
	if running {
		var refused *piperun.AnswerError
		_, err := sendRunAnswer(ctx, c, id, j, red, "", o.answer)
		if errors.As(err, &refused) {
			return exitf(ExitUsage, "%v", err)
		}
		return err
	}
	last, ok, err := piperun.Latest(j)
	if err != nil || !ok {
		return &exitError{code: ExitUsage, err: piperun.ErrNoRun}
	}
	m, err := piperun.Replay(j, last)
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	open := m.Snapshot().Open
	if open == nil {
		return exitf(ExitUsage, "run %d has no open question to answer", last.ID)
	}
	if _, _, err := piperun.Answer(j, open.Job, o.answer, time.Now()); err != nil {
		return exitf(ExitUsage, "%v", err)
	}
	return nil
}

// sendRunAnswer answers job's open question (job "": the open one) in the
// run of the running workflow id, checked as hive answer checks it, and
// signals it to the workflow, masked by red. The question is the one the
// workflow shows, or, while no worker answers its queries (none is up: the
// signal waits in its history for one), the one in the folder's journal j
// (nil: none).
func sendRunAnswer(ctx context.Context, c client.Client, id string, j journal.Journal, red *redact.Redactor, job, text string) (pipeline.Checkpoint, error) {
	snap, err := objectiveState(ctx, c, id)
	if err != nil && j != nil {
		if last, ok, jerr := piperun.Latest(j); jerr == nil && ok && last.Finished.IsZero() {
			if m, rerr := piperun.Replay(j, last); rerr == nil {
				snap, err = m.Snapshot(), nil
			}
		}
	}
	if err != nil {
		return pipeline.Checkpoint{}, err
	}
	if job == "" && snap.Open != nil {
		job = snap.Open.Job // whoever asks now
	}
	ev, open, err := piperun.AnswerEvent(snap, 0, job, text, time.Now())
	if err != nil {
		return open, err
	}
	ev.Text = red.String(ev.Text)
	if err := c.SignalWorkflow(ctx, id, "", temporal.ObjectiveEventSignal, ev); err != nil {
		return open, fmt.Errorf("send the answer to the run's workflow %s: %w", id, err)
	}
	return open, nil
}
