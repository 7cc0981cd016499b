package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/runner/check"
	"github.com/hivectl/hive/internal/runner/planning"
	"github.com/hivectl/hive/internal/runner/replay"
)

// begin resumes the phase's unfinished run or starts a new one.
func (r *runner) begin(ctx context.Context) (Result, error) {
	key := r.o.Phase.Dir
	last, ok, err := r.o.Journal.LatestRun(key)
	if err != nil {
		return Result{}, err
	}
	if ok && last.Finished.IsZero() {
		res, resumed, err := r.resume(last)
		if err != nil || resumed {
			return res, err
		}
	}
	var prev *journal.Run
	if ok {
		prev = &last
	}
	spec, err := r.spec(ctx, prev)
	if err != nil {
		return Result{}, err
	}
	if allDone(spec) && !r.o.Schedule.Rerun {
		// A finished phase is nothing to do: no run, no commit, no change
		// to the planning files.
		return Result{NothingToDo: true}, r.work.DropIntegration(ctx)
	}
	run, err := r.o.Journal.CreateRun(key, r.o.Now())
	if err != nil {
		return Result{}, err
	}
	r.run = run
	r.events.Attach(run.ID, 0)
	r.events.Post(phase.Event{Type: phase.EvRunStarted, Spec: &spec, Version: phase.Version, Attended: r.o.Human.Interactive, Wait: r.o.Human.Wait})
	return Result{Run: run}, nil
}

// allDone reports whether every plan of the spec was complete on disk.
func allDone(spec phase.RunSpec) bool {
	for _, p := range spec.Plans {
		if !p.Done {
			return false
		}
	}
	return len(spec.Plans) > 0
}

// resume takes over the unfinished run last, or closes it when there is
// nothing to take over: a run that never started or one the caller asked to
// abandon. A run that had in fact finished is taken over only to be closed.
// resumed reports whether the run was taken over.
func (r *runner) resume(last journal.Run) (res Result, resumed bool, err error) {
	eng, err := replay.Run(r.o.Journal, last)
	if errors.As(err, new(*phase.NewerError)) && r.o.Schedule.Fresh {
		r.o.Observer.Note("", fmt.Sprintf("run %d abandoned: --fresh (a newer hive journaled it); starting a new run", last.ID))
		return Result{}, false, r.o.Journal.FinishRun(last.ID, r.o.Now(), "abandoned")
	}
	if err != nil {
		return Result{}, false, err
	}
	snap := eng.Snapshot()
	switch {
	case !snap.Started || r.o.Schedule.Fresh:
		why := "abandoned: it never started"
		if snap.Started {
			why = "abandoned: --fresh"
		}
		r.o.Observer.Note("", fmt.Sprintf("run %d %s; starting a new run", last.ID, why))
		return Result{}, false, r.o.Journal.FinishRun(last.ID, r.o.Now(), "abandoned")
	case snap.Finished:
		// The run ended while no hive ran it (an answer given with `hive
		// answer` settled its last checkpoint), or hive stopped after the
		// last event but before it recorded the end: record the end and do
		// what ends a run (merge the work into the user's branch, clean up).
		r.eng, r.run, r.finished = eng, last, true
		r.events.Attach(last.ID, last.Events)
		r.work.Scope = map[string]string{}
		for _, p := range snap.Plans {
			r.work.Scope[p.Spec.ID] = p.Spec.Since
		}
		r.o.Observer.Resumed(last, snap)
		return Result{Run: last, Resumed: true}, true, nil // Run delivers the work, then records the end
	}
	var gone, added []string
	for _, p := range snap.Plans {
		if r.plans[p.Spec.ID] == nil && !p.State.Final() {
			gone = append(gone, p.Spec.ID)
		}
	}
	inRun := map[string]bool{}
	for _, p := range snap.Plans {
		inRun[p.Spec.ID] = true
	}
	for _, p := range r.o.Phase.Plans {
		if !inRun[p.ID] {
			added = append(added, p.ID)
		}
	}
	if len(gone) > 0 {
		return Result{}, false, fmt.Errorf("run %d of %s needs plan(s) %s, which are no longer in the folder: restore them, or start a new run with --fresh",
			last.ID, r.o.Phase.Dir, strings.Join(gone, ", "))
	}
	if len(added) > 0 {
		r.o.Observer.Note("", fmt.Sprintf("plan(s) %s were added after run %d started and are not part of it; run again with --fresh to include them",
			strings.Join(added, ", "), last.ID))
	}
	// The .pending-checkpoint files are views: make them match the replayed
	// state (an answer given while hive was down closed its checkpoint).
	for _, p := range snap.Plans {
		if p.State != phase.Waiting {
			planning.RemovePending(r.o.Repo.Root, r.o.Phase, p.Spec.ID)
		}
	}
	r.eng, r.run = eng, last
	r.events.Attach(last.ID, last.Events)
	r.work.Scope = map[string]string{}
	for _, p := range snap.Plans {
		r.work.Scope[p.Spec.ID] = p.Spec.Since
	}
	r.o.Observer.Resumed(last, snap)
	if r.o.Human.Raised {
		// The human's raise answers the budget checkpoint the run waits
		// at, journaled as the run's own, before it goes on.
		if ev, ok := phase.Raise(snap, r.o.Agents.Budget, r.o.Now()); ok {
			r.events.Post(ev)
		}
	}
	r.events.Post(phase.Event{Type: phase.EvResumed, Version: phase.Version, Attended: r.o.Human.Interactive, Wait: r.o.Human.Wait})
	return Result{Run: last, Resumed: true}, true, nil
}

// spec builds the engine's view of the phase. A plan whose SUMMARY already
// passes the spot-checks is done and will not run again. Dependencies on
// plans of other phases are checked here, once: such a plan must be
// complete on disk, since phases run in order. Each plan's work is scoped
// to commits made after the run's base (see phase.PlanSpec.Since); prev,
// the phase's previous run, lends its scope to the plans it left unfinished
// whose files are unchanged, so their committed tasks are not done again.
func (r *runner) spec(ctx context.Context, prev *journal.Run) (phase.RunSpec, error) {
	if r.o.Git.Worktrees && r.o.Git.Remote == "" { // a remote's workers open their own
		if err := r.work.OpenWorktrees(ctx); err != nil {
			return phase.RunSpec{}, err
		}
	}
	base, err := r.work.Base(ctx)
	if err != nil {
		return phase.RunSpec{}, err
	}
	unfinished, err := r.unfinishedScopes(prev)
	if err != nil {
		return phase.RunSpec{}, err
	}
	spec := phase.RunSpec{
		Phase:         r.o.Phase.Number,
		MaxConcurrent: r.o.Schedule.MaxConcurrent,
		Dynamic:       r.o.Schedule.Dynamic,
		SharedTree:    !r.o.Git.Worktrees, // plans that share one tree must not share files
		Worktrees:     r.o.Git.Worktrees,
		Resolver:      r.o.Git.Worktrees && r.o.Agents.Roles["comb"] != nil,
		Gate:          r.o.Git.Worktrees && strings.TrimSpace(r.o.Git.GateCommand) != "",
		Verify:        r.o.Schedule.Verify,
		Verifier:      r.o.Schedule.Verify && r.o.Agents.Roles["verifier"] != nil,
		Team:          r.prompts.Team,
		AutoAnswer:    r.o.Human.AutoAnswer,
		Retries:       r.o.Agents.Retries,
		Stall:         r.o.Agents.Stall,
		Agent:         r.o.Agents.Launcher.Name(),
		Budget:        r.o.Agents.Budget,
		Guard:         r.o.Agents.Guard,
		Context:       r.o.Agents.Context,
		OnLimit:       r.o.Agents.OnLimit,
	}
	r.work.Scope = map[string]string{}
	merged := r.work.MergedSummaries(ctx)
	for _, p := range r.o.Phase.Plans {
		ps := phase.PlanSpec{
			ID:       p.ID,
			Name:     p.Name,
			Wave:     p.ComputedWave,
			Files:    append([]string(nil), p.FilesModified...),
			Tasks:    len(p.Tasks),
			Stops:    stops(p),
			Estimate: estimateOf(p),
			Since:    base,
			Hash:     r.planHash(p),
		}
		if u, ok := unfinished[p.ID]; ok && u.Hash == ps.Hash {
			ps.Since = u.Since
		}
		r.work.Scope[p.ID] = ps.Since
		switch _, summarised := r.o.Phase.Summaries[p.ID]; {
		case r.work.InWorktrees():
			// The integration branch holds every plan merged so far, also
			// when it is not (yet) in the user's tree (strategy phase).
			ps.Done, _ = check.ClaimFrom(ctx, p, merged, nil)
		case summarised:
			ps.Done, _ = check.SpotCheck(ctx, r.o.Repo, p)
		}
		for _, d := range p.DependsOn {
			switch {
			case r.plans[d] != nil:
				ps.DependsOn = append(ps.DependsOn, d)
			case ps.Done:
				// A plan that is done never runs: a dependency of it that
				// is gone (its files cleaned away) keeps nothing waiting.
			case plan.NamesPhaseUpTo(d, r.o.Phase.Number):
				// The whole of a phase before this one ("01-foundation"):
				// phases run in order, so it is done.
			default:
				if err := r.foreignDependencyDone(ctx, p, d); err != nil {
					return phase.RunSpec{}, err
				}
			}
		}
		spec.Plans = append(spec.Plans, ps)
	}
	return spec, nil
}

// unfinishedScopes replays the phase's previous run and returns the specs
// of the plans it did not complete.
func (r *runner) unfinishedScopes(prev *journal.Run) (map[string]phase.PlanSpec, error) {
	if prev == nil {
		return nil, nil
	}
	eng, err := replay.Run(r.o.Journal, *prev)
	if errors.As(err, new(*phase.NewerError)) {
		return nil, nil // unreadable here: the new run starts from the tip
	}
	if err != nil {
		return nil, err
	}
	out := map[string]phase.PlanSpec{}
	for _, p := range eng.Snapshot().Plans {
		if p.State != phase.Complete && !p.Spec.Done && p.Spec.Hash != "" {
			out[p.Spec.ID] = p.Spec
		}
	}
	return out, nil
}

// planHash identifies the content of p's file.
func (r *runner) planHash(p *plan.Plan) string {
	data, err := os.ReadFile(filepath.Join(r.o.Repo.Root, filepath.FromSlash(p.Path)))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// foreignDependencyDone checks that dep, a plan of another phase that p
// depends on, is complete: its SUMMARY, in whatever naming GSD used and
// also in an archived milestone, exists and does not say FAILED.
func (r *runner) foreignDependencyDone(ctx context.Context, p *plan.Plan, dep string) error {
	proj, err := load.Project(r.o.Repo.Root)
	if err != nil {
		return fmt.Errorf("plan %s depends on %s of another phase: %w", p.ID, dep, err)
	}
	ref, found := load.LookupPlan(proj, dep)
	switch {
	case found && ref.Done():
		return nil
	case found:
		return fmt.Errorf("plan %s depends on %s of another phase, which is not complete (no passing SUMMARY next to %s): run that phase first", p.ID, dep, ref.Dir)
	}
	return fmt.Errorf("plan %s depends on %s of another phase, which is not complete (no phase holds that plan or a SUMMARY of it): run that phase first, or fix depends_on (see `hive lint`)", p.ID, dep)
}

// estimateOf reads a plan's optional `estimate:` frontmatter key: a Go
// duration ("45m", "1h30m") or a number of minutes. When every plan of a
// phase has one, dynamic scheduling ranks plans by estimated time instead of
// task counts (hive bench measures the difference).
func estimateOf(p *plan.Plan) time.Duration {
	switch v := p.Extra["estimate"].(type) {
	case string:
		if d, err := time.ParseDuration(strings.TrimSpace(v)); err == nil && d > 0 {
			return d
		}
	case int:
		return time.Duration(max(v, 0)) * time.Minute
	case float64:
		return time.Duration(max(v, 0) * float64(time.Minute))
	}
	return 0
}
