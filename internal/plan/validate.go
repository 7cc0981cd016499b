package plan

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// validTaskTypes lists the task types an executor knows how to run.
var validTaskTypes = []string{TaskAuto, TaskTDD, TaskHumanVerify, TaskDecision, TaskHumanAction}

// Validate runs the cross-plan checks of a phase and sets every plan's
// ComputedWave. It sorts ph.Plans by id. Every error names the file, the line
// and the fix; a phase without errors can be scheduled. A dependency on a
// plan of an earlier phase is taken on trust here; Project.Validate looks
// it up.
func Validate(ph *Phase) []Diagnostic { return validate(ph, nil) }

// Validate is Validate(ph) with the whole project at hand: a dependency on
// a plan of an earlier phase must name a plan that exists there (or in an
// archived milestone), and is a warning while that plan is not done.
func (p *Project) Validate(ph *Phase) []Diagnostic { return validate(ph, p) }

func validate(ph *Phase, proj *Project) []Diagnostic {
	sortPlans(ph.Plans)
	var out []Diagnostic
	add := func(sev Severity, p *Plan, line int, fix, format string, args ...any) {
		out = append(out, Diagnostic{Severity: sev, File: p.Path, Line: line, Message: fmt.Sprintf(format, args...), Fix: fix})
	}
	byID := map[string]*Plan{}
	seen := map[string]*Plan{} // canonical id -> first plan
	for _, p := range ph.Plans {
		key := canonID(p.ID)
		if first, dup := seen[key]; dup {
			add(SeverityError, p, firstLine(p.Lines["plan"], 1), "rename one of the files so that every plan has its own NN-MM number",
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
	for _, cyc := range findCycles(ph.Plans) {
		first := cyc[0]
		add(SeverityError, first, depLine(first, cyc[len(cyc)-1].ID), "remove one of these depends_on entries so that the plans can run in some order",
			"dependency cycle: %s", describeCycle(cyc))
	}
	_ = ComputeWaves(ph.Plans) // the cycles were reported above
	checkWaves(ph.Plans, byID, add)
	checkOverlaps(ph.Plans, func(p *Plan) bool {
		s := ph.Summaries[p.ID]
		return s != nil && s.SelfCheck != "FAILED"
	}, add)
	sortDiagnostics(out)
	return out
}

// phaseDependency reports whether a depends_on entry names a whole phase
// by its folder ("01-foundation"), not a plan, and which: a phase before
// the plan's own is done before it starts, since phases run in order.
func phaseDependency(d string) (number string, ok bool) {
	if m := phaseWordRE.FindStringSubmatch(d); m != nil {
		return m[1], true // "Phase 63"
	}
	m := phaseDirRE.FindStringSubmatch(d)
	if m == nil || m[2] == "" || strings.IndexFunc(m[2], unicode.IsLetter) < 0 {
		return "", false
	}
	if _, _, isPlan := planKey(d); isPlan {
		return "", false
	}
	return m[1], true
}

// phaseWordRE is a phase named in words: "Phase 63", "phase-2.1".
var phaseWordRE = regexp.MustCompile(`(?i)^phase[ _-]?(\d+(?:\.\d+)*)$`)

// NamesPhaseUpTo reports whether depends_on entry d names a whole phase
// (phaseDependency) that is phase or one before it: nothing a plan of
// phase waits for (lint says which).
func NamesPhaseUpTo(d, phase string) bool {
	n, ok := phaseDependency(d)
	return ok && compareNum(n, phase) <= 0
}

// doneAdd is add for the paths of a plan its SUMMARY marks done: no agent
// is ever sent to them, so what would stop the phase is a warning (a
// finished plan that changed the user's ~/.claude files, say).
func doneAdd(add addFunc, s *Summary) addFunc {
	return func(sev Severity, p *Plan, line int, fix, format string, args ...any) {
		if sev == SeverityError {
			sev = SeverityWarning
			format += "; this plan is done (%s), so hive never runs it"
			args = append(args, path.Base(s.Path))
		}
		add(sev, p, line, fix, format, args...)
	}
}

func canonID(id string) string {
	ph, n := splitID(id)
	if ph == "" {
		return canonNum(n)
	}
	return canonNum(ph) + "-" + canonNum(n)
}

func firstLine(lines ...int) int {
	for _, l := range lines {
		if l > 0 {
			return l
		}
	}
	return 0
}

// depLine is the line of dependency dep in p's frontmatter.
func depLine(p *Plan, dep string) int {
	for i, d := range p.DependsOn {
		if d == dep {
			return firstLine(p.Lines[fmt.Sprintf("depends_on[%d]", i)], p.Lines["depends_on"], 1)
		}
	}
	return firstLine(p.Lines["depends_on"], 1)
}

type addFunc func(sev Severity, p *Plan, line int, fix, format string, args ...any)

func checkDeps(p *Plan, ph *Phase, byID map[string]*Plan, proj *Project, add addFunc) {
	ownPhase, _, ok := planKey(p.ID)
	if !ok {
		ownPhase = canonNum(ph.Number)
	}
	for i, d := range p.DependsOn {
		line := firstLine(p.Lines[fmt.Sprintf("depends_on[%d]", i)], p.Lines["depends_on"], 1)
		if byID[d] != nil {
			continue
		}
		depPhase, _, ok := planKey(d)
		if ok && isNumLike(depPhase) && isNumLike(ownPhase) && compareNum(depPhase, ownPhase) != 0 {
			checkForeignDep(p, d, depPhase, line, proj, add)
			continue
		}
		if n, ok := phaseDependency(d); ok && isNumLike(ownPhase) && compareNum(n, ownPhase) <= 0 {
			if compareNum(n, ownPhase) < 0 {
				add(SeverityNote, p, line, "", "depends_on names phase %s (%s), which runs before this one: nothing to wait for", n, d)
			} else {
				add(SeverityWarning, p, line, fmt.Sprintf("remove %s from depends_on, or name the plans of this phase it needs", d),
					"depends_on names this plan's own phase (%s); hive ignores it", d)
			}
			continue
		}
		if s := orphanSummary(ph, d); s != nil && s.SelfCheck != "FAILED" {
			// Its PLAN.md was cleaned away once it was done: what
			// depends on it waits for nothing.
			add(SeverityNote, p, line, "", "depends_on names %s, whose PLAN.md is gone; its SUMMARY (%s) says it is done", d, path.Base(s.Path))
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
			add(SeverityWarning, p, line, fix, "depends_on names unknown plan %s; this plan is done (%s), so hive never runs it and nothing waits for %s", d, path.Base(s.Path), d)
			continue
		}
		add(SeverityError, p, line, fix, "depends_on names unknown plan %s", d)
	}
}

// checkForeignDep checks a dependency on a plan of another phase. A later
// phase runs after this one, which is an error; an earlier one must hold
// the plan, done (hive refuses to start the phase before) or not yet.
func checkForeignDep(p *Plan, d, depPhase string, line int, proj *Project, add addFunc) {
	ownPhase, _, _ := planKey(p.ID)
	switch {
	case compareNum(depPhase, ownPhase) > 0:
		add(SeverityError, p, line, "move this plan to a later phase, or remove the dependency",
			"depends_on names %s, a plan of a later phase, which runs after this one", d)
		return
	case proj == nil:
		add(SeverityNote, p, line, "", "depends_on names %s of an earlier phase; phases run in order, so it is done first", d)
		return
	}
	ref, found := proj.LookupPlan(d)
	switch {
	case found && ref.Done():
	case found:
		where := ref.Path
		if where == "" {
			where = ref.Summary.Path
		}
		add(SeverityWarning, p, line, fmt.Sprintf("run phase %s first", depPhase),
			"depends_on names %s (%s), which is not done yet; hive runs this phase once it is", d, where)
	default:
		fix := fmt.Sprintf("remove %s from depends_on", d)
		if c := closestID(d, proj.closeIDs(d)); c != "" {
			fix = fmt.Sprintf("replace %s with %s, the closest plan id of phase %s", d, c, depPhase)
		}
		add(SeverityError, p, line, fix, "depends_on names %s, which is no plan of phase %s (looked in %s and %s)", d, depPhase, PhasesDir, MilestonesDir)
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

func checkFiles(p *Plan, add addFunc) {
	for i, f := range p.FilesModified {
		line := firstLine(p.Lines[fmt.Sprintf("files_modified[%d]", i)], p.Lines["files_modified"], 1)
		if strings.TrimSpace(f) == "" {
			add(SeverityError, p, line, "remove the empty entry", "files_modified entry %d is empty", i+1)
			continue
		}
		if _, err := SafeRelPath(f); err != nil {
			add(SeverityError, p, line, "list only files inside the repository, relative to its root, such as src/app.ts", "files_modified: %v", err)
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
func checkPlanPaths(p *Plan, add addFunc) {
	for _, t := range p.Tasks {
		for _, f := range t.Files {
			if _, err := SafeRelPath(f); err != nil {
				add(SeverityError, p, t.Line, pathFix, "task %d <files>: %v", t.Number, err)
			}
		}
	}
	mhLine := func(key string) int { return firstLine(p.Lines[key], p.Lines["must_haves"], 1) }
	for i, a := range p.MustHaves.Artifacts {
		if strings.TrimSpace(a.Path) == "" {
			continue
		}
		if _, err := SafeRelPath(a.Path); err != nil {
			add(SeverityError, p, mhLine(fmt.Sprintf("must_haves.artifacts[%d]", i)), pathFix, "must_haves.artifacts: %v", err)
		}
	}
	for i, k := range p.MustHaves.KeyLinks {
		for _, side := range []struct{ name, ref string }{{"from", k.From}, {"to", k.To}} {
			file, _ := SplitKeyLinkRef(side.ref)
			if file == "" {
				continue
			}
			if _, err := SafeRelPath(file); err != nil {
				line := mhLine(fmt.Sprintf("must_haves.key_links[%d]", i))
				if side.name == "to" {
					// A link's target is where the code reaches, which may
					// well be outside the repository (the user's settings
					// file a CLI writes); hive never reads it.
					add(SeverityWarning, p, line, "leave it if the code really reaches outside the repository; else name the file relative to the repository root",
						"must_haves.key_links to: %v; hive never reads it, so this link's target goes unchecked", err)
					continue
				}
				add(SeverityError, p, line, pathFix, "must_haves.key_links %s: %v", side.name, err)
			}
		}
	}
}

func checkTasks(p *Plan, add addFunc) {
	var checkpoints []Task
	for _, t := range p.Tasks {
		switch {
		case strings.HasPrefix(t.Type, checkpointTypePrefix) && !isValidTaskType(t.Type):
			add(SeverityError, p, t.Line, "use one of: "+strings.Join(validTaskTypes, ", "),
				"task %d has unknown checkpoint kind %q; hive would not know what to ask the human", t.Number, t.Type)
			continue
		case !isValidTaskType(t.Type):
			// A kind of work ("implementation", "test") is run as auto,
			// which is what it means; a checkpoint's kind without its
			// prefix ("human-verify") would not stop, so that is a warning.
			sev := SeverityNote
			if isValidTaskType(checkpointTypePrefix+t.Type) || strings.Contains(strings.ToLower(t.Type), "checkpoint") || strings.Contains(strings.ToLower(t.Type), "tdd") {
				sev = SeverityWarning
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
	add(SeverityWarning, p, line, "set autonomous: false",
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

func checkWaves(plans []*Plan, byID map[string]*Plan, add addFunc) {
	for _, p := range plans {
		if p.Wave == 0 || p.ComputedWave == 0 {
			continue
		}
		var hi *Plan
		for _, d := range p.DependsOn {
			if q := byID[d]; q != nil && q != p && (hi == nil || q.ComputedWave > hi.ComputedWave) {
				hi = q
			}
		}
		if hi != nil && p.Wave <= hi.ComputedWave {
			add(SeverityWarning, p, firstLine(p.Lines["wave"], 1), fmt.Sprintf("set wave: %d", hi.ComputedWave+1),
				"wave: %d contradicts depends_on: %s runs in wave %d, so hive schedules this plan by its dependencies, in wave %d",
				p.Wave, hi.ID, hi.ComputedWave, p.ComputedWave)
		}
	}
}

// checkOverlaps flags plans of one wave that modify the same file. GSD runs
// them side by side; hive runs them one after the other in a shared tree,
// but in worktrees they run at once and may collide at merge.
func checkOverlaps(plans []*Plan, done func(*Plan) bool, add addFunc) {
	// For each wave and file, the plans still to run that modify it: plans
	// that are done never run again, so they conflict with nothing.
	type waveFile struct {
		wave int
		file string
	}
	by := map[waveFile][]*Plan{}
	var keys []waveFile
	for _, p := range plans {
		if p.ComputedWave == 0 || done(p) {
			continue
		}
		seen := map[string]bool{}
		for _, f := range p.FilesModified {
			c, err := SafeRelPath(f)
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
		plans []*Plan
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
			add(SeverityWarning, b, firstLine(b.Lines["files_modified"], 1),
				fmt.Sprintf("make %s depend on %s (add %q to its depends_on), or split the file's changes", b.ID, a.ID, a.ID),
				"%s and %s both modify %s in wave %d; in worktrees they run in parallel and may conflict at merge",
				a.ID, b.ID, files, g.wave)
			continue
		}
		ids := make([]string, len(g.plans))
		for i, p := range g.plans {
			ids[i] = p.ID
		}
		add(SeverityWarning, b, firstLine(b.Lines["files_modified"], 1),
			fmt.Sprintf("chain them with depends_on (%s on %s, and so on), or split the file's changes", g.plans[1].ID, a.ID),
			"%s all modify %s in wave %d; in worktrees they run in parallel and may conflict at merge",
			strings.Join(ids, ", "), files, g.wave)
	}
}

// ComputeWaves sets ComputedWave on every plan: the declared wave when it is
// later than every dependency's, else one after the latest dependency, 1 for a
// plan without dependencies. Dependencies outside plans are ignored (earlier
// phases are done). Plans in a cycle, and plans after one, get 0 and the error
// describes the first cycle.
func ComputeWaves(plans []*Plan) error {
	byID := map[string]*Plan{}
	for _, p := range plans {
		if byID[p.ID] == nil {
			byID[p.ID] = p
		}
	}
	cycles := findCycles(plans)
	inCycle := map[*Plan]bool{}
	for _, c := range cycles {
		for _, p := range c {
			inCycle[p] = true
		}
	}
	done := map[*Plan]bool{}
	var wave func(p *Plan) int
	wave = func(p *Plan) int {
		if done[p] {
			return p.ComputedWave
		}
		done[p] = true
		p.ComputedWave = 0
		if inCycle[p] {
			return 0
		}
		hi := 0
		for _, d := range p.DependsOn {
			q := byID[d]
			if q == nil {
				continue
			}
			w := wave(q)
			if w == 0 {
				return 0 // after a cycle: no wave can be trusted
			}
			hi = max(hi, w)
		}
		p.ComputedWave = hi + 1
		if p.Wave > hi {
			p.ComputedWave = p.Wave
		}
		return p.ComputedWave
	}
	for _, p := range plans {
		wave(p)
	}
	if len(cycles) > 0 {
		return fmt.Errorf("dependency cycle: %s", describeCycle(cycles[0]))
	}
	return nil
}

// describeCycle renders "01-02 (path) → 01-03 (path) → 01-02".
func describeCycle(c []*Plan) string {
	var b strings.Builder
	for _, p := range c {
		fmt.Fprintf(&b, "%s (%s) → ", p.ID, p.Path)
	}
	b.WriteString(c[0].ID)
	return b.String()
}

// findCycles returns one cycle per strongly connected component of the
// depends_on graph that has one, each starting at its smallest id and listed in
// the order the dependencies are followed.
func findCycles(plans []*Plan) [][]*Plan {
	sorted := append([]*Plan(nil), plans...)
	sortPlans(sorted)
	byID := map[string]*Plan{}
	for _, p := range sorted {
		if byID[p.ID] == nil {
			byID[p.ID] = p
		}
	}
	deps := func(p *Plan) []*Plan {
		var out []*Plan
		for _, d := range p.DependsOn {
			if q := byID[d]; q != nil {
				out = append(out, q)
			}
		}
		return out
	}
	// Tarjan's algorithm.
	index, low := map[*Plan]int{}, map[*Plan]int{}
	onStack := map[*Plan]bool{}
	var stack []*Plan
	var sccs [][]*Plan
	next := 0
	var strong func(p *Plan)
	strong = func(p *Plan) {
		index[p], low[p] = next, next
		next++
		stack = append(stack, p)
		onStack[p] = true
		for _, q := range deps(p) {
			if _, seen := index[q]; !seen {
				strong(q)
				low[p] = min(low[p], low[q])
			} else if onStack[q] {
				low[p] = min(low[p], index[q])
			}
		}
		if low[p] == index[p] {
			var scc []*Plan
			for {
				q := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[q] = false
				scc = append(scc, q)
				if q == p {
					break
				}
			}
			sccs = append(sccs, scc)
		}
	}
	for _, p := range sorted {
		if _, seen := index[p]; !seen {
			strong(p)
		}
	}
	var cycles [][]*Plan
	for _, scc := range sccs {
		member := map[*Plan]bool{}
		for _, p := range scc {
			member[p] = true
		}
		start := scc[0]
		for _, p := range scc {
			if compareID(p.ID, start.ID) < 0 {
				start = p
			}
		}
		if c := shortestCycle(start, member, deps); c != nil {
			cycles = append(cycles, c)
		}
	}
	sort.Slice(cycles, func(i, j int) bool { return compareID(cycles[i][0].ID, cycles[j][0].ID) < 0 })
	return cycles
}

// shortestCycle finds by breadth-first search the shortest path from start
// back to itself inside one component, or nil when there is none.
func shortestCycle(start *Plan, member map[*Plan]bool, deps func(*Plan) []*Plan) []*Plan {
	parent := map[*Plan]*Plan{}
	queue := []*Plan{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range deps(p) {
			if !member[q] {
				continue
			}
			if q == start {
				var c []*Plan
				for x := p; x != start; x = parent[x] {
					c = append(c, x)
				}
				c = append(c, start)
				for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
					c[i], c[j] = c[j], c[i]
				}
				return c
			}
			if _, seen := parent[q]; !seen {
				parent[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}
