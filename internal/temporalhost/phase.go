package temporalhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/workspace"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// Phase is a run of a phase on Temporal, as execute-phase asks for it.
type Phase struct {
	// Client is the server's; Queue the task queue of the phase's
	// workers, Remote the git remote they share work through ("": the
	// folder).
	Client        client.Client
	Queue, Remote string
	// Opts are the phase's (runconfig.TemporalPhase), for this process's
	// worker and the delivery.
	Opts runner.Options
	// Stall is the config's stall timeout, of which the heartbeats are a
	// tenth; OnLimit what the workflow does at a usage limit.
	Stall   time.Duration
	OnLimit work.OnLimit
	// LocalWorker makes this process one of the run's workers; Yes takes
	// the defaults of questions; Rerun runs a complete phase again.
	LocalWorker, Yes, Rerun bool
	// Out is where the run's progress is printed.
	Out io.Writer
}

// ExecutePhase runs (or resumes) the phase's run on the Temporal server:
// the workflow is the engine, workers carry out its work; one worker runs
// in this process with LocalWorker. It prints what the run does and ends
// when the run does. The workflow id names the phase and the
// repository (its folder, or with a git remote the repository itself), so
// the same command attaches to a run under way.
func ExecutePhase(ctx context.Context, p Phase) error {
	c, opts := p.Client, p.Opts
	repo, ph := opts.Repo, opts.Phase
	// A run under way is attached to, whichever id it has; a new one is
	// named by the repository when clones share its work.
	names := NewNames(ctx, repo.Root)
	id, desc, found, err := names.Find(ctx, c, ph)
	if err != nil {
		return err
	}
	if !found || !WorkflowRunning(desc) {
		id = PhaseRunID(repo.Root, ph)
		if p.Remote != "" {
			if id, err = names.ByRepo(ph); err != nil {
				return err
			}
		}
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: p.Queue, WorkflowExecutionErrorWhenAlreadyStarted: true},
		temporal.RunWorkflowName, temporal.RunInput{Dispatch: temporal.DispatchFor(p.Queue, p.Stall)})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	attached := errors.As(err, &started)
	if attached {
		run = c.GetWorkflow(ctx, id, "")
	} else if err != nil {
		return fmt.Errorf("start the run's workflow %s: %w", id, err)
	}
	if p.LocalWorker {
		runs, err := runner.NewWorker(opts)
		if err != nil {
			return exit.With(exit.Usage, err)
		}
		defer runs.Close()
		w := temporal.NewWorkers(c, p.Queue, runs, worker.Options{})
		if err := w.Start(); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		defer w.Stop()
	}
	if attached {
		fmt.Fprintf(p.Out, "hive: attached to the run of phase %s under way (Temporal workflow %s)\n", ph.Number, id)
	} else {
		spec, err := runner.PhaseSpec(ctx, opts)
		if err != nil {
			c.TerminateWorkflow(ctx, id, run.GetRunID(), "hive could not read the phase: "+err.Error())
			return err
		}
		if done := spec.DonePlans(); done == len(spec.Plans) && !p.Rerun {
			c.TerminateWorkflow(ctx, id, run.GetRunID(), "nothing to do")
			if p.Remote != "" {
				workspace.DeliverRemote(ctx, opts.Repo, opts.Phase, opts.Git, phase.Snapshot{}) // takes back the integration branch just pushed
			}
			fmt.Fprintf(p.Out, "phase %s is complete (%d of %d plans have their SUMMARY): nothing to do; add --rerun to run it again\n", ph.Number, done, len(spec.Plans))
			return nil
		}
		spec.AutoAnswer, spec.OnLimit = p.Yes, p.OnLimit
		ev := phase.Event{Type: phase.EvRunStarted, Time: time.Now().UTC(), Spec: &spec, Version: phase.Version, Attended: true}
		if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.EventSignal, ev); err != nil {
			return fmt.Errorf("start the run: %w", err)
		}
		fmt.Fprintf(p.Out, "hive: phase %s runs as Temporal workflow %s (task queue %s)\n", ph.Number, id, p.Queue)
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
				return exit.With(exit.Interrupted, ErrInterrupted)
			}
			if err != nil {
				return fmt.Errorf("the run's workflow: %w", err)
			}
			seen = printAnswers(p.Out, res.Answers, seen)
			final, err := engine.Restore(*res.State)
			if err != nil {
				return err
			}
			s := final.Snapshot()
			var notes []string
			if p.Remote != "" {
				notes = workspace.DeliverRemote(ctx, opts.Repo, opts.Phase, opts.Git, s)
			} else {
				notes = workspace.DeliverShared(ctx, opts.Repo, opts.Phase, s)
			}
			for _, n := range notes {
				fmt.Fprintf(p.Out, "hive: %s\n", n)
			}
			if v := s.Verification; v != nil {
				// As a local run's log ends: the verification's status,
				// and what it found when it did not pass.
				fmt.Fprintf(p.Out, "hive: phase verification: %s\n", v.Status)
				if v.Details != "" && v.Status != phase.VerifyPassed {
					fmt.Fprintln(p.Out, indent(v.Details))
				}
			}
			fmt.Fprintf(p.Out, "hive: run %s: %d of %d plans complete\n", s.Outcome, s.Count(phase.Complete), len(s.Plans))
			if s.Outcome != phase.OutcomeComplete {
				return exit.With(exit.Failed, fmt.Errorf("the run ended %s", s.Outcome))
			}
			return nil
		case <-ctx.Done():
			return exit.With(exit.Interrupted, ErrInterrupted)
		case <-tick.C:
			v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.AnswersQuery, seen)
			if err != nil {
				continue // the workflow may be between runs (continue-as-new) or ending
			}
			var answers []temporal.Answer
			if v.Get(&answers) == nil {
				seen = printAnswers(p.Out, answers, seen)
			}
		}
	}
}

// printAnswers prints the commands of the answers after seq worth a line,
// and returns the last seq printed.
func printAnswers(w io.Writer, answers []temporal.Answer, seq int) int {
	for _, a := range answers {
		if a.Seq <= seq {
			continue
		}
		seq = a.Seq
		for _, c := range a.Commands {
			switch c.Type {
			case phase.CmdPlanState:
				line := fmt.Sprintf("%s %s", c.Plan, c.State)
				if c.Reason != "" {
					line += ": " + c.Reason
				}
				fmt.Fprintln(w, line)
			case phase.CmdCheckpointOpened:
				fmt.Fprintf(w, "%s waits for a human (%s): %s\n  answer with: hive answer %s <response> --backend temporal\n", c.Plan, c.Checkpoint.Type, clipped(words.OneLine(c.Checkpoint.Details), 200), c.Plan)
			case phase.CmdNote:
				fmt.Fprintf(w, "%s %s\n", c.Plan, c.Text)
			}
		}
	}
	return seq
}

// ErrInterrupted ends a command that stopped following a phase's run,
// which goes on.
var ErrInterrupted = errors.New("interrupted: the run goes on on the server and its workers; the same command attaches to it")

// AnswerPhase answers plan's open checkpoint in the run of phase ph on
// the Temporal server: a signal the workflow steps like any answer. The
// answer is masked with red, as the journal masks it (the workflow's
// history is a journal); the checkpoint answered and the text sent are
// returned.
func AnswerPhase(ctx context.Context, c client.Client, root string, ph *plan.Phase, planID, text string, red *redact.Redactor) (phase.Checkpoint, string, error) {
	id, _, found, err := NewNames(ctx, root).Find(ctx, c, ph)
	if err != nil {
		return phase.Checkpoint{}, "", err
	}
	if !found {
		return phase.Checkpoint{}, "", exit.Errorf(exit.Usage, "no run of phase %s on the Temporal server", ph.Number)
	}
	snap, err := temporal.State(ctx, c, c.GetWorkflow(ctx, id, ""))
	if err != nil {
		return phase.Checkpoint{}, "", exit.Errorf(exit.Usage, "no run of phase %s on the Temporal server (%v)", ph.Number, err)
	}
	open := OpenCheckpoint(snap, planID)
	if open == nil {
		return phase.Checkpoint{}, "", exit.Errorf(exit.Usage, "plan %s has no open checkpoint in the run of phase %s", planID, ph.Number)
	}
	text = red.String(text)
	ev := phase.Event{Type: phase.EvAnswer, Plan: planID, Text: text, By: "hive answer", CheckpointID: open.ID, Time: time.Now().UTC()}
	if err := c.SignalWorkflow(ctx, id, "", temporal.EventSignal, ev); err != nil {
		return *open, text, fmt.Errorf("send the answer: %w", err)
	}
	return *open, text, nil
}

// indent indents every line of s by four spaces.
func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
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

// PhaseState is the state of workflow id: a running one answers a
// query (a worker replays it), a closed one's result holds it, with no
// worker needed.
func PhaseState(ctx context.Context, c client.Client, id string, running bool) (phase.Snapshot, error) {
	run := c.GetWorkflow(ctx, id, "")
	if running {
		snap, err := temporal.State(ctx, c, run)
		if err != nil {
			return snap, fmt.Errorf("%w (is a hive worker of the run up?)", err)
		}
		return snap, nil
	}
	var res temporal.RunResult
	if err := temporal.Result(ctx, run, &res); err != nil {
		return phase.Snapshot{}, fmt.Errorf("the run's workflow ended without a state: %w", err)
	}
	final, err := engine.Restore(*res.State)
	if err != nil {
		return phase.Snapshot{}, err
	}
	return final.Snapshot(), nil
}

// Poll is workflow id's state now, and whether it still runs.
func Poll(ctx context.Context, c client.Client, id string) (phase.Snapshot, bool, error) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return phase.Snapshot{}, false, fmt.Errorf("the run's workflow %s: %w", id, err)
	}
	running := WorkflowRunning(desc)
	snap, err := PhaseState(ctx, c, id, running)
	return snap, running, err
}
