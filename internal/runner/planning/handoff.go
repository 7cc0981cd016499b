package planning

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/handoff"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/work"
)

// WriteHandoff writes the handoff file of a run paused as s shows it into
// the phase folder under root and returns its repository-relative path.
func WriteHandoff(root string, s phase.Snapshot, ph *plan.Phase, plans map[string]*plan.Plan) (string, error) {
	h := Handoff(s, ph, plans)
	rel := filepath.ToSlash(handoff.Path(ph.Dir))
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.WriteFile(path, handoff.Render(h), 0o644); err != nil {
		return "", fmt.Errorf("write the handoff file: %w", err)
	}
	return rel, nil
}

// DropHandoff removes the handoff file of a paused run being resumed: it
// was a view of the journal at the pause, and would now mislead. It
// returns the file's repository-relative path, and whether it was there.
func DropHandoff(root string, ph *plan.Phase) (string, bool) {
	rel := filepath.ToSlash(handoff.Path(ph.Dir))
	return rel, os.Remove(filepath.Join(root, filepath.FromSlash(rel))) == nil
}

// Handoff is the handoff of a paused run from the engine's state: the
// plans complete, in progress (started, with their executor, the task they
// were on and their checks) and not yet started; the notes are what each
// agent wrote when it handed over, and the questions still open.
func Handoff(s phase.Snapshot, ph *plan.Phase, plans map[string]*plan.Plan) handoff.Handoff {
	h := handoff.Handoff{Phase: ph.Number, Time: s.PausedAt.UTC(), PlanPath: ph.Dir}
	h.Reviewers = []string{"spot-check"}
	if s.Worktrees {
		h.Reviewers = append(h.Reviewers, "merge", "post-merge gate")
	}
	for _, p := range s.Plans {
		it := handoff.Item{ID: p.Spec.ID, Name: p.Spec.Name, Done: p.TasksDone, Total: p.Spec.Tasks}
		if pl := plans[p.Spec.ID]; pl != nil && it.Name == "" {
			it.Name = pl.Name
		}
		switch {
		case p.State == phase.Complete:
			it.Done = p.Spec.Tasks
			h.Completed = append(h.Completed, it)
		case p.State.Final():
			h.Notes = append(h.Notes, fmt.Sprintf("plan %s %s: %s", p.Spec.ID, p.State, p.Reason))
		case p.Attempt == 0:
			h.Pending = append(h.Pending, it)
		default:
			it.Owner = "executor-" + p.Spec.ID
			h.Workers = append(h.Workers, it.Owner)
			next := p.TasksDone + 1 // the first task without its commit, as far as PROGRESS says
			if p.Open != nil && p.Open.Task > 0 {
				next = p.Open.Task // the checkpoint's task
			}
			if pl := plans[p.Spec.ID]; pl != nil && next <= len(pl.Tasks) {
				t := pl.Tasks[next-1]
				it.Task = fmt.Sprintf("Task %d: %s", t.Number, t.Name)
			}
			it.Reviews = reviewsOf(p, s.Worktrees)
			h.InProgress = append(h.InProgress, it)
			if r := p.Report; r != nil && r.Status == work.ReportPartial {
				h.Notes = append(h.Notes, fmt.Sprintf("%s: %s", it.Owner, r.Summary))
				for _, c := range r.Concerns {
					h.Notes = append(h.Notes, fmt.Sprintf("%s: %s", it.Owner, c))
				}
			}
			if cp := p.Open; cp != nil {
				h.Notes = append(h.Notes, fmt.Sprintf("plan %s waits at checkpoint #%d (%s): hive answer %s \"...\"", p.Spec.ID, cp.ID, cp.Type, p.Spec.ID))
			}
		}
	}
	return h
}

// reviewsOf is where an unfinished plan stands with hive's checks.
func reviewsOf(p *phase.PlanStatus, worktrees bool) map[string]string {
	r := map[string]string{"spot-check": handoff.Pending}
	if !worktrees {
		return r
	}
	r["merge"], r["post-merge gate"] = handoff.Pending, handoff.Pending
	switch p.Stage {
	case phase.StageMerge:
		r["spot-check"] = handoff.Passed
	case phase.StageResolve, phase.StageHeld:
		r["spot-check"], r["merge"] = handoff.Passed, handoff.Failed
	case phase.StageGate:
		r["spot-check"], r["merge"] = handoff.Passed, handoff.Passed
	}
	return r
}
