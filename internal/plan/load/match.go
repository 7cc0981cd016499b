package load

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/plan"
)

// planByKey returns the one plan of ph whose numbers are those of id, or nil
// when none or several are.
func planByKey(ph *plan.Phase, id string) *plan.Plan {
	kp, kn, ok := plan.Key(id)
	if !ok {
		return nil
	}
	var found *plan.Plan
	for _, p := range ph.Plans {
		if pp, pn, ok := plan.KeyOf(ph, p); ok && pp == kp && pn == kn {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// resolveDeps re-spells every dependency on a plan of this phase as that
// plan's id, so that "03-02" finds 03-02-login-PLAN.md and the scheduler
// links the two. Dependencies it cannot place are left as written, for
// validate.Phase to report.
func resolveDeps(ph *plan.Phase) {
	byID := map[string]bool{}
	for _, p := range ph.Plans {
		byID[p.ID] = true
	}
	for _, p := range ph.Plans {
		for i, d := range p.DependsOn {
			if byID[d] {
				continue
			}
			if q := planByNumber(ph, d); q != nil {
				p.DependsOn[i] = q.ID
				continue
			}
			if q := planByFile(ph, d); q != nil {
				p.DependsOn[i] = q.ID
				continue
			}
			if dp, _, ok := plan.Key(d); !ok || ph.Number == "" || dp != plan.CanonNum(ph.Number) {
				continue
			}
			if q := planByKey(ph, d); q != nil {
				p.DependsOn[i] = q.ID
			}
		}
	}
}

// planByFile returns the plan whose file dependency d names, with or
// without ".md": "01-PLAN-A-scaffold" is plan 01-A.
func planByFile(ph *plan.Phase, d string) *plan.Plan {
	for _, p := range ph.Plans {
		if base := path.Base(p.Path); d == base || d+".md" == base {
			return p
		}
	}
	return nil
}

// planByNumber returns the one plan of ph that dependency d names by its
// plan number alone, when that number is not a plain one (a plain "3" is
// 03-03 already, see plan.NormalizeDep): "P01" for 08-P01-PLAN.md (plan: P01).
func planByNumber(ph *plan.Phase, d string) *plan.Plan {
	if strings.Contains(d, "-") || plan.IsDigits(d) {
		return nil
	}
	var found *plan.Plan
	for _, p := range ph.Plans {
		if _, num := plan.SplitID(p.ID); num == d || p.PlanNumber == d {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// summaryName is a SUMMARY's file name without -SUMMARY.md.
func summaryName(s *plan.Summary) string {
	base := path.Base(strings.ReplaceAll(s.Path, `\`, "/"))
	if n := strings.TrimSuffix(base, "-SUMMARY.md"); n != base {
		return n
	}
	return strings.TrimSuffix(base, path.Ext(base))
}

// matchSummaries pairs every SUMMARY of a phase with its plan and fills
// ph.Summaries. A SUMMARY named like its plan wins; otherwise the phase and
// plan numbers of the names must agree and point at one plan only. Every
// pairing that is not by name, and every SUMMARY left over, is a note, so
// that hive lint shows what hive counts as done.
func matchSummaries(ph *plan.Phase, sums []*plan.Summary) []plan.Diagnostic {
	var out []plan.Diagnostic
	note := func(s *plan.Summary, format string, args ...any) {
		out = append(out, plan.Diagnostic{Severity: plan.SeverityNote, File: s.Path, Message: fmt.Sprintf(format, args...)})
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i].Path < sums[j].Path })
	taken := map[*plan.Plan]*plan.Summary{}
	claim := func(p *plan.Plan, s *plan.Summary) {
		taken[p] = s
		p.MatchedSummary = s.Path
		s.PlanID = p.ID
		ph.Summaries[p.ID] = s
	}
	var rest []*plan.Summary
	for _, s := range sums {
		if p := ph.Plan(summaryName(s)); p != nil && taken[p] == nil {
			claim(p, s)
			if summaryName(s) != p.ID {
				note(s, "SUMMARY of plan %s (%s), matched by its phase and plan numbers", p.ID, p.Path)
			}
			continue
		}
		rest = append(rest, s)
	}
	for _, s := range rest {
		name := summaryName(s)
		var cands []*plan.Plan
		if sp, sn, ok := plan.Key(name); ok {
			for _, p := range ph.Plans {
				if pp, pn, ok := plan.KeyOf(ph, p); ok && pp == sp && pn == sn {
					cands = append(cands, p)
				}
			}
		}
		switch {
		case len(cands) == 1 && taken[cands[0]] == nil:
			claim(cands[0], s)
			note(s, "SUMMARY of plan %s (%s), matched by its phase and plan numbers", cands[0].ID, cands[0].Path)
		case len(cands) == 1:
			note(s, "another SUMMARY of plan %s, which already has %s; this one is not read", cands[0].ID, taken[cands[0]].Path)
		case len(cands) > 1:
			ids := make([]string, len(cands))
			for i, p := range cands {
				ids[i] = p.ID
			}
			note(s, "SUMMARY whose numbers match several plans (%s); counted for none of them: rename it after one plan", strings.Join(ids, ", "))
		default:
			note(s, "summary of plan %s, which has no PLAN.md in this phase", name)
		}
		if len(cands) != 1 || taken[cands[0]] != s {
			if ph.Summaries[s.PlanID] == nil {
				ph.Summaries[s.PlanID] = s
			}
		}
	}
	return out
}
