package cli

// The Temporal backend of execute-phase, answer and status, and the
// flags they and hive worker share: a phase's run kept as a Temporal
// workflow (internal/temporal) whose work hive worker processes carry out.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/work"
)

// temporalFlags say where a run is kept and, for the Temporal backend,
// where its server is. A flag left out takes the project's config
// (backend.kind, backend.temporal.*), then the default.
type temporalFlags struct {
	backend   string
	address   string
	namespace string
	queue     string
	remote    string // --git-remote (execute-phase and worker)
}

func (f *temporalFlags) add(cmd *cobra.Command, g *globalOptions, backendHelp string) {
	cmd.Flags().StringVar(&f.backend, "backend", "", backendHelp+" (default: backend.kind in config, else local)")
	cmd.Flags().StringVar(&f.address, "temporal-address", "", "the Temporal server's host:port (default: backend.temporal.address in config, else 127.0.0.1:7233)")
	cmd.Flags().StringVar(&f.namespace, "temporal-namespace", "", "the Temporal namespace (default: backend.temporal.namespace in config, else default)")
	cmd.Flags().StringVar(&f.queue, "task-queue", "", "the Temporal task queue the run's workers poll (default: backend.temporal.task_queue in config, else hive)")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return f.settle(cmd.Context(), g) }
}

// addRemote adds --git-remote, for the commands that carry out a run's work.
func (f *temporalFlags) addRemote(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.remote, "git-remote", "", "backend temporal: the git remote (a name such as origin, or a URL) through which workers in clones of their own share work, a worktree per plan; without it every worker works in this repository's folder (default: backend.temporal.remote in config)")
}

// settle fills what the flags left out from the project's config. Outside a
// repository the defaults hold (the command says what is wrong there).
func (f *temporalFlags) settle(ctx context.Context, g *globalOptions) error {
	b := config.Backend{}
	if repo, err := gitx.Open(ctx, g.repo); err == nil {
		cfg, err := config.Load(repo.Root)
		if err != nil {
			return exitf(ExitUsage, "%v", err)
		}
		b = cfg.Backend
	}
	b = b.WithDefaults()
	for _, v := range []struct {
		flag *string
		cfg  string
	}{
		{&f.backend, b.Kind}, {&f.address, b.Temporal.Address}, {&f.namespace, b.Temporal.Namespace}, {&f.queue, b.Temporal.TaskQueue}, {&f.remote, b.Temporal.Remote},
	} {
		if *v.flag == "" {
			*v.flag = v.cfg
		}
	}
	return nil
}

// dial connects to the Temporal server, its SDK's logging kept to errors
// (a session stopped after PLAN COMPLETE, say, is a warning to it).
func (f *temporalFlags) dial(ctx context.Context) (client.Client, error) {
	c, err := client.DialContext(ctx, client.Options{HostPort: f.address, Namespace: f.namespace,
		Logger: log.NewStructuredLogger(slog.New(quietStops{slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})}))})
	if err != nil {
		return nil, exitf(ExitUsage, "cannot reach the Temporal server at %s (namespace %s): %v\nstart one (`temporal server start-dev`), or name yours with --temporal-address or backend.temporal.address in .hive/config.json", f.address, f.namespace, err)
	}
	return c, nil
}

// quietStops drops the SDK's report of an activity that ended because its
// worker was stopped (ctrl-c): hive says so itself, and the run goes on.
type quietStops struct{ slog.Handler }

func (q quietStops) Handle(ctx context.Context, r slog.Record) error {
	// Its answer to the server about that activity, which the stop also
	// cancelled, is the same news.
	if r.Message == "Activity task postprocess error: "+context.Canceled.Error() {
		return nil
	}
	if r.Message == "Activity error." {
		canceled := false
		r.Attrs(func(a slog.Attr) bool {
			canceled = a.Key == "Error" && a.Value.String() == context.Canceled.Error()
			return !canceled
		})
		if canceled {
			return nil
		}
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietStops) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietStops{q.Handler.WithAttrs(attrs)}
}

func (q quietStops) WithGroup(name string) slog.Handler { return quietStops{q.Handler.WithGroup(name)} }

// temporalDispatch is how a run's workflow hands out its work: heartbeats
// a tenth of the stall timeout (at least ten seconds), sessions of a day
// at most.
func temporalDispatch(queue string, stall time.Duration) *temporal.Dispatch {
	if stall <= 0 {
		stall = 5 * time.Minute
	}
	return &temporal.Dispatch{TaskQueue: queue, Heartbeat: max(stall/10, 10*time.Second), Session: 24 * time.Hour, Command: 10 * time.Minute}
}

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

// statusTemporal prints the Temporal run of each phase of the repository
// that has one, as status prints local runs.
func statusTemporal(ctx context.Context, o *statusOptions) error {
	// hive run's newest run is in the journal with either backend; its
	// workflow, while one drives it, is on the server.
	pipe, err := pipelineStatus(o)
	if err != nil {
		return err
	}
	phases, err := loadPhases(o.root, "")
	if err != nil && pipe == nil {
		return err // a project of hive run alone may have no .planning
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var views []statusRunView
	names := newRunNames(ctx, o.root)
	for _, ph := range phases {
		id, desc, found, err := names.find(ctx, c, ph)
		if err != nil {
			return err
		}
		if !found {
			continue // no run of this phase on the server
		}
		info := desc.GetWorkflowExecutionInfo()
		snap, err := temporalSnapshot(ctx, c, id, workflowRunning(desc))
		if err != nil {
			return fmt.Errorf("phase %s: %w", ph.Number, err)
		}
		v := phaseView(snap, 0, ph.Dir, info.GetStartTime().AsTime(), snap.Outcome)
		v.Workflow = id
		if workflowRunning(desc) {
			v.Live = true
		} else {
			closed := info.GetCloseTime().AsTime()
			v.Finished = &closed
		}
		v.Elapsed = activeTime(snap, v.Live, time.Now()).Round(time.Second).String()
		views = append(views, v)
	}
	if pipe != nil {
		id := pipelineWorkflowID(o.root)
		if d, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil && workflowRunning(d) && pipe.Finished == nil {
			pipe.Temporal, pipe.Live, pipe.Resume = id, true, ""
		}
		return printPipelineStatus(o, views, pipe)
	}
	if len(views) == 0 {
		return noRuns(o)
	}
	if o.json {
		return printJSON(o.stdout, views)
	}
	printPhaseViews(o, views)
	return nil
}

// temporalPhases are the project's phases, and a client of the server
// their runs are kept on.
func temporalPhases(ctx context.Context, o *statusOptions) ([]*plan.Phase, client.Client, error) {
	phases, err := loadPhases(o.root, "")
	if err != nil {
		return nil, nil, err
	}
	c, err := o.dial(ctx)
	return phases, c, err
}

// temporalSnapshot is the state of workflow id: a running one answers a
// query (a worker replays it), a closed one's result holds it, with no
// worker needed.
func temporalSnapshot(ctx context.Context, c client.Client, id string, running bool) (engine.Snapshot, error) {
	run := c.GetWorkflow(ctx, id, "")
	if running {
		snap, err := temporalState(ctx, c, run)
		if err != nil {
			return snap, fmt.Errorf("%w (is a hive worker of the run up?)", err)
		}
		return snap, nil
	}
	var res temporal.RunResult
	if err := temporal.Result(ctx, run, &res); err != nil {
		return engine.Snapshot{}, fmt.Errorf("the run's workflow ended without a state: %w", err)
	}
	final, err := engine.Restore(*res.State)
	if err != nil {
		return engine.Snapshot{}, err
	}
	return final.Snapshot(), nil
}

// donePlans counts the plans of spec already complete on disk.
func donePlans(spec engine.RunSpec) int {
	n := 0
	for _, p := range spec.Plans {
		if p.Done {
			n++
		}
	}
	return n
}

var errInterruptedTemporal = errors.New("interrupted: the run goes on on the server and its workers; the same command attaches to it")
