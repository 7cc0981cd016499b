package plan

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// ParsePlan reads one PLAN.md. path is the repository-relative name used for
// Plan.Path, the plan id and diagnostics. The plan is nil only when its
// frontmatter cannot be read (unclosed, invalid YAML, not a mapping); every
// other problem is a diagnostic next to a usable plan. ParsePlan never panics.
func ParsePlan(path string, data []byte) (*Plan, []Diagnostic) {
	if path == "" {
		path = "PLAN.md"
	}
	ds := &diags{file: path}
	p := &Plan{ID: planID(path), Path: path, Type: "execute", Autonomous: true, Lines: map[string]int{}}
	doc, ok := splitDocument(data, ds)
	if !ok {
		return nil, ds.list
	}
	p.BodyLine = doc.bodyLine
	if !doc.hasFM && doc.fencedFrontmatter() {
		ds.warnf(doc.fmLine-1, "move it to the top of the file, between --- lines, where GSD's tools read it too",
			"frontmatter written as a ```yaml block, not between --- lines at the top; hive reads it")
	}
	if doc.hasFM {
		m, ok := doc.parseFrontmatter(ds)
		if !ok {
			return nil, ds.list
		}
		readPlanFrontmatter(p, doc, m, ds)
		doc.checkBudget(ds)
	} else {
		ds.warnf(1, "start the file with a --- block holding phase, plan, wave, depends_on, files_modified and autonomous",
			"no YAML frontmatter: hive assumes no dependencies and autonomous: true")
	}
	parsePlanBody(p, doc, ds)
	return p, ds.list
}

// planDashRE is the NN-PLAN-MM.md naming some GSD projects use
// (12.2-PLAN-01.md is plan 12.2-01), with plans lettered too and a slug
// after the plan (01-PLAN-A-scaffold.md is plan 01-A, whose SUMMARY is
// 01-A-SUMMARY.md).
var planDashRE = regexp.MustCompile(`^(\d+(?:\.\d+)*)-PLAN-(\d+[A-Za-z]?|[A-Z]\d*)(?:-[A-Za-z0-9][A-Za-z0-9_.-]*)?\.md$`)

// planID is the file name minus "-PLAN.md": the id other plans depend on.
func planID(p string) string {
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

// splitID splits "03-02" into "03" and "02", "02.1-01" into "02.1" and "01".
func splitID(id string) (phase, num string) {
	if i := strings.LastIndexByte(id, '-'); i >= 0 {
		return id[:i], id[i+1:]
	}
	return "", id
}

// canonNum drops leading zeros from every dot-separated part: "03" and "3" are
// the same phase, "02.1" and "2.1" too.
func canonNum(s string) string {
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

func isDigits(s string) bool {
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

// noneWord reports whether a depends_on value says there is no dependency
// in words ("none", "n/a", "-"), as hand-written plans do.
func noneWord(s string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(s), `"'`+"`")) {
	case "none", "n/a", "na", "-", "nothing", "null", "~":
		return true
	}
	return false
}

// documentDep reports whether a depends_on entry names a file that is no
// plan (".planning/STATE.md", "src/app.ts"): what an agent should read,
// written where the plans it waits for go.
func documentDep(s string) (string, bool) {
	s = strings.Trim(strings.TrimSpace(s), `"'`+"`")
	base := path.Base(strings.ReplaceAll(s, `\`, "/"))
	ext := strings.ToLower(path.Ext(base))
	_, _, planLike := planKey(strings.TrimSuffix(base, path.Ext(base)))
	switch {
	case planLike || strings.HasSuffix(strings.ToUpper(base), "-PLAN.MD") || planDashRE.MatchString(base):
		return "", false // "01-02.md" still names plan 01-02
	case ext == ".md" || (strings.ContainsAny(s, `/\`) && ext != "" && !isNumLike(strings.TrimPrefix(ext, "."))):
		return s, true
	}
	return "", false
}

// normalizeDep turns what people write in depends_on into a plan id: quotes,
// file names and bare numbers ("1" in plan 03-02 means 03-01) are all accepted,
// and a dependency in this plan's phase is re-spelled like this plan's id so that
// "3-1" and "03-01" name the same plan.
func normalizeDep(s, own string) string {
	s = strings.Trim(strings.TrimSpace(s), `"'`+"`")
	s = path.Base(strings.ReplaceAll(s, `\`, "/"))
	for _, suf := range []string{"-PLAN.md", "-PLAN", ".md"} {
		s = strings.TrimSuffix(s, suf)
	}
	if s == "" || s == "." || s == "/" {
		return ""
	}
	// "03-auth-02" (the phase slug in the id, as older GSD wrote them) is 03-02.
	if ph, n, slug, ok := planKeyRaw(s); ok && slug {
		s = ph + "-" + n
	}
	ownPhase, ownNum := splitID(own)
	pad := func(n string) string {
		if isDigits(n) && isDigits(ownNum) && len(n) < len(ownNum) {
			return strings.Repeat("0", len(ownNum)-len(n)) + n
		}
		return n
	}
	phase, num := splitID(s)
	switch {
	case phase == "" && isDigits(num) && ownPhase != "":
		return ownPhase + "-" + pad(num)
	case phase != "" && ownPhase != "" && canonNum(phase) == canonNum(ownPhase):
		return ownPhase + "-" + pad(num)
	}
	return s
}

// describe names the shape of a YAML value for error messages.
func describe(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	}
	return strconv.Quote(truncate(n.Value, 40))
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// knownQuiet are keys of real GSD plans that hive has no use for; they go to
// Extra without a note because every plan of some GSD versions has them.
var knownQuiet = map[string]bool{"gap_closure": true, "requirements_addressed": true}

func readPlanFrontmatter(p *Plan, doc *document, m *yaml.Node, ds *diags) {
	files, filesKey := 0, ""
	for _, k := range doc.keys(m) {
		if k.name == "" {
			ds.warnf(k.line, "use plain words as frontmatter keys", "frontmatter key is not plain text; ignored")
			continue
		}
		if prev, dup := p.Lines[k.name]; dup {
			ds.warnf(k.line, "remove one of them", "frontmatter key %q repeated (first at line %d); the last one wins", k.name, prev)
		}
		p.Lines[k.name] = k.line
		switch k.name {
		case "phase", "plan":
			s, ok := scalar(k.value)
			if !ok {
				ds.warnf(k.line, fmt.Sprintf("write %s: as a single value", k.name), "%s must be a single value, got %s; ignored (hive goes by the file name)", k.name, describe(k.value))
			}
			if k.name == "phase" {
				p.Phase = s
			} else {
				p.PlanNumber = s
			}
		case "type":
			s, ok := scalar(k.value)
			switch {
			case !ok:
				ds.warnf(k.line, "set type: execute or type: tdd", "type must be a single value, got %s; hive runs the plan like execute", describe(k.value))
			case s == "":
			case s == "execute" || s == "tdd":
				p.Type = s
			default:
				p.Type = s
				ds.notef(k.line, "use type: execute or type: tdd", "plan type %q is not one hive knows; it runs it like execute", s)
			}
		case "wave":
			readWave(p, k, ds)
		case "depends_on", "depends-on":
			items, ok := doc.list(k, ds)
			if !ok {
				ds.errorf(k.line, `write depends_on: ["01-01", "01-02"], the ids of the plans it needs, or depends_on: [] for none`, "depends_on must be a list of plan ids, got %s", describe(k.value))
				continue
			}
			p.DependsOn = nil
			if len(items) == 1 && noneWord(items[0].text) {
				p.Lines["depends_on"] = k.line // depends_on: none
				continue
			}
			for _, it := range items {
				// A hand-written scalar may hold several ids: "01-01, 01-02".
				for _, part := range strings.Split(it.text, ",") {
					if f, ok := documentDep(part); ok {
						ds.warnf(it.line, fmt.Sprintf("list plan ids in depends_on; a file for the agent to read belongs in <context>, as @%s", f),
							"depends_on names the file %s, not a plan; hive ignores it", f)
						continue
					}
					if id := normalizeDep(part, p.ID); id != "" {
						p.Lines[fmt.Sprintf("depends_on[%d]", len(p.DependsOn))] = it.line
						p.DependsOn = append(p.DependsOn, id)
					}
				}
			}
			p.Lines["depends_on"] = k.line
		case "files_modified", "files-modified":
			items, ok := doc.list(k, ds)
			if !ok {
				ds.errorf(k.line, "write files_modified: [path/one, path/two] with repository-relative paths", "%s must be a list of paths, got %s", k.name, describe(k.value))
				continue
			}
			if filesKey != "" && filesKey != k.name {
				ds.notef(k.line, "keep only files_modified", "both files_modified and files-modified are set; hive reads both")
			}
			if filesKey == k.name { // a repeated key: the last one wins, as for every key
				p.FilesModified, files = nil, 0
			}
			filesKey = k.name
			for _, it := range items {
				// People annotate entries as they do task <files>:
				// "apps/web/src/api/ (generated client)".
				f := it.text
				if c := cleanFile(f); c != "" && c != f {
					ds.notef(it.line, fmt.Sprintf("write %s alone; put the comment in the plan's body", c), "%s entry %q: hive reads it as %s", k.name, truncate(f, 80), c)
					f = c
				}
				p.Lines[fmt.Sprintf("files_modified[%d]", files)] = it.line
				p.FilesModified = append(p.FilesModified, f)
				files++
			}
			p.Lines["files_modified"] = k.line
		case "autonomous":
			if isNull(k.value) {
				continue
			}
			b, ok := boolean(k.value)
			if !ok {
				ds.warnf(k.line, "set autonomous: true (no checkpoints) or autonomous: false", "autonomous must be true or false, got %s; hive stops at the plan's checkpoint tasks whatever it says", describe(k.value))
				continue
			}
			p.Autonomous = b
		case "requirements":
			p.Requirements = doc.texts(k.value)
		case "user_setup":
			p.UserSetup = doc.value(k.value, 0)
		case "must_haves":
			p.MustHaves = readMustHaves(doc, k, p.Lines, ds)
		default:
			if p.Extra == nil {
				p.Extra = map[string]any{}
			}
			p.Extra[k.name] = doc.value(k.value, 0)
			if !knownQuiet[k.name] {
				ds.notef(k.line, "", "frontmatter key %q is not one hive uses; kept and ignored", k.name)
			}
		}
	}
	checkPlanNumber(p, ds)
}

func readWave(p *Plan, k fmKey, ds *diags) {
	const fix = "set wave: N with N ≥ 1 (or 0, for waves numbered from 0), or remove the line and let hive compute it from depends_on"
	s, ok := scalar(k.value)
	if !ok {
		ds.warnf(k.line, fix, "wave must be a whole number, got %s; hive computes the wave from depends_on", describe(k.value))
		return
	}
	if s == "" {
		return
	}
	n, err := strconv.Atoi(s)
	if err == nil && n == 0 {
		p.waveZero = true // the phase numbers its waves from 0: see fromZero
		return
	}
	if err != nil || n < 1 {
		ds.warnf(k.line, fix, "wave must be a whole number ≥ 0, got %q; hive computes the wave from depends_on", truncate(s, 40))
		return
	}
	p.Wave = n
}

// checkPlanNumber warns when "plan:" disagrees with the file name: the file name
// wins, because it is what other plans write in depends_on.
func checkPlanNumber(p *Plan, ds *diags) {
	if p.PlanNumber == "" {
		return
	}
	_, num, _, ok := planKeyRaw(p.ID)
	if !ok {
		// A name without a phase and plan number pair (02-content-bank):
		// the frontmatter's number is the plan's, as its SUMMARY names it.
		return
	}
	got := p.PlanNumber
	same := canonNum(got) == canonNum(num)
	if strings.Contains(got, "-") {
		same = normalizeDep(got, p.ID) == p.ID
	}
	if !same {
		ds.warnf(p.Lines["plan"], fmt.Sprintf("set plan: %s or rename the file", num),
			"frontmatter says plan: %s but the file name says %s; hive uses the file name", got, p.ID)
	}
}

// readMustHaves reads the goal-backward block; lines gets the line of every
// artifact and key link ("must_haves.artifacts[0]", "must_haves.key_links[1]").
func readMustHaves(doc *document, k fmKey, lines map[string]int, ds *diags) MustHaves {
	var mh MustHaves
	n := k.value
	if isNull(n) {
		return mh
	}
	if n.Kind == yaml.SequenceNode && allScalars(n) {
		// A list of statements: what must be true, the truths alone.
		mh.Truths = doc.texts(n)
		return mh
	}
	if n.Kind != yaml.MappingNode {
		ds.warnf(k.line, "write must_haves as a mapping with truths, artifacts and key_links", "must_haves is %s, not a mapping; ignored", describe(n))
		return mh
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := resolve(n.Content[i]), resolve(n.Content[i+1])
		if key == nil {
			continue
		}
		switch key.Value {
		case "truths":
			mh.Truths = doc.texts(val)
		case "artifacts":
			for _, it := range seq(val) {
				lines[fmt.Sprintf("must_haves.artifacts[%d]", len(mh.Artifacts))] = doc.nodeLine(it)
				if it.Kind == yaml.ScalarNode {
					mh.Artifacts = append(mh.Artifacts, Artifact{Path: strings.TrimSpace(it.Value)})
					continue
				}
				f := doc.fields(it)
				mh.Artifacts = append(mh.Artifacts, Artifact{Path: f["path"], Provides: f["provides"], Contains: f["contains"]})
			}
		case "key_links":
			for _, it := range seq(val) {
				lines[fmt.Sprintf("must_haves.key_links[%d]", len(mh.KeyLinks))] = doc.nodeLine(it)
				f := doc.fields(it)
				mh.KeyLinks = append(mh.KeyLinks, KeyLink{From: f["from"], To: f["to"], Via: f["via"], Pattern: f["pattern"]})
			}
		}
	}
	return mh
}

// allScalars reports whether every item of sequence n is a scalar.
func allScalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c = resolve(c); c == nil || c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

// seq returns the items of a sequence, or the value itself as a one-item list.
func seq(n *yaml.Node) []*yaml.Node {
	switch {
	case isNull(n):
		return nil
	case n.Kind == yaml.SequenceNode:
		var out []*yaml.Node
		for _, c := range n.Content {
			if c = resolve(c); c != nil {
				out = append(out, c)
			}
		}
		return out
	}
	return []*yaml.Node{n}
}

// fields reads a mapping as text fields; a list value is joined with ", ".
func (d *document) fields(n *yaml.Node) map[string]string {
	out := map[string]string{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode {
			out[k.Value] = d.flatten(resolve(n.Content[i+1]), 0)
		}
	}
	return out
}

// Body parsing.

var (
	taskChildren = map[string]bool{"name": true, "files": true, "read_first": true, "action": true, "verify": true,
		"acceptance_criteria": true, "done": true, "resume-signal": true, "decision": true, "context": true, "options": true}
	topKnown = map[string]bool{"objective": true, "context": true, "tasks": true, "task": true, "feature": true}
)

func parsePlanBody(p *Plan, doc *document, ds *diags) {
	body := doc.body
	sc := newScanner(body)
	line := func(off int) int { return doc.line(doc.bodyOff + off) }
	for _, el := range sc.children(0, len(body), true, topKnown) {
		switch el.name {
		case "objective":
			if p.Objective == "" {
				p.Objective = el.text(body)
			}
		case "context":
			if p.Context == "" {
				p.Context = el.text(body)
			}
		case "tasks":
			if !el.closed {
				ds.warnf(line(el.start), "add </tasks> after the last task", "<tasks> is never closed")
			}
		}
	}
	tasks := taskElements(sc, 0, len(body), true)
	hs := headings(body)
	if len(tasks) == 0 {
		p.Tasks = headingTasks(body, hs, line)
	}
	if len(tasks) == 0 && len(p.Tasks) == 0 {
		// Nothing outside code blocks: a plan whose author fenced its
		// tasks as ```xml is read from inside the fence.
		tasks = taskElements(sc, 0, len(body), false)
	}
	for _, el := range tasks {
		p.Tasks = append(p.Tasks, xmlTask(sc, el, len(p.Tasks)+1, line, ds))
	}
	if p.Objective == "" {
		p.Objective = sectionText(body, hs, "objective")
	}
	if p.Context == "" {
		p.Context = sectionText(body, hs, "context")
	}
	p.Name = planName(p, hs)
	if len(p.Tasks) == 0 {
		ds.warnf(p.BodyLine, `add <task type="auto"> elements inside <tasks>, or "## Task 1: name" sections`, "no tasks found")
	}
}

// taskElements are the <task> elements in [from, to), those inside
// <tasks> included; a TDD plan's <feature> blocks
// (get-shit-done/references/tdd.md) are tasks too. With fences, code
// blocks are skipped.
func taskElements(sc *scanner, from, to int, fences bool) []element {
	var tasks []element
	for _, el := range sc.children(from, to, fences, topKnown) {
		switch el.name {
		case "task", "feature":
			tasks = append(tasks, el)
		case "tasks":
			for _, t := range sc.children(el.inner, el.innerEnd, fences, map[string]bool{"task": true, "feature": true}) {
				if t.name == "task" || t.name == "feature" {
					tasks = append(tasks, t)
				}
			}
		}
	}
	return tasks
}

// leafFields are the task fields that hold text: one left unclosed ends
// where the next field of the task opens, not at the task's end (an
// unclosed <action> swallowed the <verify> and <done> after it).
var leafFields = []string{"name", "files", "read_first", "action", "verify", "acceptance_criteria", "done", "resume-signal"}

// taskFields are the fields of task el, in order.
func taskFields(sc *scanner, el element) []element {
	kids := sc.children(el.inner, el.innerEnd, false, taskChildren)
	for i := 0; i < len(kids); i++ {
		c := &kids[i]
		if c.closed || !slices.Contains(leafFields, c.name) {
			continue
		}
		cut := c.innerEnd
		for _, f := range leafFields {
			cut = min(cut, sc.nextOpen(f, c.inner, c.innerEnd))
		}
		if cut < c.innerEnd {
			c.innerEnd, c.end = cut, cut
			kids = append(kids[:i+1], sc.children(cut, el.innerEnd, false, taskChildren)...)
		}
	}
	return kids
}

func xmlTask(sc *scanner, el element, number int, line func(int) int, ds *diags) Task {
	body := sc.text
	t := Task{Number: number, Line: line(el.start), Attrs: el.attrs}
	if t.Attrs == nil {
		t.Attrs = map[string]string{}
	}
	t.Type = strings.TrimSpace(t.Attrs["type"])
	if t.Type == "" {
		t.Type = TaskAuto
	}
	t.Gate = strings.TrimSpace(t.Attrs["gate"])
	if el.name == "feature" {
		t.Type = TaskTDD
	}
	if !el.closed {
		ds.warnf(t.Line, fmt.Sprintf("add </%s> at the end of the task", el.name), "task %d: <%s> is never closed; it is read up to the next <%s>", number, el.name, el.name)
	}
	var decision, ctx, options *element
	for _, c := range taskFields(sc, el) {
		if !c.closed && taskChildren[c.name] {
			ds.warnf(line(c.start), fmt.Sprintf("add </%s>", c.name), "task %d: <%s> is never closed; it is read up to the next field of the task", number, c.name)
		}
		v := c.text(body)
		switch c.name {
		case "name":
			t.Name = v
		case "files":
			t.Files = splitFiles(v)
		case "read_first":
			t.ReadFirst = v
		case "action":
			t.Action = v
		case "verify":
			t.Verify = v
		case "acceptance_criteria":
			t.AcceptanceCriteria = v
		case "done":
			t.Done = v
		case "resume-signal":
			t.ResumeSignal = v
		case "decision":
			decision = &c
		case "context":
			ctx = &c
		case "options":
			options = &c
		default:
			addExtra(&t, c.name, v)
		}
	}
	if decision != nil || options != nil {
		t.Decision = readDecision(sc, decision, ctx, options)
	} else if ctx != nil {
		addExtra(&t, "context", ctx.text(body))
	}
	if el.name == "feature" && t.Action == "" {
		t.Action = t.Extra["implementation"]
	}
	if t.Name == "" {
		t.Name = fallbackName(t)
	}
	return t
}

// fallbackName names a task without <name>: checkpoints usually have none, and
// the human still needs a title for the question.
func fallbackName(t Task) string {
	cands := []string{t.Attrs["name"], t.Extra["what-built"], t.Action}
	if t.Decision != nil {
		cands = append([]string{t.Attrs["name"], t.Decision.Question}, cands[1:]...)
	}
	for _, c := range cands {
		if l, _, _ := strings.Cut(strings.TrimSpace(c), "\n"); strings.TrimSpace(l) != "" {
			return truncate(strings.TrimSpace(l), 100)
		}
	}
	return fmt.Sprintf("Task %d", t.Number)
}

func addExtra(t *Task, name, v string) {
	if t.Extra == nil {
		t.Extra = map[string]string{}
	}
	if prev := t.Extra[name]; prev != "" {
		v = prev + "\n\n" + v
	}
	t.Extra[name] = v
}

// readDecision accepts both layouts found in the wild: <context> and <options>
// inside <decision>, or next to it in the task.
func readDecision(sc *scanner, decision, ctx, options *element) *Decision {
	body := sc.text
	d := &Decision{}
	if decision != nil {
		var q strings.Builder
		pos := decision.inner
		for _, c := range sc.children(decision.inner, decision.innerEnd, false, nil) {
			switch c.name {
			case "context":
				ctx = &c
			case "options":
				options = &c
			default:
				continue
			}
			q.WriteString(body[pos:c.start])
			pos = c.end
		}
		q.WriteString(body[pos:decision.innerEnd])
		d.Question = strings.TrimSpace(q.String())
	}
	if ctx != nil {
		d.Context = ctx.text(body)
	}
	if options != nil {
		for _, o := range sc.children(options.inner, options.innerEnd, false, map[string]bool{"option": true}) {
			if o.name != "option" {
				continue
			}
			opt := Option{ID: strings.TrimSpace(o.attrs["id"]), Text: o.text(body)}
			for _, c := range sc.children(o.inner, o.innerEnd, false, nil) {
				switch c.name {
				case "name":
					opt.Name = c.text(body)
				case "pros":
					opt.Pros = c.text(body)
				case "cons":
					opt.Cons = c.text(body)
				}
			}
			d.Options = append(d.Options, opt)
		}
	}
	return d
}

var (
	// taskHeadingRE: "Task 3: name", and the ids plans give their tasks
	// ("Task A-1: name", "Task A-1b — name", "Task 2.1. name"); a task's
	// number is its place in the plan, whatever its id.
	taskHeadingRE  = regexp.MustCompile(`(?i)^task\s+((?:[a-z]+[-.]?)?\d+(?:[-.]\d+)*[a-z]?)\b\s*[:.)\-–—]?\s*(.*)$`)
	numberedRE     = regexp.MustCompile(`^(\d+)\s*(?:[.):]|\s[-–—])\s*(.+)$`)
	tasksSectionRE = regexp.MustCompile(`(?i)^tasks\b`)
	checkpointRE   = regexp.MustCompile(`[(\[]?\s*(checkpoint:[a-z-]+)\s*[)\]]?`)
)

// headingTasks reads older plans: "## Task N: name" sections anywhere, or
// "### N. Name" sections under a "## Tasks" heading, with bold-labelled fields.
func headingTasks(body string, hs []heading, line func(int) int) []Task {
	var tasks []Task
	under := -1 // level of the enclosing "## Tasks" heading, -1 outside one
	for i, h := range hs {
		if under >= 0 && h.level <= under {
			under = -1
		}
		name, ok := "", false
		if m := taskHeadingRE.FindStringSubmatch(h.text); m != nil && h.level >= 2 {
			name, ok = m[2], true
		} else if m := numberedRE.FindStringSubmatch(h.text); m != nil && under >= 0 && h.level == under+1 {
			name, ok = m[2], true
		} else if tasksSectionRE.MatchString(h.text) && under < 0 {
			under = h.level
		}
		if !ok {
			continue
		}
		t := Task{Number: len(tasks) + 1, Line: line(h.off), Type: TaskAuto, Attrs: map[string]string{}}
		if m := checkpointRE.FindStringSubmatch(name); m != nil {
			t.Type = m[1]
			name = strings.TrimSpace(strings.Replace(name, m[0], "", 1))
		}
		t.Name = name
		if t.Name == "" {
			t.Name = fmt.Sprintf("Task %d", t.Number)
		}
		pre, parts := labelled(body[h.body:sectionEnd(hs, i, len(body))])
		for _, lp := range parts {
			v := strings.TrimSpace(lp.text.String())
			switch lp.label {
			case "files", "file", "files modified":
				files, rest := filesBlock(v)
				t.Files = append(t.Files, splitFiles(files)...)
				t.Action = joinText(t.Action, rest)
			case "action", "actions", "what to do", "steps":
				t.Action = joinText(t.Action, v)
			case "verify", "verification":
				t.Verify = joinText(t.Verify, v)
			case "done", "done when", "done criteria":
				t.Done = joinText(t.Done, v)
			case "acceptance criteria", "acceptance_criteria":
				t.AcceptanceCriteria = joinText(t.AcceptanceCriteria, v)
			case "read first", "read_first":
				t.ReadFirst = joinText(t.ReadFirst, v)
			case "resume signal", "resume-signal":
				t.ResumeSignal = joinText(t.ResumeSignal, v)
			case "type":
				if s := strings.Trim(v, "`"); s != "" {
					t.Type = s
				}
			case "name":
				t.Name = v
			default:
				addExtra(&t, lp.label, v)
			}
		}
		switch {
		case pre == "":
		case t.Action == "":
			t.Action = pre
		default:
			addExtra(&t, "description", pre)
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// filesBlock splits a **Files:** label's text into the files it names,
// on its line and in the list right under it, and what follows them: the
// task's instructions and code, which are no files.
func filesBlock(v string) (files, rest string) {
	lines := strings.Split(v, "\n")
	i := 1
	for strings.TrimSpace(lines[0]) == "" && i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++ // the list may start a blank line under the label
	}
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") && !strings.HasPrefix(t, "+ ") && !(strings.HasPrefix(t, "`") && !strings.HasPrefix(t, "```")) {
			break
		}
	}
	return strings.Join(lines[:i], "\n"), strings.TrimSpace(strings.Join(lines[i:], "\n"))
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// sectionText returns the body of the first heading named name (any level).
func sectionText(body string, hs []heading, name string) string {
	for i, h := range hs {
		if strings.EqualFold(strings.TrimSuffix(h.text, ":"), name) {
			return strings.TrimSpace(body[h.body:sectionEnd(hs, i, len(body))])
		}
	}
	return ""
}

// planName picks a short human name: the objective's first line, else the
// document title, else the id.
func planName(p *Plan, hs []heading) string {
	for _, l := range strings.Split(p.Objective, "\n") {
		l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "#*_ "))
		l = strings.TrimSpace(strings.TrimPrefix(l, "Objective:"))
		if l != "" {
			return truncate(l, 100)
		}
	}
	for _, h := range hs {
		if h.level == 1 && h.text != "" {
			return truncate(h.text, 100)
		}
	}
	return p.ID
}
