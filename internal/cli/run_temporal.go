package cli

// The Temporal backend of hive run: the run is a workflow
// (temporal.PipelineWorkflow) that hands it to one hive worker at a time,
// which drives it as a local run does, journal first; when that worker
// dies, another takes the run over from the journal. The workers share the
// project's folder.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/work"
)

// runRequest is what a Temporal run of hive run asks of its drivers: what
// the command line that started it asked for, settled there (the
// workflow of roles, the context files), so that any worker drives the
// same run.
type runRequest struct {
	Objective   string    `json:"objective,omitempty"`
	Choice      runChoice `json:"choice"`
	Agent       string    `json:"agent,omitempty"`
	Yes         bool      `json:"yes,omitempty"`
	NoInterview bool      `json:"no_interview,omitempty"`
	NoMerge     bool      `json:"no_merge,omitempty"`
	AllowDirty  bool      `json:"allow_dirty,omitempty"`
	Push        bool      `json:"push,omitempty"`
	PR          bool      `json:"pr,omitempty"`
	Evaluate    bool      `json:"evaluate,omitempty"`
	BudgetUSD   *float64  `json:"budget_usd,omitempty"`
	// Resume takes over the unfinished run in the journal, not a new one.
	Resume bool `json:"resume,omitempty"`
	// Remote is the git remote through which the implementers' plans go to
	// workers in clones of their own ("": the workers share the run's
	// worktree).
	Remote string `json:"remote,omitempty"`
}

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
// journal to drive it from (workers in clones elsewhere serve the plans).
func pipelineQueue(queue, root string) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("%s-run-%x", queue, sum[:4])
}

// legacyPipelineQueue is the task queue of hive run's runs before each
// folder had its own: a folder's drivers serve it too, so that a run an
// older hive started goes on after an upgrade (its workflow's tasks stay
// on the queue it started on).
func legacyPipelineQueue(queue string) string { return queue + "-run" }

// pipelineDrivers is how many workers may take a run over in turn (each
// one's death, or a ctrl-c of the process that drove it, hands it on).
const pipelineDrivers = 10

// runTemporal starts (or, with --resume, takes up) the project's run as a
// Temporal workflow and follows it here; a driver runs in this process
// unless --local-worker=false.
func runTemporal(ctx context.Context, o *runOptions, repo *gitx.Repo, cfg *config.Config, objective string) error {
	if o.remote != "" {
		// The plans go to the workers through it once the architect is
		// done: a remote that does not answer stops the run now.
		if err := repo.ReachRemote(ctx, o.remote); err != nil {
			return exitf(ExitUsage, "the implementers' plans go to the workers through the git remote %s, which does not answer: %v\nname a remote of this repository (git remote -v) or a URL with --git-remote or backend.temporal.remote", o.remote, err)
		}
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	id, queue := pipelineWorkflowID(repo.Root), pipelineQueue(o.queue, repo.Root)
	running, exists := false, false
	if d, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil {
		running, exists = workflowRunning(d), true
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
		if last, ok, err := piperun.Latest(j); exists && err == nil && ok && last.Finished.IsZero() {
			// The run may have ended under a driver elsewhere (a clone):
			// this folder's journal learns how first.
			qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := catchUpFolder(qctx, c, id, j); err != nil {
				fmt.Fprintf(o.stderr, "hive: bring run %d's journal here up to its workflow's (%s): %v\n", last.ID, id, err)
			}
			cancel()
		}
		if err := takeUp(o, repo, j); err != nil {
			return err
		}
		if err := o.checkTree(ctx, repo); err != nil {
			return err
		}
	}
	if o.answer != "" {
		if err := answerRunQuestion(ctx, o, c, id, running, cfg, j); err != nil {
			return err
		}
	}
	// A resume's drivers play its roles with the agent it started with
	// (resumeSettings), not their own.
	req := runRequest{Resume: o.resume, Agent: o.agent}
	if !o.resume {
		ch, err := chooseRun(ctx, o, repo, cfg, objective)
		if err != nil {
			return err
		}
		// The request is in the workflow's history, a journal: a secret
		// in the objective or a context file is masked there, as in
		// .hive/runs.db.
		red := secretsOf(cfg).red
		for i := range ch.Context {
			ch.Context[i].Text = red.String(ch.Context[i].Text)
		}
		req = runRequest{Objective: red.String(objective), Choice: ch, Agent: o.agent, Yes: o.yes, NoInterview: o.noInterview,
			NoMerge: o.noMerge, AllowDirty: o.allowDirty, Push: o.push, PR: o.pr, Evaluate: o.evaluate}
		if o.budgetUSDSet {
			req.BudgetUSD = &o.budgetUSD
		}
	}
	req.Remote = o.remote
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	roots := newRunNames(ctx, repo.Root).roots
	if o.localWorker {
		s := runService{g: o.globalOptions, agent: o.agent, queue: o.queue, remote: o.remote, root: repo.Root, roots: roots, drive: true, plans: true, follows: true}
		stop, err := s.start(c)
		if err != nil {
			return err
		}
		defer stop()
	}
	run := c.GetWorkflow(ctx, id, "")
	if running {
		fmt.Fprintf(o.stderr, "hive: following the run under way (Temporal workflow %s)\n", id)
	} else {
		in := temporal.PipelineInput{Request: raw, Heartbeat: temporalDispatch(queue, cfg.Timeouts.Stall).Heartbeat, Timeout: 7 * 24 * time.Hour, Drivers: pipelineDrivers}
		where, queues := queue, queue
		if o.remote != "" && roots != "" {
			// The run's work is on the remote: when this folder's
			// workers are gone, a worker of any clone goes on with it.
			in.Anywhere, in.Folder, in.Handover = anywhereQueue(o.queue, roots), queue, in.Heartbeat
			where, queues = in.Anywhere, queue+", then any clone's "+in.Anywhere
		}
		started, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: where, WorkflowExecutionErrorWhenAlreadyStarted: true},
			temporal.PipelineWorkflowName, in)
		var already *serviceerror.WorkflowExecutionAlreadyStarted
		switch {
		case errors.As(err, &already):
			running = true // another hive started it a moment ago
			fmt.Fprintf(o.stderr, "hive: following the run under way (Temporal workflow %s)\n", id)
		case err != nil:
			return fmt.Errorf("start the run's workflow %s: %w", id, err)
		default:
			run = started
			fmt.Fprintf(o.stderr, "hive: the run is Temporal workflow %s (task queue %s)\n", id, queues)
		}
	}
	if err := markRunOnTemporal(repo.Root, id, o.temporalFlags); err != nil {
		fmt.Fprintf(o.stderr, "hive: %v (hive answer in this folder then needs --backend temporal)\n", err)
	}
	obs := &runPrinter{w: o.stdout, json: o.json, start: time.Now(), width: terminalWidth(o.stdout), repo: repo, answer: o.answerCommand(repo.Root)}
	return followRun(ctx, o, c, run, j, secretsOf(cfg).red, obs, running, checkpointWait(cfg, o.waitSet, o.wait))
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
// --answer, as hive answer does: a signal to the workflow id while it runs
// (its driver journals it), else in the journal, where the driver that
// takes the run up reads it.
func answerRunQuestion(ctx context.Context, o *runOptions, c client.Client, id string, running bool, cfg *config.Config, j journal.Journal) error {
	if running {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			return err
		}
		var refused *piperun.AnswerError
		_, _, err = sendRunAnswer(ctx, c, id, d, j, secretsOf(cfg).red, "", o.answer)
		if errors.As(err, &refused) || errors.Is(err, piperun.ErrNoRun) {
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

// followRun shows the run as its driver journals it (the records it hands
// the workflow), sends the answers typed here to it (sendRunAnswer), and
// ends with the run: its result, or, on
// ctrl-c, at once, the run going on on its workers. attached: the run was
// under way, and what it did before is not shown again. Without a
// terminal, a question open for wait (negative: never) ends the following
// with ExitNeedsHuman, as a local run stops: the run waits on its workers
// for hive answer.
func followRun(ctx context.Context, o *runOptions, c client.Client, run client.WorkflowRun, j journal.Journal, red *redact.Redactor, obs *runPrinter, attached bool, wait time.Duration) error {
	type ended struct {
		raw json.RawMessage
		err error
	}
	done := make(chan ended, 1)
	go func() {
		var raw json.RawMessage
		err := temporal.Result(ctx, run, &raw)
		done <- ended{raw, err}
	}()
	answers := make(chan string)
	if !o.json && isTerminal(o.stdin) {
		obs.prompt = true
		go readAnswers(o.stdin, answers)
	} else {
		obs.wait = wait
	}
	var f *piperun.Follower
	var src *followed
	var drivers []temporal.Driver
	var asked time.Time // since when the open question is open
	since := time.Now()
	hinted, queryFailed := false, false
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case e := <-done:
			if f != nil {
				f.Next(false) // what the driver journaled last
			}
			if err := catchUpFolder(ctx, c, run.GetID(), j); err != nil {
				obs.Note("", "bring the run's journal here up to its workflow's: "+err.Error())
			}
			if e.err != nil {
				if ctx.Err() != nil {
					return o.runGoesOn(obs.repo.Root)
				}
				return &exitError{code: ExitInternal, err: fmt.Errorf("the run's workflow %s ended without a result: %w", run.GetID(), e.err)}
			}
			if obs.repo != nil {
				os.Remove(runMarkerPath(obs.repo.Root)) // nothing more to answer there
			}
			var res piperun.Result
			if err := json.Unmarshal(e.raw, &res); err != nil {
				return &exitError{code: ExitInternal, err: fmt.Errorf("the run's result: %w", err)}
			}
			obs.result(res)
			return resultExit(res)
		case <-ctx.Done():
			return o.runGoesOn(obs.repo.Root)
		case text := <-answers:
			var open *pipeline.Checkpoint
			if f != nil {
				open = f.Snapshot().Open
			}
			if open == nil {
				obs.Note("", "nothing is asked now: "+text+" ignored")
			} else if d, err := c.DescribeWorkflowExecution(ctx, run.GetID(), ""); err != nil {
				obs.Note(open.Job, err.Error())
			} else if _, _, err := sendRunAnswer(ctx, c, run.GetID(), d, j, red, open.Job, text); err != nil {
				obs.Note(open.Job, err.Error())
			}
		case <-tick.C:
			if f != nil {
				// The records first, then who drove them: a driver that
				// took the run over is named before what it journaled
				// (an error here comes again from Next below).
				_ = f.Fetch()
			}
			if now, err := runDrivers(ctx, c, run); err == nil && len(now) > len(drivers) {
				d := now[len(now)-1]
				if len(drivers) > 0 {
					obs.Note("", fmt.Sprintf("the worker that drove the run is gone: %s takes it over from the journal (driver %d)", d.Host, d.Attempt))
				} else if !o.json {
					fmt.Fprintf(o.stderr, "hive: run %d is driven by %s\n", d.Run, d.Host)
				}
				drivers = now
				if f == nil {
					// The run as its drivers handed it to the workflow,
					// wherever they journal it (in its latest run).
					src = &followed{wj: temporal.WorkflowJournal{C: c, ID: run.GetID(), Ctx: ctx}, j: j}
					f = piperun.NewFollower(src, d.Run, obs)
					if attached {
						f.Next(true)
					}
				}
			}
			if f == nil && !hinted && time.Since(since) > 10*time.Second {
				hinted = true
				fmt.Fprintf(o.stderr, "hive: no worker has taken the run yet: start one in this folder with hive worker --backend temporal\n")
			}
			if f == nil {
				continue
			}
			if err := f.Next(false); err != nil {
				// A workflow between workers answers no query for a
				// moment: the next tick asks again.
				if !queryFailed {
					obs.Note("", err.Error()+" (asking again)")
				}
				queryFailed = true
				continue
			}
			queryFailed = false
			open := f.Snapshot().Open
			switch {
			case open == nil:
				asked = time.Time{}
			case asked.IsZero():
				asked = time.Now()
			}
			if open != nil && !obs.prompt && wait >= 0 && time.Since(asked) >= wait && !src.answered(drivers[len(drivers)-1].Run, open.ID) {
				return exitf(ExitNeedsHuman, "%s asks: %s. The run waits for the answer on its workers: %s, then %s follows it again",
					open.Job, clipped(oneLine(open.Question), 200), o.pasteable(obs.repo.Root, "answer", open.Job, open.Example()), o.resumeCommand(obs.repo.Root))
			}
		}
	}
}

// sendRunAnswer answers job's open question (job "": the open one) in the
// run of the running workflow id, checked as hive answer checks it, and
// sends it as a signal (masked by red), which the run's driver journals,
// wherever it runs, now or once one takes the run up. The question is
// the one the run's records in the workflow show, or, while no worker
// answers the workflow's query (none drives it: d, its description),
// this folder's journal j.
func sendRunAnswer(ctx context.Context, c client.Client, id string, d *workflowservice.DescribeWorkflowExecutionResponse, j journal.Journal, red *redact.Redactor, job, text string) (journal.Run, pipeline.Checkpoint, error) {
	run, snap, err := journalState(j)
	if beingDriven(d) {
		if r, s, werr := workflowState(ctx, c, id); werr == nil {
			run, snap, err = r, s, nil
		}
	}
	if err != nil {
		return run, pipeline.Checkpoint{}, err
	}
	if job == "" && snap.Open != nil {
		job = snap.Open.Job // whoever asks now
	}
	ev, open, err := piperun.AnswerEvent(snap, run.ID, job, text, time.Now())
	if err != nil {
		return run, open, err
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return run, open, err
	}
	in := temporal.Inbound{Run: run.ID, Checkpoint: open.ID, Type: string(ev.Type), Time: ev.Time, Payload: red.JSON(payload)}
	if err := temporal.SendAnswer(ctx, c, id, in); err != nil {
		return run, open, fmt.Errorf("send the answer to the run's workflow %s: %w", id, err)
	}
	return run, open, nil
}

// workflowState is the run the workflow id keeps a copy of, and its state.
func workflowState(ctx context.Context, c client.Client, id string) (journal.Run, pipeline.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	wj := temporal.WorkflowJournal{C: c, ID: id, Ctx: ctx}
	run, err := wj.Latest()
	if err != nil || run.ID == 0 {
		return run, pipeline.Snapshot{}, fmt.Errorf("the workflow %s has no copy of its run's journal (%v)", id, err)
	}
	if !run.Finished.IsZero() {
		return run, pipeline.Snapshot{}, piperun.ErrNoRun
	}
	f := piperun.NewFollower(wj, run.ID, piperun.Silent{})
	if err := f.Next(true); err != nil {
		return run, pipeline.Snapshot{}, err
	}
	return run, f.Snapshot(), nil
}

// journalState is the unfinished run of journal j, and its state.
func journalState(j journal.Journal) (journal.Run, pipeline.Snapshot, error) {
	last, ok, err := piperun.Latest(j)
	switch {
	case err != nil:
		return last, pipeline.Snapshot{}, err
	case !ok || !last.Finished.IsZero():
		return last, pipeline.Snapshot{}, piperun.ErrNoRun
	}
	m, err := piperun.Replay(j, last)
	if err != nil {
		return last, pipeline.Snapshot{}, err
	}
	return last, m.Snapshot(), nil
}

// beingDriven says whether the described workflow of hive run has a driver
// now (its drive activity started on a worker), whose worker answers the
// workflow's queries.
func beingDriven(d *workflowservice.DescribeWorkflowExecutionResponse) bool {
	if !workflowRunning(d) {
		return false
	}
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == temporal.PipelineActivity && a.GetState() == enums.PENDING_ACTIVITY_STATE_STARTED {
			return true
		}
	}
	return false
}

// followed is what a terminal that follows a run reads: the run's records
// in its workflow, or, when the workers are an older hive's whose
// workflow keeps none (it does not know the query), the folder's journal.
type followed struct {
	wj    temporal.WorkflowJournal
	j     journal.Journal
	older bool
}

// answered says whether an answer to checkpoint of run waits to be
// journaled by the run's driver: sent to the workflow, or in the folder's
// journal (where the workflow's copy may not have it yet).
func (f *followed) answered(run int64, checkpoint int) bool {
	if ok, err := f.wj.Answered(run, checkpoint); err == nil && ok {
		return true
	}
	recs, err := f.j.Events(run, 1)
	if err != nil {
		return false
	}
	for _, r := range recs {
		var ev pipeline.Event
		if r.Type == string(pipeline.EvAnswer) && json.Unmarshal(r.Payload, &ev) == nil && ev.Checkpoint == checkpoint {
			return true
		}
	}
	return false
}

func (f *followed) Events(run, from int64) ([]journal.Record, error) {
	if !f.older {
		recs, err := f.wj.Events(run, from)
		if err == nil || !strings.Contains(err.Error(), "unknown queryType") {
			return recs, err
		}
		f.older = true
	}
	return f.j.Events(run, from)
}

// runDrivers asks the run's workflow which workers drove it.
func runDrivers(ctx context.Context, c client.Client, run client.WorkflowRun) ([]temporal.Driver, error) {
	// The latest workflow run: one whose history grew long continues as
	// new.
	v, err := c.QueryWorkflow(ctx, run.GetID(), "", temporal.DriversQuery)
	if err != nil {
		return nil, err
	}
	var ds []temporal.Driver
	return ds, v.Get(&ds)
}

// runGoesOn is the exit of a command that stopped following a Temporal
// run of the repository at root, which goes on on its workers.
func (o *runOptions) runGoesOn(root string) error {
	return exitf(ExitInterrupted, "interrupted: the run goes on on its workers (hive worker --backend temporal); %s follows it again", o.resumeCommand(root))
}

// runDriver drives Temporal runs of hive run in the repository g names,
// as a local run: journal first, in the project's folder. out, when set,
// shows each run's progress (a hive worker's); otherwise only its notes
// go to g's stderr (the process that follows the run shows the rest).
type runDriver struct {
	g      *globalOptions
	agent  string // the worker's --agent, for a request that names none
	remote string // the worker's --git-remote, for a run whose remote this clone calls otherwise
	out    io.Writer
	c      client.Client
	queue  string // the workers' task queue: the phases' plans go to phasesQueue of it
}

// Drive implements temporal.PipelineDriver.
func (d *runDriver) Drive(ctx context.Context, raw json.RawMessage, t temporal.Takeover, started func(int64)) (json.RawMessage, error) {
	var req runRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, temporal.Refused(fmt.Errorf("the run's request: %w", err))
	}
	repo, cfg, err := openRepoConfig(ctx, d.g)
	if err != nil {
		return nil, temporal.Refused(err)
	}
	o := &runOptions{globalOptions: d.g, agent: req.Agent, yes: req.Yes, noInterview: req.NoInterview, noMerge: req.NoMerge,
		allowDirty: req.AllowDirty, push: req.Push, pr: req.PR, evaluate: req.Evaluate, resume: req.Resume, rolesElsewhere: true}
	if o.agent == "" {
		o.agent = d.agent
	}
	if req.BudgetUSD != nil {
		o.budgetUSD, o.budgetUSDSet = *req.BudgetUSD, true
	}
	j, closeJournal, err := pipelineJournal(repo, cfg)
	if err != nil {
		return nil, err
	}
	defer closeJournal()
	var clone *cloneRun // set when this worker is not in the run's folder
	if t.Attempt > 1 && t.Workflow != "" {
		adopted, c, done, err := d.takeUpRun(ctx, repo, cfg, j, t, req)
		if err != nil {
			return nil, err // another driver may go on
		}
		if done != nil {
			defer done()
		}
		j, clone = adopted, c
	}
	if t.Journal != nil {
		j = t.Journal(j) // each record to the workflow's history too
	}
	remote := req.Remote // its name here
	if clone != nil {
		remote = clone.remote
	}
	if t.Attempt > 1 {
		// Taking over: the run the driver before started, if it got that
		// far; one it finished needs no driver, only its result.
		last, ok, err := piperun.Latest(j)
		if err != nil {
			return nil, err
		}
		mine := ok && (last.ID == t.Run || t.Run == 0 && !last.Started.Before(t.Since))
		switch {
		case mine && !last.Finished.IsZero():
			if err := temporal.CatchUp(j, last.ID); err != nil {
				return nil, err // the driver before died before its last records reached the workflow
			}
			if req.Remote != "" && clone == nil {
				// As the driver before would have, once the work is home
				// (a run a clone ended keeps it there for the user).
				(&runShare{remote: remote}).clearMerged(ctx, repo, last)
			}
			return endedResult(j, last)
		case mine:
			o.resume = true
		}
	}
	if o.resume && clone == nil && req.Remote != "" {
		// A driver in a clone may have gone on with the run: its work
		// comes to the run's worktree here first.
		if last, ok, err := piperun.Latest(j); err != nil {
			return nil, err
		} else if ok {
			if err := runBranchAt(ctx, repo, cfg, req.Remote, j, last, false); err != nil {
				return nil, err
			}
		}
	}
	opts, err := pipelineOptions(ctx, o, repo, cfg, req.Objective, req.Choice, j)
	if err != nil {
		return nil, temporal.Refused(err)
	}
	if opts.OnLimit == work.OnLimitStop {
		// A driver that stopped would only be replaced by the next: the
		// run waits at a usage limit, holding no terminal.
		opts.OnLimit = work.OnLimitWait
	}
	w := d.out
	if w == nil {
		w = d.g.stderr
	}
	opts.Observer = &driverPrinter{runPrinter: &runPrinter{w: w, start: time.Now(), repo: repo}, events: d.out != nil}
	opts.Wait = -1 // answers come through the journal (hive answer, or the terminal that follows the run)
	workflowID := t.Workflow
	if workflowID == "" {
		workflowID = pipelineWorkflowID(repo.Root)
	}
	opts.Phases = &phaseWorkflows{c: d.c, queue: phasesQueue(d.queue), run: workflowID, stall: cfg.Timeouts.Stall, agent: o.agent, remote: remote}
	opts.Started = func(r journal.Run) { started(r.ID) }
	var share *runShare
	// The roles' sessions go to the workers of the run's plans: with a
	// remote wherever they are, as the run's work goes to the remote as
	// it is done.
	roles := &roleWorkers{c: d.c, queue: phasesQueue(d.queue), workflow: workflowID, driver: t.Attempt, agent: o.agent,
		d: temporalDispatch(phasesQueue(d.queue), cfg.Timeouts.Stall)}
	if req.Remote != "" {
		share = &runShare{remote: remote, brings: true}
		opts.Share = share.share
		roles.remote, roles.share = remote, share
	}
	roles.serve(&opts)
	if o.resume {
		if last, ok, err := piperun.Latest(j); err == nil && ok {
			roles.stopEarlier(ctx, j, last)
		}
	}
	if clone != nil {
		last, _, _ := piperun.Latest(j)
		opts.Elsewhere = clone.note(last, req.Remote)
	}
	res, err := piperun.Run(ctx, opts)
	var unfinished *piperun.UnfinishedError
	var answer *piperun.AnswerError
	switch {
	case errors.As(err, &unfinished), errors.As(err, &answer), errors.Is(err, piperun.ErrNoRun), errors.Is(err, temporal.ErrRecordTooLarge):
		return nil, temporal.Refused(err)
	case err != nil:
		return nil, err
	}
	switch {
	case clone != nil:
		// The work stays on the run's branch of the remote, for the user
		// to bring home; the clone keeps nothing of it.
		tip := repo.RefHash(ctx, "refs/heads/"+res.Branch)
		if err := share.push(ctx, repo, tip, res.Run); err != nil {
			res.Notes = append(res.Notes, "push the run's work to "+sharedRunBranch(res.Run)+": "+err.Error())
		} else if err := repo.DeleteBranch(ctx, res.Branch); err != nil {
			res.Notes = append(res.Notes, err.Error())
		}
	case share != nil:
		// The run has ended and delivered: its branch there is done with.
		if err := share.clear(ctx, repo, res.Run); err != nil {
			res.Notes = append(res.Notes, "remove the run's branch "+sharedRunBranch(res.Run)+" from "+req.Remote+": "+err.Error())
		}
	}
	// The run's end reaches the workflow before its result does (its
	// mirror may have failed to say so).
	if err := temporal.CatchUp(j, res.Run.ID); err != nil {
		return nil, err
	}
	if d.out != nil {
		fmt.Fprintf(d.out, "hive worker: run %d %s\n", res.Run.ID, res.Snapshot.Outcome)
	}
	return json.Marshal(res)
}

// endedResult is the result of a run that ended under a driver that died
// before it could say so.
func endedResult(j journal.Journal, run journal.Run) (json.RawMessage, error) {
	m, err := piperun.Replay(j, run)
	if err != nil {
		return nil, err
	}
	return json.Marshal(piperun.Result{Run: run, Snapshot: m.Snapshot(), Branch: piperun.RunBranch(j, run),
		Notes: []string{fmt.Sprintf("run %d had ended when this worker took it over: hive report %d tells how it was delivered", run.ID, run.ID)}})
}

// driverPrinter shows what a driver does: everything, or its notes only.
type driverPrinter struct {
	*runPrinter
	events bool
}

func (p *driverPrinter) Event(ev pipeline.Event, s pipeline.Snapshot) {
	if p.events {
		p.runPrinter.Event(ev, s)
	}
}

func (p *driverPrinter) Command(c pipeline.Command, s pipeline.Snapshot) {
	if p.events {
		p.runPrinter.Command(c, s)
	}
}

// pipelineWorkerRun is hive worker without a phase: it drives hive run's
// runs of this repository and runs their phases' plans (--only one of the
// two).
func pipelineWorkerRun(ctx context.Context, o *workerOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	repo, err := openRepo(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	s := runService{g: o.globalOptions, agent: o.agent, queue: o.queue, remote: o.remote, root: repo.Root, roots: newRunNames(ctx, repo.Root).roots, out: o.stdout,
		drive: o.only != "plans", plans: o.only != "drive"}
	stopWorkers, err := s.start(c)
	if err != nil {
		return err
	}
	defer stopWorkers()
	var queues []string
	if s.drive {
		queues = append(queues, pipelineQueue(o.queue, repo.Root))
		if s.roots != "" {
			queues = append(queues, anywhereQueue(o.queue, s.roots))
		}
	}
	if s.plans {
		queues = append(queues, phasesQueue(o.queue))
	}
	fmt.Fprintf(o.stdout, "hive worker: hive run's %s in %s, task queue %s at %s; ctrl-c stops\n", s.what(), repo.Root, strings.Join(queues, " and "), o.address)
	<-ctx.Done()
	return nil
}

// runService is what serves hive run's runs of the repository in folder
// root in this process: a driver of its runs (pipelineQueue), and a worker
// of the plans of any run's phases (phasesQueue), which reach this clone
// through the run's git remote, or remote when set (its name here), or
// are in a folder this machine shares. out, when set, shows the runs'
// progress (a hive worker's).
type runService struct {
	g            *globalOptions
	agent, queue string
	remote, root string
	// roots are the repository's root commits: its drivers serve the
	// runs of any clone that lost its folder's (anywhereQueue).
	roots        string
	out          io.Writer
	drive, plans bool
	// follows: the process is hive run's, which follows one run.
	follows bool
}

// workflowsOnly says whether s runs only the workflows of queue, not its
// drivers: the repository's queue, in hive run's own process (follows).
func (s runService) workflowsOnly(queue string) bool {
	return s.follows && s.roots != "" && queue == anywhereQueue(s.queue, s.roots)
}

// what says what s serves.
func (s runService) what() string {
	switch {
	case !s.plans:
		return "runs (driven here; their plans' and roles' sessions run on other workers)"
	case !s.drive:
		return "plans and roles' sessions (of runs driven elsewhere)"
	}
	return "runs, their plans and their roles' sessions"
}

// start starts s's workers; stop stops them.
func (s runService) start(c client.Client) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
	}
	if s.drive {
		queues := []string{pipelineQueue(s.queue, s.root), legacyPipelineQueue(s.queue)}
		if s.roots != "" {
			queues = append(queues, anywhereQueue(s.queue, s.roots))
		}
		for _, queue := range queues {
			var opts worker.Options
			if s.workflowsOnly(queue) {
				// hive run's own process: it ends with the run it
				// follows, so it drives no other clone's runs.
				opts.LocalActivityWorkerOnly = true
			}
			drivers := temporal.PipelineWorker(c, queue, &runDriver{g: s.g, agent: s.agent, remote: s.remote, out: s.out, c: c, queue: s.queue}, opts)
			if err := drivers.Start(); err != nil {
				stop()
				return nil, fmt.Errorf("worker: %w", err)
			}
			stops = append(stops, drivers.Stop)
		}
	}
	if s.plans {
		notes := s.out
		if notes == nil {
			notes = io.Discard
		}
		execs := &phaseExecutors{g: s.g, agent: s.agent, remote: s.remote, out: notes}
		plans := temporal.NewPhasesWorkers(c, phasesQueue(s.queue), execs.For, worker.Options{})
		plans.ServeRoles(c, &roleRunner{g: s.g, agent: s.agent, remote: s.remote, out: notes})
		if err := plans.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("worker: %w", err)
		}
		stops = append(stops, plans.Stop, execs.Close)
	}
	return stop, nil
}
