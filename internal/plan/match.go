package plan

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// GSD has named plans and their SUMMARYs in several ways over time, and real
// projects keep every one of them:
//
//	03-02-PLAN.md        03-02-SUMMARY.md        the current naming
//	03-02-PLAN.md        03-auth-02-SUMMARY.md   phase slug in the SUMMARY ({phase}-{plan} with phase: 03-auth)
//	03-auth-02-PLAN.md   03-auth-02-SUMMARY.md   the same for the plan
//	03-02-login-PLAN.md  03-02-login-SUMMARY.md  plan slug after the numbers
//	03-02-login-PLAN.md  03-02-SUMMARY.md
//	3-2-PLAN.md          03-02-SUMMARY.md        padding differs
//	02-content-PLAN.md   03-content-02-SUMMARY.md  the plan numbered alone (plan: 02 in phase 03)
//
// GSD itself reduces a name to its first two adjacent numbers
// (extractCanonicalPlanId in get-shit-done/bin/lib/core.cjs); hive does the
// same and also reads the phase-slug form, whose numbers are not adjacent.

// numberTokenRE is one number of a plan id: 03, 2.1, 3A.
var numberTokenRE = regexp.MustCompile(`^\d+[A-Za-z]?(?:\.\d+)*$`)

// planKey reduces a plan or SUMMARY name (the file name without -PLAN.md or
// -SUMMARY.md) to its phase and plan numbers, canonical ("3", "2"); ok is
// false for a name holding no such pair.
func planKey(name string) (phase, num string, ok bool) {
	phase, num, _, ok = planKeyRaw(name)
	return canonNum(phase), canonNum(num), ok
}

// planKeyRaw is planKey with the numbers as written; slugInMiddle tells the
// NN-slug-MM form.
func planKeyRaw(name string) (phase, num string, slugInMiddle, ok bool) {
	parts := strings.Split(name, "-")
	first := -1
	for i, p := range parts {
		if numberTokenRE.MatchString(p) {
			first = i
			break
		}
	}
	if first < 0 {
		return "", "", false, false
	}
	if first+1 < len(parts) && numberTokenRE.MatchString(parts[first+1]) {
		return parts[first], parts[first+1], false, true
	}
	// NN-slug-MM: words between the phase and the plan number, nothing after.
	last := len(parts) - 1
	if last > first+1 && numberTokenRE.MatchString(parts[last]) {
		for _, p := range parts[first+1 : last] {
			if numberTokenRE.MatchString(p) {
				return "", "", false, false
			}
		}
		return parts[first], parts[last], true, true
	}
	return "", "", false, false
}

// keyOf is plan p's phase and plan numbers: its name's, or, for a name
// that holds no such pair (02-content-bank-PLAN.md, numbered by plan
// alone), its phase's number and its frontmatter's plan: number, which is
// how its SUMMARY (01-content-bank-02-SUMMARY.md) and its siblings'
// depends_on name it.
func keyOf(ph *Phase, p *Plan) (phase, num string, ok bool) {
	if phase, num, ok = planKey(p.ID); ok {
		return phase, num, true
	}
	if ph.Number == "" || !numberTokenRE.MatchString(p.PlanNumber) {
		return "", "", false
	}
	return canonNum(ph.Number), canonNum(p.PlanNumber), true
}

// planByKey returns the one plan of ph whose numbers are those of id, or nil
// when none or several are.
func planByKey(ph *Phase, id string) *Plan {
	kp, kn, ok := planKey(id)
	if !ok {
		return nil
	}
	var found *Plan
	for _, p := range ph.Plans {
		if pp, pn, ok := keyOf(ph, p); ok && pp == kp && pn == kn {
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
// Validate to report.
func resolveDeps(ph *Phase) {
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
			if dp, _, ok := planKey(d); !ok || ph.Number == "" || dp != canonNum(ph.Number) {
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
func planByFile(ph *Phase, d string) *Plan {
	for _, p := range ph.Plans {
		if base := path.Base(p.Path); d == base || d+".md" == base {
			return p
		}
	}
	return nil
}

// planByNumber returns the one plan of ph that dependency d names by its
// plan number alone, when that number is not a plain one (a plain "3" is
// 03-03 already, see normalizeDep): "P01" for 08-P01-PLAN.md (plan: P01).
func planByNumber(ph *Phase, d string) *Plan {
	if strings.Contains(d, "-") || isDigits(d) {
		return nil
	}
	var found *Plan
	for _, p := range ph.Plans {
		if _, num := splitID(p.ID); num == d || p.PlanNumber == d {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// summaryName is a SUMMARY's file name without -SUMMARY.md.
func summaryName(s *Summary) string {
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
func matchSummaries(ph *Phase, sums []*Summary) []Diagnostic {
	var out []Diagnostic
	note := func(s *Summary, format string, args ...any) {
		out = append(out, Diagnostic{Severity: SeverityNote, File: s.Path, Message: fmt.Sprintf(format, args...)})
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i].Path < sums[j].Path })
	taken := map[*Plan]*Summary{}
	claim := func(p *Plan, s *Summary) {
		taken[p] = s
		p.summary = s.Path
		s.PlanID = p.ID
		ph.Summaries[p.ID] = s
	}
	var rest []*Summary
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
		var cands []*Plan
		if sp, sn, ok := planKey(name); ok {
			for _, p := range ph.Plans {
				if pp, pn, ok := keyOf(ph, p); ok && pp == sp && pn == sn {
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
