package load

import (
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/hivectl/hive/internal/plan"
)

// PlanRef is a plan found by its full id anywhere in the project.
type PlanRef struct {
	ID      string        // the plan's id as its file names it, or the SUMMARY's when only that exists
	Dir     string        // its phase folder, repository-relative
	Path    string        // its PLAN.md; "" when only a SUMMARY was found
	Summary *plan.Summary // nil when it has none
}

// Done reports whether the plan has a SUMMARY that does not say
// Self-Check: FAILED.
func (r PlanRef) Done() bool { return r.Summary != nil && r.Summary.SelfCheck != "FAILED" }

// LookupPlan finds the plan a full id names ("03-02", "3-2", "03-auth-02")
// in the phase folder of its number, or in an archived milestone: a plan
// that depends on an earlier phase names it so. Of several matches, a done
// one wins.
func LookupPlan(p *plan.Project, id string) (PlanRef, bool) {
	var found []PlanRef
	for _, ph := range phasesNumbered(p, id) {
		if pl := ph.Plan(id); pl != nil || planByKey(ph, id) != nil {
			if pl == nil {
				pl = planByKey(ph, id)
			}
			found = append(found, PlanRef{ID: pl.ID, Dir: ph.Dir, Path: pl.Path, Summary: ph.Summaries[pl.ID]})
			continue
		}
		if s := OrphanSummary(ph, id); s != nil {
			found = append(found, PlanRef{ID: summaryName(s), Dir: ph.Dir, Summary: s})
		}
	}
	for _, r := range found {
		if r.Done() {
			return r, true
		}
	}
	if len(found) > 0 {
		return found[0], true
	}
	return PlanRef{}, false
}

// phasesNumbered returns the phases, current then archived, whose number is
// the phase number of plan id.
func phasesNumbered(p *plan.Project, id string) []*plan.Phase {
	kp, _, ok := plan.Key(id)
	if !ok {
		return nil
	}
	var out []*plan.Phase
	for _, ph := range p.Phases {
		if ph.Number != "" && plan.CanonNum(ph.Number) == kp {
			out = append(out, ph)
		}
	}
	archives, _ := os.ReadDir(filepath.Join(p.Root, filepath.FromSlash(plan.MilestonesDir)))
	for _, a := range archives {
		rel := plan.MilestonesDir + "/" + a.Name()
		if !isDir(p.Root, rel, a) {
			continue
		}
		entries, _ := os.ReadDir(filepath.Join(p.Root, filepath.FromSlash(rel)))
		for _, e := range entries {
			n, _, _, ok := plan.PhaseFolder(e.Name())
			if !ok || plan.CanonNum(n) != kp || !isDir(p.Root, rel+"/"+e.Name(), e) {
				continue
			}
			if ph, err := Phase(p.Root, rel+"/"+e.Name()); err == nil {
				out = append(out, ph)
			}
		}
	}
	return out
}

// CloseIDs lists the ids of the plans of the phase that id names, for a
// "did you mean" that only ever names a plan that exists.
func CloseIDs(p *plan.Project, id string) []string {
	var ids []string
	for _, ph := range phasesNumbered(p, id) {
		for _, pl := range ph.Plans {
			ids = append(ids, pl.ID)
		}
	}
	return ids
}

// OrphanSummary is the SUMMARY in ph of the plan id names, when that plan's
// PLAN.md is gone (cleaned away once the plan was done); nil when there is
// none.
func OrphanSummary(ph *plan.Phase, id string) *plan.Summary {
	kp, kn, ok := plan.Key(id)
	if !ok {
		return nil
	}
	for _, sid := range slices.Sorted(maps.Keys(ph.Summaries)) {
		s := ph.Summaries[sid]
		if sp, sn, ok := plan.Key(summaryName(s)); ok && sp == kp && sn == kn {
			return s
		}
	}
	return nil
}
