package parse

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/frontmatter"
	"github.com/hivectl/hive/internal/plan/markup"
	"gopkg.in/yaml.v3"
)

// Plan reads one PLAN.md. path is the repository-relative name used for
// the plan's Path, its id and diagnostics. The plan is nil only when its
// frontmatter cannot be read (unclosed, invalid YAML, not a mapping); every
// other problem is a diagnostic next to a usable plan. Plan never panics.
func Plan(path string, data []byte) (*plan.Plan, []plan.Diagnostic) {
	if path == "" {
		path = "PLAN.md"
	}
	ds := &plan.Diags{File: path}
	p := &plan.Plan{ID: plan.FileID(path), Path: path, Type: "execute", Autonomous: true, Lines: map[string]int{}}
	doc, ok := frontmatter.Split(data, ds)
	if !ok {
		return nil, ds.List
	}
	p.BodyLine = doc.BodyLine
	if !doc.HasFM && doc.Fenced() {
		ds.Warnf(doc.FMLine-1, "move it to the top of the file, between --- lines, where GSD's tools read it too",
			"frontmatter written as a ```yaml block, not between --- lines at the top; hive reads it")
	}
	if doc.HasFM {
		m, ok := doc.Parse(ds)
		if !ok {
			return nil, ds.List
		}
		readPlanFrontmatter(p, doc, m, ds)
		doc.CheckBudget(ds)
	} else {
		ds.Warnf(1, "start the file with a --- block holding phase, plan, wave, depends_on, files_modified and autonomous",
			"no YAML frontmatter: hive assumes no dependencies and autonomous: true")
	}
	parsePlanBody(p, doc, ds)
	return p, ds.List
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
	_, _, planLike := plan.Key(strings.TrimSuffix(base, path.Ext(base)))
	switch {
	case planLike || strings.HasSuffix(strings.ToUpper(base), "-PLAN.MD") || plan.IsDashName(base):
		return "", false // "01-02.md" still names plan 01-02
	case ext == ".md" || (strings.ContainsAny(s, `/\`) && ext != "" && !plan.IsNumLike(strings.TrimPrefix(ext, "."))):
		return s, true
	}
	return "", false
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
	return strconv.Quote(plan.Truncate(n.Value, 40))
}

// knownQuiet are keys of real GSD plans that hive has no use for; they go to
// Extra without a note because every plan of some GSD versions has them.
var knownQuiet = map[string]bool{"gap_closure": true, "requirements_addressed": true}

func readPlanFrontmatter(p *plan.Plan, doc *frontmatter.Document, m *yaml.Node, ds *plan.Diags) {
	files, filesKey := 0, ""
	for _, k := range doc.Keys(m) {
		if k.Name == "" {
			ds.Warnf(k.Line, "use plain words as frontmatter keys", "frontmatter key is not plain text; ignored")
			continue
		}
		if prev, dup := p.Lines[k.Name]; dup {
			ds.Warnf(k.Line, "remove one of them", "frontmatter key %q repeated (first at line %d); the last one wins", k.Name, prev)
		}
		p.Lines[k.Name] = k.Line
		switch k.Name {
		case "phase", "plan":
			s, ok := frontmatter.Scalar(k.Value)
			if !ok {
				ds.Warnf(k.Line, fmt.Sprintf("write %s: as a single value", k.Name), "%s must be a single value, got %s; ignored (hive goes by the file name)", k.Name, describe(k.Value))
			}
			if k.Name == "phase" {
				p.Phase = s
			} else {
				p.PlanNumber = s
			}
		case "type":
			s, ok := frontmatter.Scalar(k.Value)
			switch {
			case !ok:
				ds.Warnf(k.Line, "set type: execute or type: tdd", "type must be a single value, got %s; hive runs the plan like execute", describe(k.Value))
			case s == "":
			case s == "execute" || s == "tdd":
				p.Type = s
			default:
				p.Type = s
				ds.Notef(k.Line, "use type: execute or type: tdd", "plan type %q is not one hive knows; it runs it like execute", s)
			}
		case "wave":
			readWave(p, k, ds)
		case "depends_on", "depends-on":
			items, ok := doc.List(k, ds)
			if !ok {
				ds.Errorf(k.Line, `write depends_on: ["01-01", "01-02"], the ids of the plans it needs, or depends_on: [] for none`, "depends_on must be a list of plan ids, got %s", describe(k.Value))
				continue
			}
			p.DependsOn = nil
			if len(items) == 1 && noneWord(items[0].Text) {
				p.Lines["depends_on"] = k.Line // depends_on: none
				continue
			}
			for _, it := range items {
				// A hand-written scalar may hold several ids: "01-01, 01-02".
				for _, part := range strings.Split(it.Text, ",") {
					if f, ok := documentDep(part); ok {
						ds.Warnf(it.Line, fmt.Sprintf("list plan ids in depends_on; a file for the agent to read belongs in <context>, as @%s", f),
							"depends_on names the file %s, not a plan; hive ignores it", f)
						continue
					}
					if id := plan.NormalizeDep(part, p.ID); id != "" {
						p.Lines[fmt.Sprintf("depends_on[%d]", len(p.DependsOn))] = it.Line
						p.DependsOn = append(p.DependsOn, id)
					}
				}
			}
			p.Lines["depends_on"] = k.Line
		case "files_modified", "files-modified":
			items, ok := doc.List(k, ds)
			if !ok {
				ds.Errorf(k.Line, "write files_modified: [path/one, path/two] with repository-relative paths", "%s must be a list of paths, got %s", k.Name, describe(k.Value))
				continue
			}
			if filesKey != "" && filesKey != k.Name {
				ds.Notef(k.Line, "keep only files_modified", "both files_modified and files-modified are set; hive reads both")
			}
			if filesKey == k.Name { // a repeated key: the last one wins, as for every key
				p.FilesModified, files = nil, 0
			}
			filesKey = k.Name
			for _, it := range items {
				// People annotate entries as they do task <files>:
				// "apps/web/src/api/ (generated client)".
				f := it.Text
				if c := markup.CleanFile(f); c != "" && c != f {
					ds.Notef(it.Line, fmt.Sprintf("write %s alone; put the comment in the plan's body", c), "%s entry %q: hive reads it as %s", k.Name, plan.Truncate(f, 80), c)
					f = c
				}
				p.Lines[fmt.Sprintf("files_modified[%d]", files)] = it.Line
				p.FilesModified = append(p.FilesModified, f)
				files++
			}
			p.Lines["files_modified"] = k.Line
		case "autonomous":
			if frontmatter.IsNull(k.Value) {
				continue
			}
			b, ok := frontmatter.Boolean(k.Value)
			if !ok {
				ds.Warnf(k.Line, "set autonomous: true (no checkpoints) or autonomous: false", "autonomous must be true or false, got %s; hive stops at the plan's checkpoint tasks whatever it says", describe(k.Value))
				continue
			}
			p.Autonomous = b
		case "requirements":
			p.Requirements = doc.Texts(k.Value)
		case "user_setup":
			p.UserSetup = doc.Value(k.Value, 0)
		case "must_haves":
			p.MustHaves = readMustHaves(doc, k, p.Lines, ds)
		default:
			if p.Extra == nil {
				p.Extra = map[string]any{}
			}
			p.Extra[k.Name] = doc.Value(k.Value, 0)
			if !knownQuiet[k.Name] {
				ds.Notef(k.Line, "", "frontmatter key %q is not one hive uses; kept and ignored", k.Name)
			}
		}
	}
	checkPlanNumber(p, ds)
}

func readWave(p *plan.Plan, k frontmatter.Key, ds *plan.Diags) {
	const fix = "set wave: N with N ≥ 1 (or 0, for waves numbered from 0), or remove the line and let hive compute it from depends_on"
	s, ok := frontmatter.Scalar(k.Value)
	if !ok {
		ds.Warnf(k.Line, fix, "wave must be a whole number, got %s; hive computes the wave from depends_on", describe(k.Value))
		return
	}
	if s == "" {
		return
	}
	n, err := strconv.Atoi(s)
	if err == nil && n == 0 {
		p.WaveZero = true // the phase numbers its waves from 0: see load.Phase
		return
	}
	if err != nil || n < 1 {
		ds.Warnf(k.Line, fix, "wave must be a whole number ≥ 0, got %q; hive computes the wave from depends_on", plan.Truncate(s, 40))
		return
	}
	p.Wave = n
}

// checkPlanNumber warns when "plan:" disagrees with the file name: the file name
// wins, because it is what other plans write in depends_on.
func checkPlanNumber(p *plan.Plan, ds *plan.Diags) {
	if p.PlanNumber == "" {
		return
	}
	_, num, _, ok := plan.KeyRaw(p.ID)
	if !ok {
		// A name without a phase and plan number pair (02-content-bank):
		// the frontmatter's number is the plan's, as its SUMMARY names it.
		return
	}
	got := p.PlanNumber
	same := plan.CanonNum(got) == plan.CanonNum(num)
	if strings.Contains(got, "-") {
		same = plan.NormalizeDep(got, p.ID) == p.ID
	}
	if !same {
		ds.Warnf(p.Lines["plan"], fmt.Sprintf("set plan: %s or rename the file", num),
			"frontmatter says plan: %s but the file name says %s; hive uses the file name", got, p.ID)
	}
}

// readMustHaves reads the goal-backward block; lines gets the line of every
// artifact and key link ("must_haves.artifacts[0]", "must_haves.key_links[1]").
func readMustHaves(doc *frontmatter.Document, k frontmatter.Key, lines map[string]int, ds *plan.Diags) plan.MustHaves {
	var mh plan.MustHaves
	n := k.Value
	if frontmatter.IsNull(n) {
		return mh
	}
	if n.Kind == yaml.SequenceNode && allScalars(n) {
		// A list of statements: what must be true, the truths alone.
		mh.Truths = doc.Texts(n)
		return mh
	}
	if n.Kind != yaml.MappingNode {
		ds.Warnf(k.Line, "write must_haves as a mapping with truths, artifacts and key_links", "must_haves is %s, not a mapping; ignored", describe(n))
		return mh
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := frontmatter.Resolve(n.Content[i]), frontmatter.Resolve(n.Content[i+1])
		if key == nil {
			continue
		}
		switch key.Value {
		case "truths":
			mh.Truths = doc.Texts(val)
		case "artifacts":
			for _, it := range seq(val) {
				lines[fmt.Sprintf("must_haves.artifacts[%d]", len(mh.Artifacts))] = doc.NodeLine(it)
				if it.Kind == yaml.ScalarNode {
					mh.Artifacts = append(mh.Artifacts, plan.Artifact{Path: strings.TrimSpace(it.Value)})
					continue
				}
				f := doc.Fields(it)
				mh.Artifacts = append(mh.Artifacts, plan.Artifact{Path: f["path"], Provides: f["provides"], Contains: f["contains"]})
			}
		case "key_links":
			for _, it := range seq(val) {
				lines[fmt.Sprintf("must_haves.key_links[%d]", len(mh.KeyLinks))] = doc.NodeLine(it)
				f := doc.Fields(it)
				mh.KeyLinks = append(mh.KeyLinks, plan.KeyLink{From: f["from"], To: f["to"], Via: f["via"], Pattern: f["pattern"]})
			}
		}
	}
	return mh
}

// allScalars reports whether every item of sequence n is a scalar.
func allScalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c = frontmatter.Resolve(c); c == nil || c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

// seq returns the items of a sequence, or the value itself as a one-item list.
func seq(n *yaml.Node) []*yaml.Node {
	switch {
	case frontmatter.IsNull(n):
		return nil
	case n.Kind == yaml.SequenceNode:
		var out []*yaml.Node
		for _, c := range n.Content {
			if c = frontmatter.Resolve(c); c != nil {
				out = append(out, c)
			}
		}
		return out
	}
	return []*yaml.Node{n}
}

// Body parsing.

var (
	taskChildren = map[string]bool{"name": true, "files": true, "read_first": true, "action": true, "verify": true,
		"acceptance_criteria": true, "done": true, "resume-signal": true, "decision": true, "context": true, "options": true}
	topKnown = map[string]bool{"objective": true, "context": true, "tasks": true, "task": true, "feature": true}
)

func parsePlanBody(p *plan.Plan, doc *frontmatter.Document, ds *plan.Diags) {
	body := doc.Body
	sc := markup.NewScanner(body)
	line := func(off int) int { return doc.Line(doc.BodyOff + off) }
	for _, el := range sc.Children(0, len(body), true, topKnown) {
		switch el.Name {
		case "objective":
			if p.Objective == "" {
				p.Objective = el.Text(body)
			}
		case "context":
			if p.Context == "" {
				p.Context = el.Text(body)
			}
		case "tasks":
			if !el.Closed {
				ds.Warnf(line(el.Start), "add </tasks> after the last task", "<tasks> is never closed")
			}
		}
	}
	tasks := taskElements(sc, 0, len(body), true)
	hs := markup.Headings(body)
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
	for i := range p.Tasks {
		p.Tasks[i].Automated = automated(p.Tasks[i].Verify)
	}
	if p.Objective == "" {
		p.Objective = sectionText(body, hs, "objective")
	}
	if p.Context == "" {
		p.Context = sectionText(body, hs, "context")
	}
	p.Name = planName(p, hs)
	if len(p.Tasks) == 0 {
		ds.Warnf(p.BodyLine, `add <task type="auto"> elements inside <tasks>, or "## Task 1: name" sections`, "no tasks found")
	}
}

// automated returns the command of an <automated> element inside a task's
// <verify>, the part of the verification a machine can run; "" when there
// is none.
func automated(verify string) string {
	sc := markup.NewScanner(verify)
	for _, e := range sc.Children(0, len(verify), false, nil) {
		if e.Name == "automated" {
			return e.Text(verify)
		}
	}
	return ""
}

// taskElements are the <task> elements in [from, to), those inside
// <tasks> included; a TDD plan's <feature> blocks
// (get-shit-done/references/tdd.md) are tasks too. With fences, code
// blocks are skipped.
func taskElements(sc *markup.Scanner, from, to int, fences bool) []markup.Element {
	var tasks []markup.Element
	for _, el := range sc.Children(from, to, fences, topKnown) {
		switch el.Name {
		case "task", "feature":
			tasks = append(tasks, el)
		case "tasks":
			for _, t := range sc.Children(el.Inner, el.InnerEnd, fences, map[string]bool{"task": true, "feature": true}) {
				if t.Name == "task" || t.Name == "feature" {
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
func taskFields(sc *markup.Scanner, el markup.Element) []markup.Element {
	kids := sc.Children(el.Inner, el.InnerEnd, false, taskChildren)
	for i := 0; i < len(kids); i++ {
		c := &kids[i]
		if c.Closed || !slices.Contains(leafFields, c.Name) {
			continue
		}
		cut := c.InnerEnd
		for _, f := range leafFields {
			cut = min(cut, sc.NextOpen(f, c.Inner, c.InnerEnd))
		}
		if cut < c.InnerEnd {
			c.InnerEnd, c.End = cut, cut
			kids = append(kids[:i+1], sc.Children(cut, el.InnerEnd, false, taskChildren)...)
		}
	}
	return kids
}

func xmlTask(sc *markup.Scanner, el markup.Element, number int, line func(int) int, ds *plan.Diags) plan.Task {
	body := sc.Text()
	t := plan.Task{Number: number, Line: line(el.Start), Attrs: el.Attrs}
	if t.Attrs == nil {
		t.Attrs = map[string]string{}
	}
	t.Type = strings.TrimSpace(t.Attrs["type"])
	if t.Type == "" {
		t.Type = plan.TaskAuto
	}
	t.Gate = strings.TrimSpace(t.Attrs["gate"])
	if el.Name == "feature" {
		t.Type = plan.TaskTDD
	}
	if !el.Closed {
		ds.Warnf(t.Line, fmt.Sprintf("add </%s> at the end of the task", el.Name), "task %d: <%s> is never closed; it is read up to the next <%s>", number, el.Name, el.Name)
	}
	var decision, ctx, options *markup.Element
	for _, c := range taskFields(sc, el) {
		if !c.Closed && taskChildren[c.Name] {
			ds.Warnf(line(c.Start), fmt.Sprintf("add </%s>", c.Name), "task %d: <%s> is never closed; it is read up to the next field of the task", number, c.Name)
		}
		v := c.Text(body)
		switch c.Name {
		case "name":
			t.Name = v
		case "files":
			t.Files = markup.SplitFiles(v)
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
			addExtra(&t, c.Name, v)
		}
	}
	if decision != nil || options != nil {
		t.Decision = readDecision(sc, decision, ctx, options)
	} else if ctx != nil {
		addExtra(&t, "context", ctx.Text(body))
	}
	if el.Name == "feature" && t.Action == "" {
		t.Action = t.Extra["implementation"]
	}
	if t.Name == "" {
		t.Name = fallbackName(t)
	}
	return t
}

// fallbackName names a task without <name>: checkpoints usually have none, and
// the human still needs a title for the question.
func fallbackName(t plan.Task) string {
	cands := []string{t.Attrs["name"], t.Extra["what-built"], t.Action}
	if t.Decision != nil {
		cands = append([]string{t.Attrs["name"], t.Decision.Question}, cands[1:]...)
	}
	for _, c := range cands {
		if l, _, _ := strings.Cut(strings.TrimSpace(c), "\n"); strings.TrimSpace(l) != "" {
			return plan.Truncate(strings.TrimSpace(l), 100)
		}
	}
	return fmt.Sprintf("Task %d", t.Number)
}

func addExtra(t *plan.Task, name, v string) {
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
func readDecision(sc *markup.Scanner, decision, ctx, options *markup.Element) *plan.Decision {
	body := sc.Text()
	d := &plan.Decision{}
	if decision != nil {
		var q strings.Builder
		pos := decision.Inner
		for _, c := range sc.Children(decision.Inner, decision.InnerEnd, false, nil) {
			switch c.Name {
			case "context":
				ctx = &c
			case "options":
				options = &c
			default:
				continue
			}
			q.WriteString(body[pos:c.Start])
			pos = c.End
		}
		q.WriteString(body[pos:decision.InnerEnd])
		d.Question = strings.TrimSpace(q.String())
	}
	if ctx != nil {
		d.Context = ctx.Text(body)
	}
	if options != nil {
		for _, o := range sc.Children(options.Inner, options.InnerEnd, false, map[string]bool{"option": true}) {
			if o.Name != "option" {
				continue
			}
			opt := plan.Option{ID: strings.TrimSpace(o.Attrs["id"]), Text: o.Text(body)}
			for _, c := range sc.Children(o.Inner, o.InnerEnd, false, nil) {
				switch c.Name {
				case "name":
					opt.Name = c.Text(body)
				case "pros":
					opt.Pros = c.Text(body)
				case "cons":
					opt.Cons = c.Text(body)
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
func headingTasks(body string, hs []markup.Heading, line func(int) int) []plan.Task {
	var tasks []plan.Task
	under := -1 // level of the enclosing "## Tasks" heading, -1 outside one
	for i, h := range hs {
		if under >= 0 && h.Level <= under {
			under = -1
		}
		name, ok := "", false
		if m := taskHeadingRE.FindStringSubmatch(h.Text); m != nil && h.Level >= 2 {
			name, ok = m[2], true
		} else if m := numberedRE.FindStringSubmatch(h.Text); m != nil && under >= 0 && h.Level == under+1 {
			name, ok = m[2], true
		} else if tasksSectionRE.MatchString(h.Text) && under < 0 {
			under = h.Level
		}
		if !ok {
			continue
		}
		t := plan.Task{Number: len(tasks) + 1, Line: line(h.Off), Type: plan.TaskAuto, Attrs: map[string]string{}}
		if m := checkpointRE.FindStringSubmatch(name); m != nil {
			t.Type = m[1]
			name = strings.TrimSpace(strings.Replace(name, m[0], "", 1))
		}
		t.Name = name
		if t.Name == "" {
			t.Name = fmt.Sprintf("Task %d", t.Number)
		}
		pre, parts := markup.Labelled(body[h.Body:markup.SectionEnd(hs, i, len(body))])
		for _, lp := range parts {
			v := strings.TrimSpace(lp.Text.String())
			switch lp.Label {
			case "files", "file", "files modified":
				files, rest := filesBlock(v)
				t.Files = append(t.Files, markup.SplitFiles(files)...)
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
				addExtra(&t, lp.Label, v)
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
func sectionText(body string, hs []markup.Heading, name string) string {
	for i, h := range hs {
		if strings.EqualFold(strings.TrimSuffix(h.Text, ":"), name) {
			return strings.TrimSpace(body[h.Body:markup.SectionEnd(hs, i, len(body))])
		}
	}
	return ""
}

// planName picks a short human name: the objective's first line, else the
// document title, else the id.
func planName(p *plan.Plan, hs []markup.Heading) string {
	for _, l := range strings.Split(p.Objective, "\n") {
		l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "#*_ "))
		l = strings.TrimSpace(strings.TrimPrefix(l, "Objective:"))
		if l != "" {
			return plan.Truncate(l, 100)
		}
	}
	for _, h := range hs {
		if h.Level == 1 && h.Text != "" {
			return plan.Truncate(h.Text, 100)
		}
	}
	return p.ID
}
