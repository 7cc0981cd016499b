package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/runner/replay"
	"github.com/hivectl/hive/internal/temporalhost"
)

type attachOptions struct {
	*globalOptions
	temporalFlags
	plan string
	raw  bool
	poll time.Duration
}

func newAttachCmd(g *globalOptions) *cobra.Command {
	o := &attachOptions{globalOptions: g, poll: 200 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "attach PLAN-ID",
		Short: "Follow one plan's agent: its latest attempt's output, readably, until the plan is finished",
		Long: `attach follows .hive/logs/PLAN.attempt-N.log of the latest attempt (and the
next one when the agent is replaced), renders its stream-json lines as text,
and exits when the plan is complete, failed or skipped. A plan that waits for
its dependencies in a running phase is followed once it starts. Ctrl+C
detaches; the run goes on.

Exit status: 0 when the plan has finished; 1 when it has not started, or its
run has stopped, and no hive process runs its phase (the line printed says
how to start or resume it); 2 when no phase holds the plan.`,
		Example: `  hive attach 03-01
  hive attach 03-01 --raw`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.plan = args[0]
			return attachRun(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.raw, "raw", false, "print the log lines as written, without rendering them")
	o.temporalFlags.add(cmd, o.globalOptions, "where the plan's run is kept: local (.hive/journal.db) or temporal (the phase's Temporal workflow, its workers sharing this folder)")
	return cmd
}

func attachRun(ctx context.Context, o *attachOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	repo, err := openRepo(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	var loc attachLocator
	switch o.backend {
	case "", "local":
		l := &localLocator{root: repo.Root}
		defer l.close()
		loc = l
	case "temporal":
		c, err := o.dial(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		loc = &temporalLocator{root: repo.Root, c: c, names: temporalhost.NewNames(ctx, repo.Root)}
	default:
		return exit.Errorf(exit.Usage, "--backend %q: want local or temporal", o.backend)
	}
	where, _, err := loc.locate(ctx, o.plan)
	if err != nil {
		return err
	}
	if where.phaseDir == "" {
		return exit.Errorf(exit.Usage, "no phase holds plan %s (`hive plans` lists the plans)", o.plan)
	}
	logs := filepath.Join(repo.Root, ".hive", "logs")
	r := &lines.LogRenderer{W: o.stdout, Raw: o.raw}
	var f *os.File
	var rd *bufio.Reader
	attempt := 0
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	lastCheck := time.Time{}
	toldWaiting := false
	for {
		if where.elsewhere != "" {
			fmt.Fprintf(o.stdout, "%s\n", where.elsewhere)
			return exit.Silent(exit.Failed)
		}
		// Follow the newest attempt: a continuation writes a new file.
		if n := latestAttempt(logs, o.plan); n > attempt && where.state != "" && where.state != phase.Pending {
			if rd != nil {
				r.Drain(rd)
				f.Close()
			}
			if f, err = os.Open(attemptLog(logs, o.plan, n)); err != nil {
				return fmt.Errorf("attach %s: %w", o.plan, err)
			}
			attempt, rd = n, bufio.NewReader(f)
			fmt.Fprintf(o.stdout, "── %s attempt %d (%s)\n", o.plan, n, f.Name())
		}
		if rd != nil {
			r.Follow(rd)
		}
		if time.Since(lastCheck) >= 500*time.Millisecond {
			lastCheck = time.Now()
			var runs string
			if where, runs, err = loc.locate(ctx, o.plan); err != nil {
				return err
			}
			st := where.state
			started := st != "" && st != phase.Pending
			resume, nothing := o.pasteable(repo.Root, "execute-phase", where.phase), "no hive process"
			if o.backend == "temporal" {
				resume, nothing = resume+" --backend temporal", "no Temporal workflow"
			}
			switch {
			case st.Final():
				if latestAttempt(logs, o.plan) == attempt { // nothing newer to show
					if rd != nil {
						r.Drain(rd)
					}
					fmt.Fprintf(o.stdout, "── %s is %s\n", o.plan, st)
					return nil
				}
				continue
			case runs == "" && !started:
				fmt.Fprintf(o.stdout, "Plan %s has not started: no agent has run it yet, and %s runs phase %s. Start it with: %s\n",
					o.plan, nothing, where.phase, resume)
				return exit.Silent(exit.Failed)
			case runs == "":
				if rd != nil {
					r.Drain(rd)
				}
				fmt.Fprintf(o.stdout, "── %s is %s, but its run has stopped: %s runs phase %s. Resume it with: %s\n",
					o.plan, st, nothing, where.phase, resume)
				return exit.Silent(exit.Failed)
			case !started && !toldWaiting && !where.unknown:
				toldWaiting = true
				fmt.Fprintf(o.stdout, "── %s has not started yet: %s runs phase %s and starts it when its dependencies are done; following it then (Ctrl+C to detach)\n",
					o.plan, runs, where.phase)
			}
		}
		select {
		case <-ctx.Done():
			return nil // detached; the run goes on
		case <-time.After(o.poll):
		}
	}
}

// attachLocator says where a plan stands, and what runs its phase now
// ("" when nothing does: the run has stopped or never started).
type attachLocator interface {
	locate(ctx context.Context, plan string) (where attachPlan, runs string, err error)
}

// localLocator reads the local journal, made once a run has begun, and
// the phase's lock.
type localLocator struct {
	root    string
	opened  *journal.SQLite
	phaseOf string // the phase folder of the plan, once known
}

func (l *localLocator) locate(_ context.Context, plan string) (attachPlan, string, error) {
	if l.opened == nil && hasJournal(l.root) { // a run may have begun since
		var err error
		if l.opened, err = openJournal(l.root); err != nil {
			return attachPlan{}, "", err
		}
	}
	var j journal.Journal
	if l.opened != nil {
		j = l.opened
	}
	if l.phaseOf == "" {
		where, err := findAttachPlan(j, l.root, plan)
		if err != nil || where.phaseDir == "" {
			return where, "", err
		}
		l.phaseOf = where.phaseDir
	}
	// The lock first, then the state: a run that ends in between shows as
	// live with its final state, never as stopped short.
	runs := ""
	if pid, live := lock.PhaseHolder(l.root, l.phaseOf); live {
		runs = fmt.Sprintf("hive (pid %d)", pid)
	}
	where, err := findAttachPlan(j, l.root, plan)
	return where, runs, err
}

func (l *localLocator) close() {
	if l.opened != nil {
		l.opened.Close()
	}
}

// temporalLocator reads the state of the phase's Temporal workflow. The
// agent's log is this folder's when the workers share it; a run whose
// workers share work through a git remote keeps it in the worker's clone.
type temporalLocator struct {
	root  string
	c     temporalhost.Client
	names temporalhost.Names
	phase *plan.Phase
	last  *attachPlan // the state read last
}

func (l *temporalLocator) locate(ctx context.Context, planID string) (attachPlan, string, error) {
	if l.phase == nil {
		proj, err := load.Project(l.root)
		if err != nil {
			return attachPlan{}, "", nil // no plans at all: no such plan
		}
		for _, ph := range proj.Phases {
			for _, p := range ph.Plans {
				if p.ID == planID {
					l.phase = ph
				}
			}
		}
		if l.phase == nil {
			return attachPlan{}, "", nil
		}
	}
	where := attachPlan{phase: l.phase.Number, phaseDir: l.phase.Dir}
	r, found, err := l.names.Run(ctx, l.c, l.phase)
	if err != nil || !found {
		return where, "", err
	}
	id, running := r.Workflow, r.Running
	snap, err := temporalhost.PhaseState(ctx, l.c, id, running)
	switch {
	case err != nil && running:
		// A query meets a worker that just died until the server routes
		// it elsewhere: the state read last stands meanwhile.
		if l.last != nil {
			return *l.last, "Temporal workflow " + id, nil
		}
		where.unknown = true
		return where, "Temporal workflow " + id, nil
	case err != nil:
		return where, "", err
	}
	for _, p := range snap.Plans {
		if p.Spec.ID == planID {
			where.state = p.State
		}
	}
	if byRepo, err := l.names.ByRepo(l.phase); err == nil && id == byRepo && id != temporalhost.PhaseRunID(l.root, l.phase) && latestAttempt(filepath.Join(l.root, ".hive", "logs"), planID) == 0 {
		where.elsewhere = fmt.Sprintf("Plan %s is %s in Temporal workflow %s, whose workers share work through a git remote: its agent's log is in the clone of the worker that runs it; hive attach %s --backend temporal there, or follow the run with hive status --watch --backend temporal", planID, orPending(where.state), id, planID)
	}
	l.last = &where
	if !running {
		return where, "", nil
	}
	return where, "Temporal workflow " + id, nil
}

// orPending names a plan state, "pending" for none.
func orPending(s phase.PlanState) string {
	if s == "" {
		return string(phase.Pending)
	}
	return string(s)
}

var attemptRE = regexp.MustCompile(`\.attempt-(\d+)\.log$`)

func attemptLog(dir, planID string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("%s.attempt-%d.log", planID, n))
}

// latestAttempt is the highest N of dir/PLAN.attempt-N.log; 0 for none.
func latestAttempt(dir, planID string) int {
	paths, _ := filepath.Glob(filepath.Join(dir, planID+".attempt-*.log"))
	best := 0
	for _, p := range paths {
		if m := attemptRE.FindStringSubmatch(p); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > best {
				best = n
			}
		}
	}
	return best
}

// attachPlan is where a plan stands for attach: its phase, and its state
// in the newest run that holds it.
type attachPlan struct {
	phase    string          // the phase number, "01"
	phaseDir string          // the phase folder, the key of its runs and its lock; "" for no such plan
	state    phase.PlanState // "" when no run holds the plan
	// elsewhere says where the agent's log is when it is not in this
	// folder (a worker's clone).
	elsewhere string
	// unknown: the run's state could not be read just now.
	unknown bool
}

// findAttachPlan looks the plan up in the newest run that holds it (j may
// be nil: no run yet), else in the plan files.
func findAttachPlan(j journal.Journal, root, planID string) (attachPlan, error) {
	if j != nil {
		runs, err := j.Runs()
		if err != nil {
			return attachPlan{}, err
		}
		for _, run := range runs {
			eng, err := replay.Run(j, run)
			if err != nil {
				return attachPlan{}, err
			}
			snap := eng.Snapshot()
			for _, p := range snap.Plans {
				if p.Spec.ID == planID {
					return attachPlan{phase: snap.Phase, phaseDir: run.Phase, state: p.State}, nil
				}
			}
		}
	}
	proj, err := load.Project(root)
	if err != nil {
		return attachPlan{}, nil // no plans at all: no such plan
	}
	for _, ph := range proj.Phases {
		for _, p := range ph.Plans {
			if p.ID == planID {
				return attachPlan{phase: ph.Number, phaseDir: ph.Dir}, nil
			}
		}
	}
	return attachPlan{}, nil
}
