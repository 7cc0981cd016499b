package validate

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/planpath"
)

// validTaskTypes lists the task types an executor knows how to run.
var validTaskTypes = []string{plan.TaskAuto, plan.TaskTDD, plan.TaskHumanVerify, plan.TaskDecision, plan.TaskHumanAction}

// Phase runs the cross-plan checks of a phase and sets every plan's
// ComputedWave. It sorts ph.Plans by id. Every error names the file, the line
// and the fix; a phase without errors can be scheduled. A dependency on a
// plan of an earlier phase is taken on trust here; InProject looks it up.
func Phase(ph *plan.Phase) []plan.Diagnostic { return validate(ph, nil) }

// InProject is Phase(ph) with the whole project at hand: a dependency on
// a plan of an earlier phase must name a plan that exists there (or in an
// archived milestone), and is a warning while that plan is not done.
func InProject(p *plan.Project, ph *plan.Phase) []plan.Diagnostic { return validate(ph, p) }

func validate(ph *plan.Phase, proj *plan.Project) []plan.Diagnostic {
	plan.SortPlans(ph.Plans)
	var out []plan.Diagnostic
	add := func(sev plan.Severity, p *plan.Plan, line int, fix, format string, args ...any) {
		out = append(out, plan.Diagnostic{Severity: sev, File: p.Path, Line: line, Message: fmt.Sprintf(format, args...), Fix: fix})
	}
	byID := map[string]*plan.Plan{}
	seen := map[string]*plan.Plan{} // canonical id -> first plan
	for _, p := range ph.Plans {
		key := canonID(p.ID)
		if first, dup := seen[key]; dup {
			add(plan.SeverityError, p, plan.FirstLine(p.Lines["plan"], 1), "rename one of the files so that every plan has its own NN-MM number",
				"duplicate plan id %s: %s has the same id", p.ID, first.Path)
			continue
		}
		seen[key], byID[p.ID] = p, p
	}
	for _, p := range ph.Plans {
		checkDeps(p, ph, byID, proj, add)
		paths := add
		if s := ph.Summaries[p.ID]; s != nil && s.SelfCheck != "FAILED" {
			paths = doneAdd(add, s)
		}
		checkFiles(p, paths)
		checkPlanPaths(p, paths)
		checkTasks(p, add)
	}
	for _, cyc := range plan.FindCycles(ph.Plans) {
		first := cyc[0]
		add(plan.SeverityError, first, depLine(first, cyc[len(cyc)-1].ID), "remove one of these depends_on entries so that the plans can run in some order",
			"dependency cycle: %s", plan.DescribeCycle(cyc))
	}
	_ = plan.ComputeWaves(ph.Plans) // the cycles were reported above
	checkWaves(ph.Plans, byID, add)
	checkOverlaps(ph.Plans, func(p *plan.Plan) bool {
		s := ph.Summaries[p.ID]
		return s != nil && s.SelfCheck != "FAILED"
	}, add)
	plan.SortDiagnostics(out)
	return out
}

// doneAdd is add for the paths of a plan its SUMMARY marks done: no agent
// is ever sent to them, so what would stop the phase is a warning (a
// finished plan that changed the user's ~/.claude files, say).
func doneAdd(add addFunc, s *plan.Summary) addFunc {
	return func(sev plan.Severity, p *plan.Plan, line int, fix, format string, args ...any) {
		if sev == plan.SeverityError {
			sev = plan.SeverityWarning
			format += "; this plan is done (%s), so hive never runs it"
			args = append(args, path.Base(s.Path))
		}
		add(sev, p, line, fix, format, args...)
	}
}

func canonID(id string) string {
	ph, n := plan.SplitID(id)
	if ph == "" {
		return plan.CanonNum(n)
	}
	return plan.CanonNum(ph) + "-" + plan.CanonNum(n)
}

// depLine is the line of dependency dep in p's frontmatter.
func depLine(p *plan.Plan, dep string) int {
	for i, d := range p.DependsOn {
		if d == dep {
			return plan.FirstLine(p.Lines[fmt.Sprintf("depends_on[%d]", i)], p.Lines["depends_on"], 1)
		}
	}
	return plan.FirstLine(p.Lines["depends_on"], 1)
}

type addFunc func(sev plan.Severity, p *plan.Plan, line int, fix, format string, args ...any)

func checkDeps(p *plan.Plan, ph *plan.Phase, byID map[string]*plan.Plan, proj *plan.Project, add addFunc) {
	ownPhase, _, ok := plan.Key(p.ID)
	if !ok {
		ownPhase = plan.CanonNum(ph.Number)
	}
	for i, d := range p.DependsOn {
		line := plan.FirstLine(p.Lines[fmt.Sprintf("depends_on[%d]", i)], p.Lines["depends_on"], 1)
		if byID[d] != nil {
			continue
		}
		depPhase, _, ok := plan.Key(d)
		if ok && plan.IsNumLike(depPhase) && plan.IsNumLike(ownPhase) && plan.CompareNum(depPhase, ownPhase) != 0 {
			checkForeignDep(p, d, depPhase, line, proj, add)
			continue
		}
		if n, ok := plan.PhaseDependency(d); ok && plan.IsNumLike(ownPhase) && plan.CompareNum(n, ownPhase) <= 0 {
			if plan.CompareNum(n, ownPhase) < 0 {
				add(plan.SeverityNote, p, line, "", "depends_on names phase %s (%s), which runs before this one: nothing to wait for", n, d)
			} else {
				add(plan.SeverityWarning, p, line, fmt.Sprintf("remove %s from depends_on, or name the plans of this phase it needs", d),
					"depends_on names this plan's own phase (%s); hive ignores it", d)
			}
			continue
		}
		if s := load.OrphanSummary(ph, d); s != nil && s.SelfCheck != "FAILED" {
			// Its PLAN.md was cleaned away once it was done: what
			// depends on it waits for nothing.
			add(plan.SeverityNote, p, line, "", "depends_on names %s, whose PLAN.md is gone; its SUMMARY (%s) says it is done", d, path.Base(s.Path))
			continue
		}
		fix := fmt.Sprintf("remove %s from depends_on", d)
		var ids []string
		for _, q := range ph.Plans {
			if q != p {
				ids = append(ids, q.ID)
			}
		}
		if c := closestID(d, ids); c != "" {
			fix = fmt.Sprintf("replace %s with %s, the closest plan id in this phase", d, c)
		}
		if s := ph.Summaries[p.ID]; s != nil && s.SelfCheck != "FAILED" {
			// A finished plan whose siblings' files were cleaned away
			// after the phase: it never runs again, so nothing waits.
			add(plan.SeverityWarning, p, line, fix, "depends_on names unknown plan %s; this plan is done (%s), so hive never runs it and nothing waits for %s", d, path.Base(s.Path), d)
			continue
		}
		add(plan.SeverityError, p, line, fix, "depends_on names unknown plan %s", d)
	}
}

// checkForeignDep checks a dependency on a plan of another phase. A later
// phase runs after this one, which is an error; an earlier one must hold
// the plan, done (hive refuses to start the phase before) or not yet.
func checkForeignDep(p *plan.Plan, d, depPhase string, line int, proj *plan.Project, add addFunc) {
	ownPhase, _, _ := plan.Key(p.ID)
	switch {
	case plan.CompareNum(depPhase, ownPhase) > 0:
		add(plan.SeverityError, p, line, "move this plan to a later phase, or remove the dependency",
			"depends_on names %s, a plan of a later phase, which runs after this one", d)
		return
	case proj == nil:
		add(plan.SeverityNote, p, line, "", "depends_on names %s of an earlier phase; phases run in order, so it is done first", d)
		return
	}
	ref, found := load.LookupPlan(proj, d)
	switch {
	case found && ref.Done():
	case found:
		where := ref.Path
		if where == "" {
			where = ref.Summary.Path
		}
		add(plan.SeverityWarning, p, line, fmt.Sprintf("run phase %s first", depPhase),
			"depends_on names %s (%s), which is not done yet; hive runs this phase once it is", d, where)
	default:
		fix := fmt.Sprintf("remove %s from depends_on", d)
		if c := closestID(d, load.CloseIDs(proj, d)); c != "" {
			fix = fmt.Sprintf("replace %s with %s, the closest plan id of phase %s", d, c, depPhase)
		}
		add(plan.SeverityError, p, line, fix, "depends_on names %s, which is no plan of phase %s (looked in %s and %s)", d, depPhase, plan.PhasesDir, plan.MilestonesDir)
	}
}

// maxSuggestDistance bounds how far a "did you mean" id may be from what was
// written: beyond a typo or two, a suggestion misleads more than it helps.
const maxSuggestDistance = 2

// closestID suggests the id of ids nearest to id, or "" when none is a
// likely typo of it.
func closestID(id string, ids []string) string {
	best, bestD := "", maxSuggestDistance+1
	for _, q := range ids {
		if d := editDistance(id, q); d < bestD {
			best, bestD = q, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func checkFiles(p *plan.Plan, add addFunc) {
	for i, f := range p.FilesModified {
		line := plan.FirstLine(p.Lines[fmt.Sprintf("files_modified[%d]", i)], p.Lines["files_modified"], 1)
		if strings.TrimSpace(f) == "" {
			add(plan.SeverityError, p, line, "remove the empty entry", "files_modified entry %d is empty", i+1)
			continue
		}
		if _, err := planpath.SafeRelPath(f); err != nil {
			add(plan.SeverityError, p, line, "list only files inside the repository, relative to its root, such as src/app.ts", "files_modified: %v", err)
		}
	}
}

// checkTasks tells apart the task types hive cannot run right (an unknown
// checkpoint kind: it would not know how to ask the human) from what GSD
// runs anyway: another task type is run like auto, and a checkpoint in an
// autonomous plan still stops the plan.
const pathFix = "name only files inside the repository, relative to its root, such as src/app.ts"

// checkPlanPaths checks every other path a plan names for what an agent
// must never be sent to: task <files>, must_haves artifacts, and the files
// of key links (their symbols and prose are not paths, see SplitKeyLinkRef).
func checkPlanPaths(p *plan.Plan, add addFunc) {
	for _, t := range p.Tasks {
		for _, f := range t.Files {
			if _, err := planpath.SafeRelPath(f); err != nil {
				add(plan.SeverityError, p, t.Line, pathFix, "task %d <files>: %v", t.Number, err)
			}
		}
	}
	mhLine := func(key string) int { return plan.FirstLine(p.Lines[key], p.Lines["must_haves"], 1) }
	for i, a := range p.MustHaves.Artifacts {
		if strings.TrimSpace(a.Path) == "" {
			continue
		}
		if _, err := planpath.SafeRelPath(a.Path); err != nil {
			add(plan.SeverityError, p, mhLine(fmt.Sprintf("must_haves.artifacts[%d]", i)), pathFix, "must_haves.artifacts: %v", err)
		}
	}
	for i, k := range p.MustHaves.KeyLinks {
		for _, side := range []struct{ name, ref string }{{"from", k.From}, {"to", k.To}} {
			file, _ := planpath.SplitKeyLinkRef(side.ref)
			if file == "" {
				continue
			}
			if _, err := planpath.SafeRelPath(file); err != nil {
				line := mhLine(fmt.Sprintf("must_haves.key_links[%d]", i))
				if side.name == "to" {
					// A link's target is where the code reaches, which may
					// well be outside the repository (the user's settings
					// file a CLI writes); hive never reads it.
					add(plan.SeverityWarning, p, line, "leave it if the code really reaches outside the repository; else name the file relative to the repository root",
						"must_haves.key_links to: %v; hive never reads it, so this link's target goes unchecked", err)
					continue
				}
				add(plan.SeverityError, p, line, pathFix, "must_haves.key_links %s: %v", side.name, err)
			}
		}
	}
}

func checkTasks(p *plan.Plan, add addFunc) {
	var checkpoints []plan.Task
	for _, t := range p.Tasks {
		switch {
		case strings.HasPrefix(t.Type, plan.CheckpointTypePrefix) && !isValidTaskType(t.Type):
			add(plan.SeverityError, p, t.Line, "use one of: "+strings.Join(validTaskTypes, ", "),
				"task %d has unknown checkpoint kind %q; hive would not know what to ask the human", t.Number, t.Type)
			continue
		case !isValidTaskType(t.Type):
			// A kind of work ("implementation", "test") is run as auto,
			// which is what it means; a checkpoint's kind without its
			// prefix ("human-verify") would not stop, so that is a warning.
			sev := plan.SeverityNote
			if isValidTaskType(plan.CheckpointTypePrefix+t.Type) || strings.Contains(strings.ToLower(t.Type), "checkpoint") || strings.Contains(strings.ToLower(t.Type), "tdd") {
				sev = plan.SeverityWarning
			}
			add(sev, p, t.Line, "use one of: "+strings.Join(validTaskTypes, ", "),
				"task %d has type %q, which hive does not know; it runs it like auto", t.Number, t.Type)
			continue
		}
		if t.IsCheckpoint() {
			checkpoints = append(checkpoints, t)
		}
	}
	if len(checkpoints) == 0 || !p.Autonomous {
		return
	}
	t := checkpoints[0]
	how := "autonomous defaults to true"
	line := t.Line
	if l := p.Lines["autonomous"]; l > 0 {
		how, line = fmt.Sprintf("autonomous: true at line %d", l), l
	}
	add(plan.SeverityWarning, p, line, "set autonomous: false",
		"task %d is a %s checkpoint but the plan is autonomous (%s); hive stops at the checkpoint anyway", t.Number, t.Type, how)
}

func isValidTaskType(s string) bool {
	for _, v := range validTaskTypes {
		if s == v {
			return true
		}
	}
	return false
}

func checkWaves(plans []*plan.Plan, byID map[string]*plan.Plan, add addFunc) {
	for _, p := range plans {
		if p.Wave == 0 || p.ComputedWave == 0 {
			continue
		}
		var hi *plan.Plan
		for _, d := range p.DependsOn {
			if q := byID[d]; q != nil && q != p && (hi == nil || q.ComputedWave > hi.ComputedWave) {
				hi = q
			}
		}
		if hi != nil && p.Wave <= hi.ComputedWave {
			add(plan.SeverityWarning, p, plan.FirstLine(p.Lines["wave"], 1), fmt.Sprintf("set wave: %d", hi.ComputedWave+1),
				"wave: %d contradicts depends_on: %s runs in wave %d, so hive schedules this plan by its dependencies, in wave %d",
				p.Wave, hi.ID, hi.ComputedWave, p.ComputedWave)
		}
	}
}

// checkOverlaps flags plans of one wave that modify the same file. GSD runs
// them side by side; hive runs them one after the other in a shared tree,
// but in worktrees they run at once and may collide at merge.
func checkOverlaps(plans []*plan.Plan, done func(*plan.Plan) bool, add addFunc) {
	// For each wave and file, the plans still to run that modify it: plans
	// that are done never run again, so they conflict with nothing.
	type waveFile struct {
		wave int
		file string
	}
	by := map[waveFile][]*plan.Plan{}
	var keys []waveFile
	for _, p := range plans {
		if p.ComputedWave == 0 || done(p) {
			continue
		}
		seen := map[string]bool{}
		for _, f := range p.FilesModified {
			c, err := planpath.SafeRelPath(f)
			if err != nil || seen[c] {
				continue
			}
			seen[c] = true
			k := waveFile{p.ComputedWave, c}
			if by[k] == nil {
				keys = append(keys, k)
			}
			by[k] = append(by[k], p)
		}
	}
	// One warning for each set of plans, with every file they share.
	type group struct {
		plans []*plan.Plan
		files []string
		wave  int
	}
	groups := map[string]*group{}
	var order []string
	for _, k := range keys {
		ps := by[k]
		if len(ps) < 2 {
			continue
		}
		ids := make([]string, len(ps))
		for i, p := range ps {
			ids[i] = p.ID
		}
		key := fmt.Sprint(k.wave, ids)
		g := groups[key]
		if g == nil {
			g = &group{plans: ps, wave: k.wave}
			groups[key] = g
			order = append(order, key)
		}
		g.files = append(g.files, k.file)
	}
	for _, key := range order {
		g := groups[key]
		sort.Strings(g.files)
		files := strings.Join(g.files, ", ")
		a, b := g.plans[0], g.plans[len(g.plans)-1]
		if len(g.plans) == 2 {
			add(plan.SeverityWarning, b, plan.FirstLine(b.Lines["files_modified"], 1),
				fmt.Sprintf("make %s depend on %s (add %q to its depends_on), or split the file's changes", b.ID, a.ID, a.ID),
				"%s and %s both modify %s in wave %d; in worktrees they run in parallel and may conflict at merge",
				a.ID, b.ID, files, g.wave)
			continue
		}
		ids := make([]string, len(g.plans))
		for i, p := range g.plans {
			ids[i] = p.ID
		}
		add(plan.SeverityWarning, b, plan.FirstLine(b.Lines["files_modified"], 1),
			fmt.Sprintf("chain them with depends_on (%s on %s, and so on), or split the file's changes", g.plans[1].ID, a.ID),
			"%s all modify %s in wave %d; in worktrees they run in parallel and may conflict at merge",
			strings.Join(ids, ", "), files, g.wave)
	}
}
