package parse_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// wantDiag is an expected diagnostic, as the tables write it.
type wantDiag plantest.Diag

func TestParsePlanDiagnostics(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		nilOK  bool // the plan is left out
		want   []wantDiag
		verify func(t *testing.T, p *plan.Plan)
	}{
		{
			name: "wave not a number",
			in:   plantest.Plan("phase: 01-x\nplan: 01\nwave: \"x\"", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 4, `wave must be a whole number ≥ 0, got "x"; hive computes the wave from depends_on`, "set wave: N"}},
		},
		{
			name: "wave is a list",
			in:   plantest.Plan("wave: [1]", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 2, "wave must be a whole number, got a list", "set wave"}},
		},
		{
			name: "depends_on is a mapping",
			in:   plantest.Plan("depends_on: {plan: 01-01}", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 2, "depends_on must be a list of plan ids, got a mapping", `depends_on: ["01-01"`}},
		},
		{
			name: "depends_on scalar number means a plan of this phase",
			in:   plantest.Plan("depends_on: 5", plantest.AutoTask),
			verify: func(t *testing.T, p *plan.Plan) {
				if !reflect.DeepEqual(p.DependsOn, []string{"01-05"}) {
					t.Errorf("DependsOn = %q", p.DependsOn)
				}
			},
		},
		{
			name: "depends_on spellings",
			in:   plantest.Plan("depends_on: [1, \"1-02\", 14-01, '01-03-PLAN.md', \"\", \"01-04, 01-05\"]", plantest.AutoTask),
			verify: func(t *testing.T, p *plan.Plan) {
				want := []string{"01-01", "01-02", "14-01", "01-03", "01-04", "01-05"}
				if !reflect.DeepEqual(p.DependsOn, want) {
					t.Errorf("DependsOn = %q, want %q", p.DependsOn, want)
				}
			},
		},
		{
			name: "autonomous not a bool",
			in:   plantest.Plan("autonomous: maybe", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 2, `autonomous must be true or false, got "maybe"; hive stops at the plan's checkpoint tasks`, "set autonomous"}},
		},
		{
			name: "unknown key is a note",
			in:   plantest.Plan("wave: 1\nmodel_overrides:\n  executor: opus", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityNote, "01-01-PLAN.md", 3, `"model_overrides" is not one hive uses`, ""}},
			verify: func(t *testing.T, p *plan.Plan) {
				if m, ok := p.Extra["model_overrides"].(map[string]any); !ok || m["executor"] != "opus" {
					t.Errorf("Extra = %#v", p.Extra)
				}
			},
		},
		{
			name: "plan number disagrees with file name",
			in:   plantest.Plan("phase: 01-x\nplan: 07", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 3, "plan: 07 but the file name says 01-01", "set plan: 01"}},
		},
		{
			name:  "frontmatter not closed",
			in:    "---\nphase: 01\nwave: 1\n\n## Task 1: a\n",
			nilOK: true,
			want:  []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 1, "never closed", "add a line containing only ---"}},
		},
		{
			// A generator that closed the frontmatter with a tag: it ends
			// at the first line that is one, and the stray closing tag is
			// dropped.
			name: "frontmatter ended by a tag",
			in:   "---\nphase: 01\nwave: 2\nmust_haves:\n  truths: [\"it works\"]\n</must_haves>\n\n<tasks><task type=\"auto\"><name>a</name></task></tasks>\n",
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 6, "frontmatter is never closed with ---; hive reads it up to line 6 (</must_haves>)", "put a line containing only --- at line 6"}},
			verify: func(t *testing.T, p *plan.Plan) {
				if p.Wave != 2 || len(p.Tasks) != 1 || p.Tasks[0].Name != "a" || len(p.MustHaves.Truths) != 1 {
					t.Errorf("wave %d, tasks %+v, must_haves %+v", p.Wave, p.Tasks, p.MustHaves)
				}
			},
		},
		{
			name:  "invalid YAML",
			in:    plantest.Plan("phase: 01\nfiles_modified: [a.ts\nwave: 1", plantest.AutoTask),
			nilOK: true,
			want:  []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 3, "invalid YAML frontmatter: did not find expected ',' or ']'", "check the YAML"}},
		},
		// yaml.v3 names the line where the enclosing block began (here the
		// artifacts' first item, line 7) for a misindented key, and no line
		// for an unknown alias: the error points at the line that makes it.
		{
			name:  "invalid YAML deep in must_haves",
			in:    plantest.Plan("phase: 01\nmust_haves:\n  truths:\n    - a\n  artifacts:\n    - path: x\n      provides: y\n     bad: z\nwave: 1", plantest.AutoTask),
			nilOK: true,
			want:  []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 9, "invalid YAML frontmatter: did not find expected '-' indicator", "check the YAML"}},
		},
		{
			name:  "misindented key in a list",
			in:    plantest.Plan("phase: 01\nmust_haves:\n  truths:\n    - a\n    - b: c\n    d: e\n    - f", plantest.AutoTask),
			nilOK: true,
			want:  []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 7, "invalid YAML frontmatter: did not find expected '-' indicator", "check the YAML"}},
		},
		{
			name: "unknown alias",
			in:   plantest.Plan("phase: 01\nwave: 1\ndepends_on: *nope", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityNote, "01-01-PLAN.md", 4, "frontmatter is not valid YAML (unknown anchor 'nope' referenced)", ""}},
		},
		{
			name:  "frontmatter is a list",
			in:    plantest.Plan("- phase\n- wave", plantest.AutoTask),
			nilOK: true,
			want:  []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 2, "not a key: value mapping", "one \"key: value\" per line"}},
		},
		{
			name:  "NUL byte in frontmatter",
			in:    plantest.Plan("phase: 0\x001", plantest.AutoTask),
			nilOK: true,
			want:  []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 2, "invalid YAML frontmatter: control characters are not allowed", ""}},
		},
		{
			name: "no frontmatter",
			in:   "# Plan\n\n## Task 1: Only task\n\n**Action:** do it\n",
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 1, "no YAML frontmatter", "start the file with a --- block"}},
			verify: func(t *testing.T, p *plan.Plan) {
				if len(p.Tasks) != 1 || p.Tasks[0].Line != 3 || p.Tasks[0].Action != "do it" || !p.Autonomous {
					t.Errorf("tasks = %+v", p.Tasks)
				}
			},
		},
		{
			name: "no tasks",
			in:   plantest.Plan("wave: 1", "\n<objective>\nNothing\n</objective>\n"),
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 4, "no tasks found", "<task"}},
		},
		{
			name: "unclosed task and child",
			in:   plantest.Plan("wave: 1", "<tasks>\n<task type=\"auto\">\n<name>One</name>\n<action>first\n</task>\n<task type=\"auto\">\n<name>Two</name>\n</tasks>\n"),
			want: []wantDiag{
				{plan.SeverityWarning, "01-01-PLAN.md", 7, "<action> is never closed", "add </action>"},
				{plan.SeverityWarning, "01-01-PLAN.md", 9, "task 2: <task> is never closed", "add </task>"},
			},
			verify: func(t *testing.T, p *plan.Plan) {
				if len(p.Tasks) != 2 || p.Tasks[0].Action != "first" || p.Tasks[1].Name != "Two" {
					t.Errorf("tasks = %+v", p.Tasks)
				}
			},
		},
		{
			name: "alias bomb is cut short",
			in: plantest.Plan("a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"+
				"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"+
				"requirements: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nuser_setup: *f", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 2, "frontmatter expands to more than 100000 values", "remove YAML anchors"}},
		},
		{
			name: "annotated files_modified entries are read as their path",
			in:   plantest.Plan("files_modified:\n  - apps/web/src/api/ (generated client)\n  - \"`src/a.ts` — the store\"\n  - .planning/backups/ directory", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityNote, "01-01-PLAN.md", 3, `files_modified entry "apps/web/src/api/ (generated client)": hive reads it as apps/web/src/api/`, "write apps/web/src/api/ alone"},
				{plan.SeverityNote, "01-01-PLAN.md", 5, `files_modified entry ".planning/backups/ directory": hive reads it as .planning/backups/`, "write .planning/backups/ alone"}},
			verify: func(t *testing.T, p *plan.Plan) {
				if !reflect.DeepEqual(p.FilesModified, []string{"apps/web/src/api/", "src/a.ts", ".planning/backups/"}) {
					t.Errorf("FilesModified = %q", p.FilesModified)
				}
				if ds := validate.Phase(&plan.Phase{Plans: []*plan.Plan{p}}); plan.HasErrors(ds) {
					t.Errorf("errors: %s", plantest.DiagList(ds))
				}
			},
		},
		{
			name: "both files_modified spellings",
			in:   plantest.Plan("files_modified: [a.ts]\nfiles-modified: [b.ts]", plantest.AutoTask),
			want: []wantDiag{{plan.SeverityNote, "01-01-PLAN.md", 3, "both files_modified and files-modified", ""}},
			verify: func(t *testing.T, p *plan.Plan) {
				if !reflect.DeepEqual(p.FilesModified, []string{"a.ts", "b.ts"}) || p.Lines["files_modified[1]"] != 3 {
					t.Errorf("FilesModified = %q, lines %v", p.FilesModified, p.Lines)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ds := parse.Plan(plantest.Dir+"/01-01-PLAN.md", []byte(tt.in))
			if (p == nil) != tt.nilOK {
				t.Fatalf("plan = %v, want nil: %v (%v)", p, tt.nilOK, ds)
			}
			plantest.MatchDiags(t, ds, tt.want)
			if tt.verify != nil {
				tt.verify(t, p)
			}
		})
	}
}

func TestBodyScanner(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		tasks []string // names
		check func(t *testing.T, p *plan.Plan)
	}{
		{
			name: "comments and fences hide example tasks",
			body: "<!-- <task type=\"auto\"><name>commented</name></task> -->\n" +
				"Example:\n```xml\n<task type=\"auto\"><name>in a fence</name></task>\n```\n" +
				"<tasks>\n<task type=\"auto\"><name>real</name></task>\n</tasks>\n",
			tasks: []string{"real"},
		},
		{
			name:  "generics and comparisons are text",
			body:  "<tasks>\n<task type=\"auto\">\n<name>Generic</name>\n<action>const m = new Map<string, Array<Item>>(); if (a < b && c > d) {}\n<Component prop={x} />\n</action>\n<done>ok</done>\n</task>\n</tasks>\n",
			tasks: []string{"Generic"},
			check: func(t *testing.T, p *plan.Plan) {
				if !strings.Contains(p.Tasks[0].Action, "Map<string, Array<Item>>(); if (a < b && c > d)") || p.Tasks[0].Done != "ok" {
					t.Errorf("task = %+v", p.Tasks[0])
				}
			},
		},
		{
			name:  "attributes quoted, single-quoted and bare",
			body:  "<task id='t1' type=checkpoint:human-action gate=\"blocking-human\" tdd=\"false\">\n<action>Create the OAuth app</action>\n<resume-signal>Paste the client id</resume-signal>\n</task>\n",
			tasks: []string{"Create the OAuth app"},
			check: func(t *testing.T, p *plan.Plan) {
				tk := p.Tasks[0]
				if tk.Type != plan.TaskHumanAction || tk.Gate != "blocking-human" || tk.Attrs["id"] != "t1" || tk.IsTDD() || !tk.IsCheckpoint() {
					t.Errorf("task = %+v", tk)
				}
			},
		},
		{
			name:  "decision with nested context and options",
			body:  "<task type=\"checkpoint:decision\" gate=\"blocking\">\n<decision>Which queue?\n<context>Jobs are small.</context>\n<options><option id=\"a\"><name>SQS</name></option><option id=\"b\"><name>Redis</name><pros>fast</pros></option></options>\n</decision>\n</task>\n",
			tasks: []string{"Which queue?"},
			check: func(t *testing.T, p *plan.Plan) {
				d := p.Tasks[0].Decision
				if d == nil || d.Question != "Which queue?" || d.Context != "Jobs are small." || len(d.Options) != 2 || d.Options[1].Pros != "fast" {
					t.Errorf("decision = %+v", d)
				}
			},
		},
		{
			name:  "files annotations",
			body:  "<task><name>F</name><files>\n- `src/a.ts` (new)\n* src/b.ts — the store\nsrc/c.ts (modify), src/d.ts - helper\n\n</files></task>\n",
			tasks: []string{"F"},
			check: func(t *testing.T, p *plan.Plan) {
				if want := []string{"src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts"}; !reflect.DeepEqual(p.Tasks[0].Files, want) {
					t.Errorf("files = %q", p.Tasks[0].Files)
				}
				if p.Tasks[0].Type != plan.TaskAuto {
					t.Errorf("type = %q, want auto by default", p.Tasks[0].Type)
				}
			},
		},
		{
			name:  "### Task N headings and ### N. under ## Tasks",
			body:  "## Tasks\n\n### 1. First\n**Action:** a\n\n### Task 2 - Second\n- **Verify**: `go test`\n\n## After\n\n### 3. Not a task\n",
			tasks: []string{"First", "Second"},
			check: func(t *testing.T, p *plan.Plan) {
				if p.Tasks[1].Verify != "`go test`" {
					t.Errorf("verify = %q", p.Tasks[1].Verify)
				}
			},
		},
		{
			// Tasks with ids of their own, their fields in tags: the
			// numbers are their places in the plan.
			name: "### Task X-N headings with tagged fields",
			body: "## Tasks\n\n---\n\n### Task A-1: Add the field\n\n<read_first>\n- `cfg.py`\n</read_first>\n\n<action>\nAdd it.\n</action>\n\n" +
				"### Task A-1b — Test the field\n\nWrite the test.\n\n### Task 2.1. Document it\n\n**Action:** a line in the README\n\n## Verification\n\n### Task list check\n",
			tasks: []string{"Add the field", "Test the field", "Document it"},
			check: func(t *testing.T, p *plan.Plan) {
				for i, tk := range p.Tasks {
					if tk.Number != i+1 {
						t.Errorf("task %q is number %d, want %d", tk.Name, tk.Number, i+1)
					}
				}
				if !strings.Contains(p.Tasks[0].Action, "Add it.") || !strings.Contains(p.Tasks[0].Action, "cfg.py") {
					t.Errorf("task 1's action = %q", p.Tasks[0].Action)
				}
				if p.Tasks[2].Action != "a line in the README" {
					t.Errorf("task 3's action = %q", p.Tasks[2].Action)
				}
			},
		},
		{
			// A **File:** label followed by the task's instructions and
			// code: only the label's line and the list under it are files.
			name: "**File:** label then instructions and code",
			body: "## Tasks\n\n### Task 1: Add the type\n\n**File:** `src/types.ts`\n\nAdd the interface:\n\n```ts\n/**\n * Entity\n */\nexport interface Entity { type: 'a' | 'b' }\n```\n\n" +
				"### Task 2: Wire it\n\n**Files:**\n- `src/a.ts`\n- `src/b.ts` (new)\n\nThen call it from both.\n",
			tasks: []string{"Add the type", "Wire it"},
			check: func(t *testing.T, p *plan.Plan) {
				if !reflect.DeepEqual(p.Tasks[0].Files, []string{"src/types.ts"}) || !reflect.DeepEqual(p.Tasks[1].Files, []string{"src/a.ts", "src/b.ts"}) {
					t.Errorf("files = %q, %q", p.Tasks[0].Files, p.Tasks[1].Files)
				}
				if !strings.Contains(p.Tasks[0].Action, "Add the interface:") || !strings.Contains(p.Tasks[0].Action, "export interface Entity") {
					t.Errorf("task 1's action = %q", p.Tasks[0].Action)
				}
				if p.Tasks[1].Action != "Then call it from both." {
					t.Errorf("task 2's action = %q", p.Tasks[1].Action)
				}
			},
		},
		{
			name:  "CRLF line endings",
			body:  "<tasks>\r\n<task type=\"auto\">\r\n<name>Windows</name>\r\n</task>\r\n</tasks>\r\n",
			tasks: []string{"Windows"},
			check: func(t *testing.T, p *plan.Plan) {
				if p.Tasks[0].Line != 6 {
					t.Errorf("line = %d, want 6", p.Tasks[0].Line)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ds := parse.Plan(plantest.Dir+"/01-01-PLAN.md", []byte(plantest.Plan("wave: 1\nautonomous: false", tt.body)))
			if p == nil || plan.HasErrors(ds) {
				t.Fatalf("parse.Plan: %v", ds)
			}
			var names []string
			for _, tk := range p.Tasks {
				names = append(names, tk.Name)
			}
			if !reflect.DeepEqual(names, tt.tasks) {
				t.Fatalf("tasks = %q, want %q", names, tt.tasks)
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

// depends_on that names files to read (".planning/STATE.md") instead of
// plans: each is a warning saying where such a file belongs, and only the
// plans are waited for; a plan's own file still names that plan.
func TestDependsOnFiles(t *testing.T) {
	p, ds := parse.Plan(plantest.Dir+"/01-03-PLAN.md", []byte(plantest.Plan("depends_on:\n  - .planning/STATE.md\n  - .planning/phases/01-x/01-CONTEXT.md\n  - src/app.ts\n  - 01-01\n  - .planning/phases/01-x/01-02-PLAN.md\n  - 01-04.md", plantest.AutoTask)))
	if p == nil || plan.HasErrors(ds) {
		t.Fatalf("parse.Plan: %v", ds)
	}
	if want := []string{"01-01", "01-02", "01-04"}; !reflect.DeepEqual(p.DependsOn, want) {
		t.Errorf("depends_on = %q, want %q", p.DependsOn, want)
	}
	var files []string
	for _, d := range ds {
		if d.Severity == plan.SeverityWarning && strings.HasPrefix(d.Message, "depends_on names the file ") {
			files = append(files, strings.TrimSuffix(strings.TrimPrefix(d.Message, "depends_on names the file "), ", not a plan; hive ignores it"))
			if !strings.Contains(d.Fix, "belongs in <context>, as @") {
				t.Errorf("fix %q", d.Fix)
			}
		}
	}
	if want := []string{".planning/STATE.md", ".planning/phases/01-x/01-CONTEXT.md", "src/app.ts"}; !reflect.DeepEqual(files, want) {
		t.Errorf("warned of %q, want %q", files, want)
	}
}

// Hand-written plans: depends_on in words ("none"), and tasks fenced as
// ```xml (read from the fence when nothing outside it is a task).
func TestHandWrittenPlans(t *testing.T) {
	fenced := "## Tasks\n\n```xml\n<task>\n  <action>\n    Create the schema.\n  </action>\n</task>\n<task type=\"auto\">\n  <name>Seed it</name>\n</task>\n```\n"
	p, ds := parse.Plan(plantest.Dir+"/01-02-PLAN.md", []byte(plantest.Plan("depends_on: none", fenced)))
	if p == nil || plan.HasErrors(ds) {
		t.Fatalf("parse.Plan: %v", ds)
	}
	if len(p.DependsOn) != 0 {
		t.Errorf("depends_on: none read as %q", p.DependsOn)
	}
	if len(p.Tasks) != 2 || p.Tasks[1].Name != "Seed it" || !strings.Contains(p.Tasks[0].Action, "Create the schema.") {
		t.Errorf("fenced tasks = %+v", p.Tasks)
	}
	for _, d := range ds {
		if strings.Contains(d.Message, "no tasks found") {
			t.Errorf("%s", d)
		}
	}
}

// must_haves written as a plain list of statements is read as its truths.
func TestMustHavesAsAList(t *testing.T) {
	p, ds := parse.Plan(plantest.Dir+"/01-01-PLAN.md", []byte(plantest.Plan("must_haves:\n  - \"the tables exist\"\n  - \"D-03: users have a pseudonym\"", plantest.AutoTask)))
	if p == nil || len(ds) != 0 {
		t.Fatalf("parse.Plan: %v", ds)
	}
	if want := []string{"the tables exist", "D-03: users have a pseudonym"}; !reflect.DeepEqual(p.MustHaves.Truths, want) {
		t.Errorf("truths = %q, want %q", p.MustHaves.Truths, want)
	}
}

// A task field left unclosed ends where the task's next field opens: an
// unclosed <action> no longer swallows the <verify> and <done> after it.
func TestUnclosedTaskField(t *testing.T) {
	body := "<tasks>\n<task type=\"auto\">\n  <name>A</name>\n  <action>\nDo it.\n  <verify>\n  run it\n  </verify>\n  <done>\n  works\n  </done>\n</task>\n</tasks>\n"
	p, ds := parse.Plan(plantest.Dir+"/01-01-PLAN.md", []byte(plantest.Plan("wave: 1", body)))
	if p == nil || len(p.Tasks) != 1 {
		t.Fatalf("parse.Plan: %v", ds)
	}
	if tk := p.Tasks[0]; tk.Action != "Do it." || tk.Verify != "run it" || tk.Done != "works" {
		t.Errorf("action %q, verify %q, done %q", tk.Action, tk.Verify, tk.Done)
	}
	plantest.MatchDiags(t, ds, []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 7, "task 1: <action> is never closed; it is read up to the next field of the task", "add </action>"}})
}

// A plan whose frontmatter was fenced as ```yaml under a heading, not put
// between --- lines: read, with a warning, so that its dependencies hold
// (read as no frontmatter, every plan of the phase ran at once).
func TestFencedFrontmatter(t *testing.T) {
	in := "# Plan: graph\n\n## Frontmatter\n\n```yaml\nphase: 05\nplan: 02\nwave: 2\ndepends_on: [05-01]\nautonomous: false\n```\n\n## Tasks\n\n<task><name>a</name></task>\n"
	p, ds := parse.Plan(plantest.Dir+"/01-02-PLAN.md", []byte(in))
	if p == nil || plan.HasErrors(ds) {
		t.Fatalf("parse.Plan: %v", ds)
	}
	if p.Wave != 2 || !reflect.DeepEqual(p.DependsOn, []string{"05-01"}) || p.Autonomous || len(p.Tasks) != 1 {
		t.Errorf("wave %d, depends_on %q, autonomous %v, %d task(s)", p.Wave, p.DependsOn, p.Autonomous, len(p.Tasks))
	}
	plantest.MatchDiags(t, ds, []wantDiag{{plan.SeverityWarning, "01-02-PLAN.md", 5, "frontmatter written as a ```yaml block", "move it to the top of the file, between --- lines"}})
	// A yaml block of something else is no frontmatter.
	p, ds = parse.Plan(plantest.Dir+"/01-03-PLAN.md", []byte("# Plan\n\n```yaml\nservices:\n  db: {image: postgres}\n```\n\n<task><name>a</name></task>\n"))
	if p == nil || p.Wave != 0 || !strings.Contains(plantest.DiagList(ds), "no YAML frontmatter") {
		t.Errorf("a compose file read as frontmatter: %v", ds)
	}
}
