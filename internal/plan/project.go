package plan

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// PhasesDir is where phase folders live, relative to the repository root.
// Archived milestones (.planning/milestones/) are deliberately not read.
const PhasesDir = ".planning/phases"

var phaseDirRE = regexp.MustCompile(`^(\d+(?:\.\d+)*)(?:-(.*))?$`)

// codedDirRE is a phase folder named with GSD's project code before its
// number ("project_code": "CTRX" in .planning/config.json makes
// CTRX-15-api the folder of phase 15).
var codedDirRE = regexp.MustCompile(`^([A-Z]{1,6})-(\d.*)$`)

// phaseFolder reads a phase folder's name: its number and slug, with or
// without a project code before them (any code: a folder that was given
// is read as GSD reads it); ok is false for a name that holds no phase
// number.
func phaseFolder(name string) (number, slug, code string, ok bool) {
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

// projectCode is the project_code of the project's .planning/config.json,
// "" when it sets none (or cannot be read: the config's own checks say so).
func projectCode(abs string) string {
	data, err := os.ReadFile(filepath.Join(abs, ".planning", "config.json"))
	if err != nil {
		return ""
	}
	var c struct {
		Code string `json:"project_code"`
	}
	if json.Unmarshal(data, &c) != nil {
		return ""
	}
	return strings.TrimSpace(c.Code)
}

// digitsRE finds the number in a folder named like a phase another way;
// numberBeforeSlugRE the one right before its name (v0.40-03-hooks: 03).
var (
	digitsRE           = regexp.MustCompile(`\d+`)
	numberBeforeSlugRE = regexp.MustCompile(`(\d+)(?:[-_ ][A-Za-z]|$)`)
)

// pad2 writes a phase number with two digits at least, as GSD does.
func pad2(n string) string {
	if len(n) < 2 {
		return "0" + n
	}
	return n
}

// gsdArtifacts are the per-phase files GSD writes besides plans and summaries.
var gsdArtifacts = []string{"CONTEXT", "RESEARCH", "VERIFICATION", "UAT", "DISCOVERY", "VALIDATION", "PATTERNS", "REVIEW"}

// NoPlanningError is LoadProject's error for a folder without .planning/:
// the commands that start projects (hive init, /gsd:new-project) are the
// caller's to suggest, with the flags it was given.
type NoPlanningError struct{ Root string }

func (e *NoPlanningError) Error() string {
	return fmt.Sprintf("no .planning/ folder in %s: create .planning/phases/01-<name>/ with NN-MM-PLAN.md files (or run /gsd:new-project), or run hive from the repository root", e.Root)
}

// LoadProject reads every phase under root/.planning/phases. Findings about
// files are diagnostics in the phases; the error is for I/O failures and for a
// repository without .planning/.
func LoadProject(root string) (*Project, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("load project: %w", err)
	}
	if st, err := os.Stat(filepath.Join(abs, ".planning")); err != nil || !st.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, &NoPlanningError{Root: abs}
		}
		return nil, fmt.Errorf("load project: %w", err)
	}
	p := &Project{Root: abs}
	entries, err := os.ReadDir(filepath.Join(abs, filepath.FromSlash(PhasesDir)))
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil // a fresh project: planned later
	}
	if err != nil {
		return nil, fmt.Errorf("load project: read %s: %w", PhasesDir, err)
	}
	code := projectCode(abs)
	for _, e := range entries {
		rel := PhasesDir + "/" + e.Name()
		if !isDir(abs, rel, e) {
			if strings.HasSuffix(strings.ToUpper(e.Name()), "-PLAN.MD") {
				// A plan beside the phase folders, not in one: GSD does not
				// run it either, but its author may think it will.
				n := pad2(cmp.Or(digitsRE.FindString(e.Name()), "NN"))
				p.Diagnostics = append(p.Diagnostics, Diagnostic{Severity: SeverityNote, File: rel,
					Message: "a plan outside any phase folder; ignored (plans run from inside .planning/phases/NN-name/)",
					Fix:     fmt.Sprintf("move it into its phase's folder as %s/%s-<name>/%s-MM-PLAN.md, or delete it if it is an old draft", PhasesDir, n, n)})
			}
			continue
		}
		_, _, dirCode, isPhase := phaseFolder(e.Name())
		if !isPhase || (dirCode != "" && !strings.EqualFold(dirCode, code)) {
			d := Diagnostic{Severity: SeverityNote, File: rel, Message: "not a phase folder (expected NN-name, e.g. 03-auth); ignored"}
			plans, finished := undone(filepath.Join(abs, filepath.FromSlash(rel)))
			if len(plans) > 0 && digitsRE.FindString(e.Name()) == "" {
				// ENH-D-moves/ENH-D-01-PLAN.md without its SUMMARY: a
				// plan whose folder has no phase number, which never runs.
				d.Severity = SeverityWarning
				d.Message = fmt.Sprintf("holds %d plan(s) not done (%s), but hive reads phase folders named NN-name (03-auth) only; this one is ignored and those plans never run", len(plans), strings.Join(plans, ", "))
				d.Fix = "rename it NN-<name>, with a phase number not in use, and its plans NN-01-PLAN.md, NN-02-PLAN.md, ..."
				p.ignored = append(p.ignored, e.Name())
			} else if m := digitsRE.FindString(e.Name()); m != "" && len(plans) == 0 && finished > 0 {
				// v0.30-01-model-selection, whose plans are all done: read
				// or not, there is nothing in it to run.
				d.Message = fmt.Sprintf("named like a phase, but hive reads phase folders named NN-name (03-auth) only; ignored (its %d plan(s) are done: nothing to run)", finished)
				p.ignored = append(p.ignored, e.Name())
			} else if m != "" {
				// phase-01, "Phase 2": meant as a phase, whose plans
				// would silently never run.
				if n := numberBeforeSlugRE.FindStringSubmatch(e.Name()); n != nil {
					m = n[1] // v0.40-03-hooks: 03, not 0
				}
				d.Severity = SeverityWarning
				d.Message = "named like a phase, but hive reads phase folders named NN-name (03-auth) with NN-MM-PLAN.md files directly inside; this one is ignored"
				d.Fix = fmt.Sprintf("rename it %s-<name> and name its plans %s-01-PLAN.md, %s-02-PLAN.md, ...", pad2(m), pad2(m), pad2(m))
				if dirCode != "" {
					d.Fix = fmt.Sprintf("set \"project_code\": %q in .planning/config.json (GSD's prefix of phase folders), or rename it %s", dirCode, strings.TrimPrefix(e.Name(), dirCode+"-"))
				}
				p.ignored = append(p.ignored, e.Name())
			}
			p.Diagnostics = append(p.Diagnostics, d)
			continue
		}
		ph, err := LoadPhase(abs, rel)
		if err != nil {
			return nil, err
		}
		p.Phases = append(p.Phases, ph)
	}
	sort.SliceStable(p.Phases, func(i, j int) bool {
		if c := compareNum(p.Phases[i].Number, p.Phases[j].Number); c != 0 {
			return c < 0
		}
		return p.Phases[i].Dir < p.Phases[j].Dir
	})
	p.Diagnostics = append(p.Diagnostics, sharedNumbers(p.Phases)...)
	return p, nil
}

// sharedNumbers warns of phase numbers that more than one folder has
// (13-damage-only-moves beside 13-make-all-moves-the-same): `hive
// execute-phase 13` cannot choose, and both folders' plans are 13-01,
// 13-02, so a ROADMAP box or a depends_on may mean either.
func sharedNumbers(phases []*Phase) []Diagnostic {
	var out []Diagnostic
	for i := 0; i < len(phases); {
		j := i + 1
		for j < len(phases) && compareNum(phases[i].Number, phases[j].Number) == 0 {
			j++
		}
		if j-i > 1 {
			names := make([]string, j-i)
			for k := range names {
				names[k] = path.Base(phases[i+k].Dir)
			}
			n := phases[i].Number
			out = append(out, Diagnostic{Severity: SeverityWarning, File: phases[i+1].Dir,
				Message: fmt.Sprintf("phase %s has %d folders (%s): `hive execute-phase %s` refuses to choose (name the folder instead), and their plans share the ids %s-01, %s-02, ...", n, j-i, strings.Join(names, ", "), n, n, n),
				Fix:     fmt.Sprintf("give all but one a number not in use (%s.1 for a phase inserted after %s), or move a finished one to .planning/milestones/", n, n)})
		}
		i = j
	}
	return out
}

// undone lists the PLAN.md files directly in dir that have no SUMMARY.md
// of the same name beside them.
func undone(dir string) (plans []string, done int) {
	entries, _ := os.ReadDir(dir)
	files := map[string]bool{}
	for _, e := range entries {
		files[strings.ToUpper(e.Name())] = !e.IsDir()
	}
	for _, e := range entries {
		name := strings.ToUpper(e.Name())
		if id, ok := strings.CutSuffix(name, "-PLAN.MD"); ok && !e.IsDir() {
			if files[id+"-SUMMARY.MD"] {
				done++
			} else {
				plans = append(plans, e.Name())
			}
		}
	}
	return plans, done
}

// isDir follows symlinks, which people use to share phases between checkouts.
func isDir(root, rel string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && st.IsDir()
}

// compareNum orders dotted phase numbers numerically: 2 < 2.1 < 2.10 < 10.
// Digits are compared as strings so that no number is too long.
func compareNum(a, b string) int {
	as, bs := strings.Split(canonNum(a), "."), strings.Split(canonNum(b), ".")
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
	pa, na := splitID(a)
	pb, nb := splitID(b)
	if isNumLike(pa) && isNumLike(pb) && isDigits(na) && isDigits(nb) {
		if c := compareNum(pa, pb); c != 0 {
			return c
		}
		if c := compareNum(na, nb); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

func isNumLike(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if !isDigits(p) {
			return false
		}
	}
	return true
}

// LoadPhase reads one phase folder; dir is relative to root (an absolute dir
// inside root is accepted too). Plans that cannot be read are left out and
// reported in Phase.Diagnostics, as are stray files; only I/O fails. Waves are
// computed, but cross-plan checks are Validate's job.
func LoadPhase(root, dir string) (*Phase, error) {
	if filepath.IsAbs(dir) {
		if rel, err := filepath.Rel(root, dir); err == nil {
			dir = rel
		}
	}
	dir = path.Clean(filepath.ToSlash(dir))
	name := path.Base(dir)
	ph := &Phase{Dir: dir, Summaries: map[string]*Summary{}}
	if n, slug, _, ok := phaseFolder(name); ok {
		ph.Number, ph.Slug = n, slug
	} else {
		ph.Slug = name
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, fmt.Errorf("load phase %s: %w", dir, err)
	}
	var summaries []*Summary
	note := func(rel, msg string) {
		ph.Diagnostics = append(ph.Diagnostics, Diagnostic{Severity: SeverityNote, File: rel, Message: msg})
	}
	for _, e := range entries {
		fname := e.Name()
		rel := dir + "/" + fname
		if isDir(root, rel, e) {
			note(rel, "folder inside a phase folder; ignored")
			continue
		}
		kind := fileKind(fname)
		if kind == "" || kind == "stray" {
			if kind == "stray" {
				note(rel, strayNote(fname))
			}
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("load phase %s: %w", dir, err)
		}
		if kind == "plan" {
			p, ds := ParsePlan(rel, data)
			ph.Diagnostics = append(ph.Diagnostics, ds...)
			if p != nil {
				ph.Plans = append(ph.Plans, p)
			}
			continue
		}
		s, ds := ParseSummary(rel, data)
		ph.Diagnostics = append(ph.Diagnostics, ds...)
		summaries = append(summaries, s)
	}
	sortPlans(ph.Plans)
	resolveDeps(ph)
	ph.Diagnostics = append(ph.Diagnostics, fromZero(ph.Plans)...)
	ph.Diagnostics = append(ph.Diagnostics, matchSummaries(ph, summaries)...)
	ph.Diagnostics = append(ph.Diagnostics, CheckRepoPaths(root, ph)...)
	sortDiagnostics(ph.Diagnostics)
	_ = ComputeWaves(ph.Plans) // a cycle is reported by Validate
	return ph, nil
}

func strayNote(name string) string {
	for _, k := range gsdArtifacts {
		if strings.HasSuffix(name, "-"+k+".md") || name == k+".md" {
			return fmt.Sprintf("GSD %s file, not a plan; ignored", k)
		}
	}
	return "not a plan (plans are named NN-MM-PLAN.md); ignored"
}

// fileKind classifies a phase folder entry: "plan", "summary", "" for files
// that are expected and silently skipped, "stray" for everything else.
func fileKind(name string) string {
	switch {
	case strings.HasPrefix(name, "."):
		return "" // editor and OS droppings; .pending-checkpoint files are hive's own
	case strings.HasSuffix(name, "-PLAN.md") && len(name) > len("-PLAN.md"), planDashRE.MatchString(name):
		return "plan"
	case strings.HasSuffix(name, "-SUMMARY.md") && len(name) > len("-SUMMARY.md"):
		return "summary"
	}
	return "stray"
}

func sortPlans(ps []*Plan) {
	sort.SliceStable(ps, func(i, j int) bool { return compareID(ps[i].ID, ps[j].ID) < 0 })
}

func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Line < ds[j].Line
	})
}

// FindPhase resolves what a user typed: "3", "03", "3.1", "03-authentication",
// "authentication", or a path to the folder.
func (p *Project) FindPhase(arg string) (*Phase, error) {
	a := strings.TrimSpace(filepath.ToSlash(arg))
	if filepath.IsAbs(arg) {
		if rel, err := filepath.Rel(p.Root, arg); err == nil {
			a = filepath.ToSlash(rel)
		}
	}
	a = path.Base(path.Clean(strings.TrimSuffix(a, "/")))
	var matches []*Phase
	for _, try := range []func(*Phase) bool{
		func(ph *Phase) bool { return path.Base(ph.Dir) == a },
		func(ph *Phase) bool { return isNumLike(a) && ph.Number != "" && compareNum(ph.Number, a) == 0 },
		func(ph *Phase) bool {
			m := phaseDirRE.FindStringSubmatch(a)
			return m != nil && m[2] != "" && compareNum(ph.Number, m[1]) == 0 && ph.Slug == m[2]
		},
		func(ph *Phase) bool { return ph.Slug != "" && strings.EqualFold(ph.Slug, a) },
	} {
		for _, ph := range p.Phases {
			if try(ph) {
				matches = append(matches, ph)
			}
		}
		if len(matches) > 0 {
			break
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		return nil, fmt.Errorf("phase %q is ambiguous: it matches %s; name the folder", arg, phaseNames(matches))
	case len(p.Phases) == 0 && len(p.ignored) > 0:
		return nil, fmt.Errorf("phase %q not found: %s has no folder named NN-name (03-auth), only %s, which hive does not read; rename them (see `hive lint`)", arg, PhasesDir, strings.Join(p.ignored, ", "))
	case len(p.Phases) == 0:
		return nil, fmt.Errorf("phase %q not found: %s has no phase folders; create %s/01-<name>/ with NN-MM-PLAN.md files", arg, PhasesDir, PhasesDir)
	}
	return nil, fmt.Errorf("phase %q not found; available phases: %s", arg, phaseNames(p.Phases))
}

func phaseNames(phs []*Phase) string {
	names := make([]string, len(phs))
	for i, ph := range phs {
		names[i] = path.Base(ph.Dir)
	}
	return strings.Join(names, ", ")
}

// Plan returns the plan with that id, or nil. "3-1" finds "03-01".
func (p *Phase) Plan(id string) *Plan {
	for _, pl := range p.Plans {
		if pl.ID == id {
			return pl
		}
	}
	for _, pl := range p.Plans {
		if normalizeDep(id, pl.ID) == pl.ID {
			return pl
		}
	}
	return nil
}

// SummaryPath is the repository-relative path of the plan's SUMMARY.md, which
// marks the plan done: the file LoadPhase matched to the plan, whatever GSD
// naming it follows, else NN-MM-SUMMARY.md next to the plan, where a SUMMARY
// still to be written goes.
func (p *Plan) SummaryPath() string {
	if p.summary != "" {
		return p.summary
	}
	return path.Join(path.Dir(p.Path), p.ID+"-SUMMARY.md")
}

// fromZero reads the waves of a phase that numbers them from 0 (a plan
// says wave: 0, as phases with GSD's "Wave 0" of test scaffolding do) one
// higher, since hive numbers waves from 1: wave 0 runs first, wave 1
// after it, and so on, and their depends_on agree with them. It notes
// this once, on the first such plan.
func fromZero(plans []*Plan) []Diagnostic {
	var first *Plan
	for _, p := range plans {
		if p.waveZero && first == nil {
			first = p
		}
	}
	if first == nil {
		return nil
	}
	for _, p := range plans {
		switch {
		case p.waveZero:
			p.Wave = 1
		case p.Wave > 0:
			p.Wave++
		}
	}
	return []Diagnostic{{Severity: SeverityNote, File: first.Path, Line: firstLine(first.Lines["wave"], 1),
		Message: "wave: 0: this phase numbers its waves from 0; hive numbers them from 1, so each wave here is read one higher (wave 0 is hive's wave 1)"}}
}
