package load

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

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
)

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

// NoPlanningError is Project's error for a folder without .planning/:
// the commands that start projects (hive init, /gsd:new-project) are the
// caller's to suggest, with the flags it was given.
type NoPlanningError struct{ Root string }

func (e *NoPlanningError) Error() string {
	return fmt.Sprintf("no .planning/ folder in %s: create .planning/phases/01-<name>/ with NN-MM-PLAN.md files (or run /gsd:new-project), or run hive from the repository root", e.Root)
}

// Project reads every phase under root/.planning/phases. Findings about
// files are diagnostics in the phases; the error is for I/O failures and for a
// repository without .planning/.
func Project(root string) (*plan.Project, error) {
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
	p := &plan.Project{Root: abs}
	entries, err := os.ReadDir(filepath.Join(abs, filepath.FromSlash(plan.PhasesDir)))
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil // a fresh project: planned later
	}
	if err != nil {
		return nil, fmt.Errorf("load project: read %s: %w", plan.PhasesDir, err)
	}
	code := projectCode(abs)
	for _, e := range entries {
		rel := plan.PhasesDir + "/" + e.Name()
		if !isDir(abs, rel, e) {
			if strings.HasSuffix(strings.ToUpper(e.Name()), "-PLAN.MD") {
				// A plan beside the phase folders, not in one: GSD does not
				// run it either, but its author may think it will.
				n := pad2(cmp.Or(digitsRE.FindString(e.Name()), "NN"))
				p.Diagnostics = append(p.Diagnostics, plan.Diagnostic{Severity: plan.SeverityNote, File: rel,
					Message: "a plan outside any phase folder; ignored (plans run from inside .planning/phases/NN-name/)",
					Fix:     fmt.Sprintf("move it into its phase's folder as %s/%s-<name>/%s-MM-PLAN.md, or delete it if it is an old draft", plan.PhasesDir, n, n)})
			}
			continue
		}
		_, _, dirCode, isPhase := plan.PhaseFolder(e.Name())
		if !isPhase || (dirCode != "" && !strings.EqualFold(dirCode, code)) {
			d := plan.Diagnostic{Severity: plan.SeverityNote, File: rel, Message: "not a phase folder (expected NN-name, e.g. 03-auth); ignored"}
			plans, finished := undone(filepath.Join(abs, filepath.FromSlash(rel)))
			if len(plans) > 0 && digitsRE.FindString(e.Name()) == "" {
				// ENH-D-moves/ENH-D-01-PLAN.md without its SUMMARY: a
				// plan whose folder has no phase number, which never runs.
				d.Severity = plan.SeverityWarning
				d.Message = fmt.Sprintf("holds %d plan(s) not done (%s), but hive reads phase folders named NN-name (03-auth) only; this one is ignored and those plans never run", len(plans), strings.Join(plans, ", "))
				d.Fix = "rename it NN-<name>, with a phase number not in use, and its plans NN-01-PLAN.md, NN-02-PLAN.md, ..."
				p.Ignored = append(p.Ignored, e.Name())
			} else if m := digitsRE.FindString(e.Name()); m != "" && len(plans) == 0 && finished > 0 {
				// v0.30-01-model-selection, whose plans are all done: read
				// or not, there is nothing in it to run.
				d.Message = fmt.Sprintf("named like a phase, but hive reads phase folders named NN-name (03-auth) only; ignored (its %d plan(s) are done: nothing to run)", finished)
				p.Ignored = append(p.Ignored, e.Name())
			} else if m != "" {
				// phase-01, "Phase 2": meant as a phase, whose plans
				// would silently never run.
				if n := numberBeforeSlugRE.FindStringSubmatch(e.Name()); n != nil {
					m = n[1] // v0.40-03-hooks: 03, not 0
				}
				d.Severity = plan.SeverityWarning
				d.Message = "named like a phase, but hive reads phase folders named NN-name (03-auth) with NN-MM-PLAN.md files directly inside; this one is ignored"
				d.Fix = fmt.Sprintf("rename it %s-<name> and name its plans %s-01-PLAN.md, %s-02-PLAN.md, ...", pad2(m), pad2(m), pad2(m))
				if dirCode != "" {
					d.Fix = fmt.Sprintf("set \"project_code\": %q in .planning/config.json (GSD's prefix of phase folders), or rename it %s", dirCode, strings.TrimPrefix(e.Name(), dirCode+"-"))
				}
				p.Ignored = append(p.Ignored, e.Name())
			}
			p.Diagnostics = append(p.Diagnostics, d)
			continue
		}
		ph, err := Phase(abs, rel)
		if err != nil {
			return nil, err
		}
		p.Phases = append(p.Phases, ph)
	}
	sort.SliceStable(p.Phases, func(i, j int) bool {
		if c := plan.CompareNum(p.Phases[i].Number, p.Phases[j].Number); c != 0 {
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
func sharedNumbers(phases []*plan.Phase) []plan.Diagnostic {
	var out []plan.Diagnostic
	for i := 0; i < len(phases); {
		j := i + 1
		for j < len(phases) && plan.CompareNum(phases[i].Number, phases[j].Number) == 0 {
			j++
		}
		if j-i > 1 {
			names := make([]string, j-i)
			for k := range names {
				names[k] = path.Base(phases[i+k].Dir)
			}
			n := phases[i].Number
			out = append(out, plan.Diagnostic{Severity: plan.SeverityWarning, File: phases[i+1].Dir,
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

// Phase reads one phase folder; dir is relative to root (an absolute dir
// inside root is accepted too). Plans that cannot be read are left out and
// reported in the phase's Diagnostics, as are stray files; only I/O fails.
// Waves are computed, but cross-plan checks are validate.Phase's job.
func Phase(root, dir string) (*plan.Phase, error) {
	if filepath.IsAbs(dir) {
		if rel, err := filepath.Rel(root, dir); err == nil {
			dir = rel
		}
	}
	dir = path.Clean(filepath.ToSlash(dir))
	name := path.Base(dir)
	ph := &plan.Phase{Dir: dir, Summaries: map[string]*plan.Summary{}}
	if n, slug, _, ok := plan.PhaseFolder(name); ok {
		ph.Number, ph.Slug = n, slug
	} else {
		ph.Slug = name
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, fmt.Errorf("load phase %s: %w", dir, err)
	}
	var summaries []*plan.Summary
	note := func(rel, msg string) {
		ph.Diagnostics = append(ph.Diagnostics, plan.Diagnostic{Severity: plan.SeverityNote, File: rel, Message: msg})
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
			p, ds := parse.Plan(rel, data)
			ph.Diagnostics = append(ph.Diagnostics, ds...)
			if p != nil {
				ph.Plans = append(ph.Plans, p)
			}
			continue
		}
		s, ds := parse.Summary(rel, data)
		ph.Diagnostics = append(ph.Diagnostics, ds...)
		summaries = append(summaries, s)
	}
	plan.SortPlans(ph.Plans)
	resolveDeps(ph)
	ph.Diagnostics = append(ph.Diagnostics, fromZero(ph.Plans)...)
	ph.Diagnostics = append(ph.Diagnostics, matchSummaries(ph, summaries)...)
	ph.Diagnostics = append(ph.Diagnostics, CheckRepoPaths(root, ph)...)
	plan.SortDiagnostics(ph.Diagnostics)
	_ = plan.ComputeWaves(ph.Plans) // a cycle is reported by validate.Phase
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
	case strings.HasSuffix(name, "-PLAN.md") && len(name) > len("-PLAN.md"), plan.IsDashName(name):
		return "plan"
	case strings.HasSuffix(name, "-SUMMARY.md") && len(name) > len("-SUMMARY.md"):
		return "summary"
	}
	return "stray"
}

// fromZero reads the waves of a phase that numbers them from 0 (a plan
// says wave: 0, as phases with GSD's "Wave 0" of test scaffolding do) one
// higher, since hive numbers waves from 1: wave 0 runs first, wave 1
// after it, and so on, and their depends_on agree with them. It notes
// this once, on the first such plan.
func fromZero(plans []*plan.Plan) []plan.Diagnostic {
	var first *plan.Plan
	for _, p := range plans {
		if p.WaveZero && first == nil {
			first = p
		}
	}
	if first == nil {
		return nil
	}
	for _, p := range plans {
		switch {
		case p.WaveZero:
			p.Wave = 1
		case p.Wave > 0:
			p.Wave++
		}
	}
	return []plan.Diagnostic{{Severity: plan.SeverityNote, File: first.Path, Line: plan.FirstLine(first.Lines["wave"], 1),
		Message: "wave: 0: this phase numbers its waves from 0; hive numbers them from 1, so each wave here is read one higher (wave 0 is hive's wave 1)"}}
}
