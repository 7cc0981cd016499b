package cli

// The Temporal backend of execute-phase and of answering its checkpoints:
// a phase's run kept as a Temporal workflow (internal/temporal) whose work
// hive worker processes carry out. hive status's view of it is
// status_temporal.go; the flags every Temporal command shares are
// temporal_flags.go.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/work"
)

// executeTemporal runs (or resumes) the phase's run on the Temporal server:
// the workflow is the engine, workers carry out its work; one worker runs
// in this process unless --local-worker=false. It prints what the run does
// and ends when the run does. The workflow id names the phase and the
// repository (its folder, or with a git remote the repository itself), so
// the same command attaches to a run under way.
func executeTemporal(ctx context.Context, o *executeOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	tw, err := temporalWork(ctx, o.globalOptions, o.phase, o.agent, o.remote)
	if err != nil {
		return err
	}
	repo, cfg, ph, opts := tw.opts.Repo, tw.cfg, tw.phase, tw.opts
	opts.Git.AllowDirty = o.allowDirty
	// The workflow waits on a timer at a usage limit, or falls back; stop
	// is this process's own to carry out, and a workflow has none.
	onLimit, _, err := o.onLimit.policy(cfg)
	if err != nil {
		return err
	}
	if onLimit == work.OnLimitStop {
		fmt.Fprintln(o.stderr, "hive: on-limit stop does not apply on Temporal: at a usage limit the workflow waits on a timer, holding no process")
		onLimit = work.OnLimitWait
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	// A run under way is attached to, whichever id it has; a new one is
	// named by the repository when clones share its work.
	names := newRunNames(ctx, repo.Root)
	id, desc, found, err := names.find(ctx, c, ph)
	if err != nil {
		return err
	}
	if !found || !workflowRunning(desc) {
		id = temporalRunID(repo.Root, ph)
		if o.remote != "" {
			if id, err = names.byRepo(ph); err != nil {
				return err
			}
		}
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: o.queue, WorkflowExecutionErrorWhenAlreadyStarted: true},
		temporal.RunWorkflowName, temporal.RunInput{Dispatch: temporalDispatch(o.queue, cfg.Timeouts.Stall)})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	attached := errors.As(err, &started)
	if attached {
		run = c.GetWorkflow(ctx, id, "")
	} else if err != nil {
		return fmt.Errorf("start the run's workflow %s: %w", id, err)
	}
	if o.localWorker {
		runs, err := runner.NewWorker(opts)
		if err != nil {
			return exitf(ExitUsage, "%v", err)
		}
		defer runs.Close()
		w := temporal.NewWorkers(c, o.queue, runs, worker.Options{})
		if err := w.Start(); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		defer w.Stop()
	}
	if attached {
		fmt.Fprintf(o.stdout, "hive: attached to the run of phase %s under way (Temporal workflow %s)\n", ph.Number, id)
	} else {
		spec, err := runner.PhaseSpec(ctx, opts)
		if err != nil {
			c.TerminateWorkflow(ctx, id, run.GetRunID(), "hive could not read the phase: "+err.Error())
			return err
		}
		if done := donePlans(spec); done == len(spec.Plans) && !o.rerun {
			c.TerminateWorkflow(ctx, id, run.GetRunID(), "nothing to do")
			if o.remote != "" {
				runner.DeliverRemote(ctx, opts, engine.Snapshot{}) // takes back the integration branch just pushed
			}
			fmt.Fprintf(o.stdout, "phase %s is complete (%d of %d plans have their SUMMARY): nothing to do; add --rerun to run it again\n", ph.Number, done, len(spec.Plans))
			return nil
		}
		spec.AutoAnswer, spec.OnLimit = o.yes, onLimit
		ev := engine.Event{Type: engine.EvRunStarted, Time: time.Now().UTC(), Spec: &spec, Version: engine.Version, Attended: true}
		if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.EventSignal, ev); err != nil {
			return fmt.Errorf("start the run: %w", err)
		}
		fmt.Fprintf(o.stdout, "hive: phase %s runs as Temporal workflow %s (task queue %s)\n", ph.Number, id, o.queue)
	}
	done := make(chan error, 1)
	var res temporal.RunResult
	go func() { done <- temporal.Result(ctx, run, &res) }()
	seen := 0
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil && ctx.Err() != nil {
				return &exitError{code: ExitInterrupted, err: errInterruptedTemporal}
			}
			if err != nil {
				return fmt.Errorf("the run's workflow: %w", err)
			}
			seen = printAnswers(o, ph, res.Answers, seen)
			final, err := engine.Restore(*res.State)
			if err != nil {
				return err
			}
			s := final.Snapshot()
			deliver := runner.DeliverShared
			if o.remote != "" {
				deliver = runner.DeliverRemote
			}
			for _, n := range deliver(ctx, opts, s) {
				fmt.Fprintf(o.stdout, "hive: %s\n", n)
			}
			if v := s.Verification; v != nil {
				// As a local run's log ends: the verification's status,
				// and what it found when it did not pass.
				fmt.Fprintf(o.stdout, "hive: phase verification: %s\n", v.Status)
				if v.Details != "" && v.Status != engine.VerifyPassed {
					fmt.Fprintln(o.stdout, indent(v.Details))
				}
			}
			fmt.Fprintf(o.stdout, "hive: run %s: %d of %d plans complete\n", s.Outcome, s.Count(engine.Complete), len(s.Plans))
			if s.Outcome != engine.OutcomeComplete {
				return &exitError{code: ExitFailed, err: fmt.Errorf("the run ended %s", s.Outcome)}
			}
			return nil
		case <-ctx.Done():
			return &exitError{code: ExitInterrupted, err: errInterruptedTemporal}
		case <-tick.C:
			v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.AnswersQuery, seen)
			if err != nil {
				continue // the workflow may be between runs (continue-as-new) or ending
			}
			var answers []temporal.Answer
			if v.Get(&answers) == nil {
				seen = printAnswers(o, ph, answers, seen)
			}
		}
	}
}

// printAnswers prints the commands of the answers after seq worth a line,
// and returns the last seq printed.
func printAnswers(o *executeOptions, ph *plan.Phase, answers []temporal.Answer, seq int) int {
	for _, a := range answers {
		if a.Seq <= seq {
			continue
		}
		seq = a.Seq
		for _, c := range a.Commands {
			switch c.Type {
			case engine.CmdPlanState:
				line := fmt.Sprintf("%s %s", c.Plan, c.State)
				if c.Reason != "" {
					line += ": " + c.Reason
				}
				fmt.Fprintln(o.stdout, line)
			case engine.CmdCheckpointOpened:
				fmt.Fprintf(o.stdout, "%s waits for a human (%s): %s\n  answer with: hive answer %s <response> --backend temporal\n", c.Plan, c.Checkpoint.Type, clipped(oneLine(c.Checkpoint.Details), 200), c.Plan)
			case engine.CmdNote:
				fmt.Fprintf(o.stdout, "%s %s\n", c.Plan, c.Text)
			}
		}
	}
	return seq
}

// temporalState queries the run's engine state.
func temporalState(ctx context.Context, c client.Client, run client.WorkflowRun) (engine.Snapshot, error) {
	var snap engine.Snapshot
	v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.StateQuery)
	if err == nil {
		err = v.Get(&snap)
	}
	if err != nil {
		return snap, fmt.Errorf("ask the run's workflow for its state: %w", err)
	}
	return snap, nil
}

// temporalRunID names the Temporal workflow of a phase of the repository
// in folder root: the id of a run whose workers share that folder.
func temporalRunID(root string, ph *plan.Phase) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("hive-%s-%x", filepath.Base(ph.Dir), sum[:4])
}

// runNames names the workflows of a repository's phase runs: by its
// folder (temporalRunID), or, for a run whose workers share work through a
// git remote, by the repository itself, its root commits, which every
// clone shares, so that hive answer, status and serve find that run from
// any clone, not only from the folder that started it.
type runNames struct {
	root  string
	roots string // the root commits, sorted; "" when git could not tell
	err   error
}

// newRunNames reads the repository's root commits once.
func newRunNames(ctx context.Context, root string) runNames {
	n := runNames{root: root}
	repo, err := gitx.Open(ctx, root)
	if err == nil {
		var out string
		if out, err = repo.Git(ctx, "rev-list", "--max-parents=0", "HEAD"); err == nil {
			roots := strings.Fields(out)
			slices.Sort(roots)
			n.roots = strings.Join(roots, " ")
		}
	}
	if err != nil {
		n.err = fmt.Errorf("the repository's first commit: %w", err)
	}
	return n
}

// byRepo is the id of the phase's run named by the repository.
func (n runNames) byRepo(ph *plan.Phase) (string, error) {
	if n.err != nil {
		return "", n.err
	}
	sum := sha256.Sum256([]byte("repo:" + n.roots))
	return fmt.Sprintf("hive-%s-%x", filepath.Base(ph.Dir), sum[:4]), nil
}

// find is the workflow of the phase's run on the server, by either id:
// the one that runs, else the one started last. found is false when the
// server has neither; err is set when it could not be asked.
func (n runNames) find(ctx context.Context, c client.Client, ph *plan.Phase) (id string, desc *workflowservice.DescribeWorkflowExecutionResponse, found bool, err error) {
	ids := []string{temporalRunID(n.root, ph)}
	if byRepo, err := n.byRepo(ph); err == nil {
		ids = append(ids, byRepo)
	}
	for _, candidate := range ids {
		d, err := c.DescribeWorkflowExecution(ctx, candidate, "")
		var missing *serviceerror.NotFound
		switch {
		case errors.As(err, &missing):
			continue
		case err != nil:
			return "", nil, false, fmt.Errorf("the workflow %s: %w", candidate, err)
		}
		later := d.GetWorkflowExecutionInfo().GetStartTime().AsTime().After(desc.GetWorkflowExecutionInfo().GetStartTime().AsTime())
		if !found || workflowRunning(d) || (!workflowRunning(desc) && later) {
			id, desc, found = candidate, d, true
		}
	}
	return id, desc, found, nil
}

// workflowRunning says whether the described workflow still runs.
func workflowRunning(d *workflowservice.DescribeWorkflowExecutionResponse) bool {
	return d.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

var errInterruptedTemporal = errors.New("interrupted: the run goes on on the server and its workers; the same command attaches to it")

// answerTemporal answers a plan's open checkpoint in the phase's Temporal
// run: a signal the workflow steps like any answer.
func answerTemporal(ctx context.Context, o *answerOptions, root string) error {
	number, _, _ := strings.Cut(o.plan, "-")
	ph, err := onePhase(o.stderr, root, number)
	if err != nil {
		return err
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	id, _, found, err := newRunNames(ctx, root).find(ctx, c, ph)
	if err != nil {
		return err
	}
	if !found {
		return exitf(ExitUsage, "no run of phase %s on the Temporal server at %s", ph.Number, o.address)
	}
	run := c.GetWorkflow(ctx, id, "")
	snap, err := temporalState(ctx, c, run)
	if err != nil {
		return exitf(ExitUsage, "no run of phase %s on the Temporal server (%v)", ph.Number, err)
	}
	open := openCheckpoint(snap, o.plan)
	if open == nil {
		return exitf(ExitUsage, "plan %s has no open checkpoint in the run of phase %s", o.plan, ph.Number)
	}
	// The workflow's history is a journal: a secret typed into the answer
	// is masked there as in .hive/journal.db.
	cfg, err := config.Load(root)
	if err != nil {
		return exitf(ExitUsage, "%v", err)
	}
	text := secretsOf(cfg).red.String(o.text)
	ev := engine.Event{Type: engine.EvAnswer, Plan: o.plan, Text: text, By: "hive answer", CheckpointID: open.ID, Time: time.Now().UTC()}
	if err := c.SignalWorkflow(ctx, id, "", temporal.EventSignal, ev); err != nil {
		return fmt.Errorf("send the answer: %w", err)
	}
	if o.json {
		return printJSON(o.stdout, answerResult{Plan: o.plan, Checkpoint: open.ID, Title: titleOf(*open), Answer: text})
	}
	fmt.Fprintf(o.stdout, "Answer to checkpoint #%d of plan %s (%s) sent to the run's workflow: %q.\n", open.ID, o.plan, titleOf(*open), text)
	return nil
}

// clipped is s cut to n bytes at most, on a rune boundary, with an ellipsis.
func clipped(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
