package plan

import (
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// PhasesDir is where phase folders live, relative to the repository root.
// Archived milestones (.planning/milestones/) are deliberately not read.
const PhasesDir = ".planning/phases"

// MilestonesDir holds the phase folders of finished milestones, which GSD
// archives there (.planning/milestones/v1.0-phases/03-auth/).
const MilestonesDir = ".planning/milestones"

var phaseDirRE = regexp.MustCompile(`^(\d+(?:\.\d+)*)(?:-(.*))?$`)

// codedDirRE is a phase folder named with GSD's project code before its
// number ("project_code": "CTRX" in .planning/config.json makes
// CTRX-15-api the folder of phase 15).
var codedDirRE = regexp.MustCompile(`^([A-Z]{1,6})-(\d.*)$`)

// PhaseFolder reads a phase folder's name: its number and slug, with or
// without a project code before them (any code: a folder that was given
// is read as GSD reads it); ok is false for a name that holds no phase
// number.
func PhaseFolder(name string) (number, slug, code string, ok bool) {
	if m := phaseDirRE.FindStringSubmatch(name); m != nil {
		return m[1], m[2], "", true
	}
	if c := codedDirRE.FindStringSubmatch(name); c != nil {
		if m := phaseDirRE.FindStringSubmatch(c[2]); m != nil {
			return m[1], m[2], c[1], true
		}
	}
	return "", "", "", false
}

// planDashRE is the NN-PLAN-MM.md naming some GSD projects use
// (12.2-PLAN-01.md is plan 12.2-01), with plans lettered too and a slug
// after the plan (01-PLAN-A-scaffold.md is plan 01-A, whose SUMMARY is
// 01-A-SUMMARY.md).
var planDashRE = regexp.MustCompile(`^(\d+(?:\.\d+)*)-PLAN-(\d+[A-Za-z]?|[A-Z]\d*)(?:-[A-Za-z0-9][A-Za-z0-9_.-]*)?\.md$`)

// FileID is the id of the plan in the file at p: the file name minus
// "-PLAN.md", the id other plans depend on.
func FileID(p string) string {
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	if m := planDashRE.FindStringSubmatch(base); m != nil {
		return m[1] + "-" + m[2]
	}
	id := strings.TrimSuffix(base, "-PLAN.md")
	if id == base {
		id = strings.TrimSuffix(base, path.Ext(base))
	}
	if id == "" || id == "." || id == "/" {
		return base
	}
	return id
}

// IsDashName reports whether a file is named NN-PLAN-MM.md (planDashRE).
func IsDashName(name string) bool { return planDashRE.MatchString(name) }

// SplitID splits "03-02" into "03" and "02", "02.1-01" into "02.1" and "01".
func SplitID(id string) (phase, num string) {
	if i := strings.LastIndexByte(id, '-'); i >= 0 {
		return id[:i], id[i+1:]
	}
	return "", id
}

// CanonNum drops leading zeros from every dot-separated part: "03" and "3" are
// the same phase, "02.1" and "2.1" too.
func CanonNum(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		if t := strings.TrimLeft(p, "0"); t != "" || p == "" {
			parts[i] = t
		} else {
			parts[i] = "0"
		}
	}
	return strings.Join(parts, ".")
}

// IsDigits reports whether s is a non-empty run of ASCII digits.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsNumLike reports whether s is digits and dots as phase numbers are
// written: "3", "02.1".
func IsNumLike(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if !IsDigits(p) {
			return false
		}
	}
	return true
}

// CompareNum orders dotted phase numbers numerically: 2 < 2.1 < 2.10 < 10.
// Digits are compared as strings so that no number is too long.
func CompareNum(a, b string) int {
	as, bs := strings.Split(CanonNum(a), "."), strings.Split(CanonNum(b), ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, y := as[i], bs[i]
		if len(x) != len(y) {
			if len(x) < len(y) {
				return -1
			}
			return 1
		}
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}

// compareID orders plan ids by phase then plan number, numerically, so that
// unpadded ids (1-2, 1-10) sort as people expect.
func compareID(a, b string) int {
	pa, na := SplitID(a)
	pb, nb := SplitID(b)
	if IsNumLike(pa) && IsNumLike(pb) && IsDigits(na) && IsDigits(nb) {
		if c := CompareNum(pa, pb); c != 0 {
			return c
		}
		if c := CompareNum(na, nb); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

// SortPlans orders plans by id (see compareID).
func SortPlans(ps []*Plan) {
	sort.SliceStable(ps, func(i, j int) bool { return compareID(ps[i].ID, ps[j].ID) < 0 })
}

// NormalizeDep turns what people write in depends_on into a plan id: quotes,
// file names and bare numbers ("1" in plan 03-02 means 03-01) are all accepted,
// and a dependency in this plan's phase is re-spelled like this plan's id so that
// "3-1" and "03-01" name the same plan.
func NormalizeDep(s, own string) string {
	s = strings.Trim(strings.TrimSpace(s), `"'`+"`")
	s = path.Base(strings.ReplaceAll(s, `\`, "/"))
	for _, suf := range []string{"-PLAN.md", "-PLAN", ".md"} {
		s = strings.TrimSuffix(s, suf)
	}
	if s == "" || s == "." || s == "/" {
		return ""
	}
	// "03-auth-02" (the phase slug in the id, as older GSD wrote them) is 03-02.
	if ph, n, slug, ok := KeyRaw(s); ok && slug {
		s = ph + "-" + n
	}
	ownPhase, ownNum := SplitID(own)
	pad := func(n string) string {
		if IsDigits(n) && IsDigits(ownNum) && len(n) < len(ownNum) {
			return strings.Repeat("0", len(ownNum)-len(n)) + n
		}
		return n
	}
	phase, num := SplitID(s)
	switch {
	case phase == "" && IsDigits(num) && ownPhase != "":
		return ownPhase + "-" + pad(num)
	case phase != "" && ownPhase != "" && CanonNum(phase) == CanonNum(ownPhase):
		return ownPhase + "-" + pad(num)
	}
	return s
}

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

// Key reduces a plan or SUMMARY name (the file name without -PLAN.md or
// -SUMMARY.md) to its phase and plan numbers, canonical ("3", "2"); ok is
// false for a name holding no such pair.
func Key(name string) (phase, num string, ok bool) {
	phase, num, _, ok = KeyRaw(name)
	return CanonNum(phase), CanonNum(num), ok
}

// KeyRaw is Key with the numbers as written; slugInMiddle tells the
// NN-slug-MM form.
func KeyRaw(name string) (phase, num string, slugInMiddle, ok bool) {
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

// KeyOf is plan p's phase and plan numbers: its name's, or, for a name
// that holds no such pair (02-content-bank-PLAN.md, numbered by plan
// alone), its phase's number and its frontmatter's plan: number, which is
// how its SUMMARY (01-content-bank-02-SUMMARY.md) and its siblings'
// depends_on name it.
func KeyOf(ph *Phase, p *Plan) (phase, num string, ok bool) {
	if phase, num, ok = Key(p.ID); ok {
		return phase, num, true
	}
	if ph.Number == "" || !numberTokenRE.MatchString(p.PlanNumber) {
		return "", "", false
	}
	return CanonNum(ph.Number), CanonNum(p.PlanNumber), true
}

// PhaseDependency reports whether a depends_on entry names a whole phase
// by its folder ("01-foundation"), not a plan, and which: a phase before
// the plan's own is done before it starts, since phases run in order.
func PhaseDependency(d string) (number string, ok bool) {
	if m := phaseWordRE.FindStringSubmatch(d); m != nil {
		return m[1], true // "Phase 63"
	}
	m := phaseDirRE.FindStringSubmatch(d)
	if m == nil || m[2] == "" || strings.IndexFunc(m[2], unicode.IsLetter) < 0 {
		return "", false
	}
	if _, _, isPlan := Key(d); isPlan {
		return "", false
	}
	return m[1], true
}

// phaseWordRE is a phase named in words: "Phase 63", "phase-2.1".
var phaseWordRE = regexp.MustCompile(`(?i)^phase[ _-]?(\d+(?:\.\d+)*)$`)

// NamesPhaseUpTo reports whether depends_on entry d names a whole phase
// (PhaseDependency) that is phase or one before it: nothing a plan of
// phase waits for (lint says which).
func NamesPhaseUpTo(d, phase string) bool {
	n, ok := PhaseDependency(d)
	return ok && CompareNum(n, phase) <= 0
}
