package parse_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// fixture is the project the plan packages' tests share.
const fixture = "../testdata/project"

func parseFixture(t *testing.T, rel string) (*plan.Plan, []plan.Diagnostic) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixture, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return parse.Plan(rel, data)
}

// taskWant is what a test checks of one task; empty fields are not checked.
type taskWant struct {
	line                    int
	typ, name, gate         string
	files                   []string
	actionHas, verify, done string
	automated               string
	tdd                     bool
	extra                   []string // keys expected in Task.Extra
}

func TestParsePlanFixtures(t *testing.T) {
	tests := []struct {
		file         string
		name         string
		typ          string
		wave         int
		deps         []string
		files        []string
		autonomous   bool
		objectiveHas string
		contextHas   string
		tasks        []taskWant
	}{
		{
			file: ".planning/phases/01-foundation/01-01-PLAN.md",
			name: "Create the database schema and the money helpers every later plan builds on.",
			typ:  "execute", wave: 1, autonomous: true,
			files:        []string{"package.json", "prisma/schema.prisma", "src/lib/db.ts", "src/lib/money.ts", "src/lib/money.test.ts"},
			objectiveHas: "Output: Prisma schema",
			contextHas:   "@.planning/phases/01-foundation/01-RESEARCH.md",
			tasks: []taskWant{
				{line: 56, typ: "auto", name: "Task 1: Prisma schema and db client",
					files:     []string{"prisma/schema.prisma", "src/lib/db.ts", "package.json"},
					actionHas: "amount    Int      // cents; never Float",
					verify:    "<automated>npx prisma validate && npx prisma migrate dev --name init --skip-seed</automated>",
					automated: "npx prisma validate && npx prisma migrate dev --name init --skip-seed",
					done:      "Schema validates, the first migration exists, db client exported"},
				{line: 96, typ: "auto", tdd: true, name: "Task 2: Cents helpers with even splitting",
					files:     []string{"src/lib/money.ts", "src/lib/money.test.ts"},
					actionHas: "const shares = new Map<string, number>();\n  return Array.from({ length: n }, (_, i) => base + (i < rest ? 1 : 0));",
					automated: "npx vitest run src/lib/money.test.ts",
					extra:     []string{"behavior"}},
			},
		},
		{
			file: ".planning/phases/01-foundation/01-02-PLAN.md",
			typ:  "tdd", wave: 2, deps: []string{"01-01"}, autonomous: true,
			files:      []string{"src/lib/auth.ts", "src/app/api/auth/login/route.ts", "src/app/api/auth/login/route.test.ts"},
			contextHas: "<interfaces>\n<!-- Key types the executor needs.",
			tasks: []taskWant{
				{line: 47, typ: "tdd", actionHas: `if (!user || !(await verifyPassword(body.password, user.passwordHash))) {`},
			},
		},
		{
			file: ".planning/phases/01-foundation/01-03-PLAN.md",
			typ:  "execute", wave: 2, deps: []string{"01-01"}, autonomous: false,
			tasks: []taskWant{
				{line: 42, typ: plan.TaskDecision, gate: "blocking", name: "Select the component library for the app shell"},
				{line: 63, typ: "auto", files: []string{"src/components/AppShell.tsx", "src/app/layout.tsx", "src/app/page.tsx"},
					verify: "npm run build && npx playwright test tests/shell.spec.ts", actionHas: "<nav>{items.map((i) => <a key={i.href}"},
				{line: 82, typ: plan.TaskHumanVerify, gate: "blocking", name: "App shell with navigation and the welcome page",
					extra: []string{"what-built", "how-to-verify"}},
			},
		},
		{
			file: ".planning/phases/01-foundation/01-04-PLAN.md",
			wave: 3, deps: []string{"01-02", "01-03"}, autonomous: true, // depends_on: [2, 3]
			files: []string{"src/app/expenses/page.tsx", "src/app/expenses/actions.ts"}, // files-modified
			tasks: []taskWant{
				{line: 30, typ: "auto", actionHas: "`Result<Expense, string>` where `type Result<T, E> = { ok: true; value: T }"},
				{line: 42, typ: "auto", verify: "npm run build"},
			},
		},
		{
			file: ".planning/phases/02-legacy-api/02-01-PLAN.md",
			name: "Serve the v1 expense list from the new stack so that the mobile app keeps working.",
			typ:  "execute", autonomous: false,
			objectiveHas: "Serve the v1 expense list",
			contextHas:   "The v1 server (Express)",
			tasks: []taskWant{
				{line: 21, typ: "auto", name: "Route handler", files: []string{"src/app/api/v1/expenses/route.ts"},
					actionHas: "```bash\n# quick manual check while developing", // a comment inside a fence is no heading
					verify:    "`curl -s localhost:3000/api/v1/expenses?team=t1` returns a JSON array",
					done:      "v1 clients get the same shape as before"},
				{line: 43, typ: plan.TaskHumanVerify, name: "Contract tests",
					files:  []string{"src/app/api/v1/expenses/route.test.ts", "fixtures/v1-expenses.json"},
					verify: "`npx vitest run src/app/api/v1`", done: "contract tests pass against the recorded fixtures"},
			},
		},
		{
			file: ".planning/phases/02-legacy-api/02-02-PLAN.md",
			deps: []string{"02-01"}, autonomous: true,
			tasks: []taskWant{
				{line: 16, name: "Ownership check", files: []string{"src/app/api/v1/expenses/[id]/route.ts"}, done: "non-owners get 403"},
				{line: 21, name: "Soft delete", actionHas: "Set `deletedAt`", verify: "`npx vitest run src/app/api/v1/expenses`"},
			},
		},
		{
			file: ".planning/phases/02-legacy-api/02-03-PLAN.md",
			name: "Plan 02-03: Document the v1 API",
			wave: 3, deps: []string{"02-01", "02-02"}, autonomous: true,
			tasks: []taskWant{ // <task> inside "## Task N" sections: the tags win
				{line: 14, name: "Write docs/api-v1.md", files: []string{"docs/api-v1.md"}},
				{line: 24, name: "Link from README", files: []string{"README.md"}},
			},
		},
		{
			file: ".planning/phases/02.1-hotfix/02.1-02-PLAN.md",
			wave: 2, deps: []string{"02.1-01"}, autonomous: true, // depends_on: [1] in a decimal phase
			tasks: []taskWant{{line: 15, typ: "auto"}},
		},
		{
			file: ".planning/phases/02.1-hotfix/02.1-01-PLAN.md",
			wave: 1, autonomous: true,
			tasks: []taskWant{{line: 17, typ: "tdd", tdd: true, automated: "npx vitest run src/lib/money.test.ts"}},
		},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			p, ds := parseFixture(t, tt.file)
			if p == nil || plan.HasErrors(ds) {
				t.Fatalf("parse.Plan: %v %v", p, ds)
			}
			if want := strings.TrimSuffix(filepath.Base(tt.file), "-PLAN.md"); p.ID != want || p.Path != tt.file {
				t.Errorf("ID/Path = %s %s", p.ID, p.Path)
			}
			check := func(field string, got, want any) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", field, got, want)
				}
			}
			if tt.name != "" {
				check("Name", p.Name, tt.name)
			}
			if tt.typ != "" {
				check("Type", p.Type, tt.typ)
			}
			check("Wave", p.Wave, tt.wave)
			check("DependsOn", p.DependsOn, tt.deps)
			if tt.files != nil {
				check("FilesModified", p.FilesModified, tt.files)
			}
			check("Autonomous", p.Autonomous, tt.autonomous)
			if !strings.Contains(p.Objective, tt.objectiveHas) {
				t.Errorf("Objective %q lacks %q", p.Objective, tt.objectiveHas)
			}
			if !strings.Contains(p.Context, tt.contextHas) {
				t.Errorf("Context %q lacks %q", p.Context, tt.contextHas)
			}
			if len(p.Tasks) != len(tt.tasks) {
				t.Fatalf("%d tasks, want %d: %+v", len(p.Tasks), len(tt.tasks), p.Tasks)
			}
			for i, w := range tt.tasks {
				got := p.Tasks[i]
				check("Number", got.Number, i+1)
				check("Line", got.Line, w.line)
				typ := w.typ
				if typ == "" {
					typ = plan.TaskAuto
				}
				check("Type", got.Type, typ)
				if w.name != "" {
					check("Name", got.Name, w.name)
				}
				check("Gate", got.Gate, w.gate)
				if w.files != nil {
					check("Files", got.Files, w.files)
				}
				if !strings.Contains(got.Action, w.actionHas) {
					t.Errorf("task %d Action lacks %q:\n%s", i+1, w.actionHas, got.Action)
				}
				if w.verify != "" {
					check("Verify", got.Verify, w.verify)
				}
				if w.automated != "" {
					check("Automated", got.Automated, w.automated)
				}
				if w.done != "" {
					check("Done", got.Done, w.done)
				}
				check("IsTDD", got.IsTDD(), w.tdd || typ == plan.TaskTDD)
				for _, k := range w.extra {
					if got.Extra[k] == "" {
						t.Errorf("task %d: Extra[%q] missing: %v", i+1, k, got.Extra)
					}
				}
			}
		})
	}
}

func TestParsePlanMustHavesAndLines(t *testing.T) {
	p, _ := parseFixture(t, ".planning/phases/01-foundation/01-01-PLAN.md")
	mh := p.MustHaves
	if len(mh.Truths) != 2 || !strings.HasPrefix(mh.Truths[0], "Running `npx prisma migrate dev`") {
		t.Errorf("truths = %q", mh.Truths)
	}
	wantArt := []plan.Artifact{
		{Path: "prisma/schema.prisma", Provides: "User, Team, Expense and Split models", Contains: "model Expense"},
		{Path: "src/lib/money.ts", Provides: "cents arithmetic and even splitting"},
	}
	if !reflect.DeepEqual(mh.Artifacts, wantArt) {
		t.Errorf("artifacts = %+v", mh.Artifacts)
	}
	wantLink := []plan.KeyLink{{From: "src/lib/db.ts", To: "prisma/schema.prisma", Via: "PrismaClient generated from the schema", Pattern: "new PrismaClient"}}
	if !reflect.DeepEqual(mh.KeyLinks, wantLink) {
		t.Errorf("key_links = %+v", mh.KeyLinks)
	}
	if !reflect.DeepEqual(p.Requirements, []string{"DATA-01", "DATA-02"}) {
		t.Errorf("requirements = %v", p.Requirements)
	}
	for key, line := range map[string]int{"phase": 2, "wave": 5, "depends_on": 6, "files_modified": 7, "files_modified[2]": 10, "autonomous": 13} {
		if p.Lines[key] != line {
			t.Errorf("Lines[%s] = %d, want %d", key, p.Lines[key], line)
		}
	}
	if p.BodyLine != 35 {
		t.Errorf("BodyLine = %d", p.BodyLine)
	}

	p3, _ := parseFixture(t, ".planning/phases/01-foundation/01-03-PLAN.md")
	d := p3.Tasks[0].Decision
	if d == nil {
		t.Fatal("no decision")
	}
	if d.Question != "Select the component library for the app shell" || !strings.HasPrefix(d.Context, "The shell, forms and tables") {
		t.Errorf("decision = %+v", d)
	}
	if len(d.Options) != 2 {
		t.Fatalf("options = %+v", d.Options)
	}
	o := d.Options[1]
	if o.ID != "mantine" || o.Name != "Mantine" || o.Pros != "Large set incl. dates and tables; good docs" ||
		o.Cons != "Emotion/CSS modules setup; heavier bundle (&gt; 100 kB)" || !strings.HasPrefix(o.Text, "<name>Mantine</name>") {
		t.Errorf("option = %+v", o)
	}
	if p3.Tasks[0].ResumeSignal != "Select: shadcn or mantine" {
		t.Errorf("resume-signal = %q", p3.Tasks[0].ResumeSignal)
	}
	if us, ok := p3.UserSetup.([]any); !ok || len(us) != 1 {
		t.Errorf("user_setup = %#v", p3.UserSetup)
	}

	p4, ds := parseFixture(t, ".planning/phases/01-foundation/01-04-PLAN.md")
	if p4.Extra["model_profile"] != "quality" {
		t.Errorf("Extra = %v", p4.Extra)
	}
	if len(ds) != 1 || ds[0].Line != 11 || ds[0].Severity != plan.SeverityNote {
		t.Errorf("diagnostics = %v", ds)
	}
}

// A summary whose title is followed by bold-labelled metadata, not by a
// line that says what was built: the metadata is no one-liner.
func TestSummaryOneLinerSkipsMetadata(t *testing.T) {
	for body, want := range map[string]string{
		"# Plan 02-A Summary\n\n**Status:** Complete\n**Wave:** 1\n\n## What was built\n\n- a thing\n": "",
		"# Plan 02-A Summary\n\n**Status:** Complete\n\nA store that keeps every row.\n\n## Details\n": "A store that keeps every row.",
		"# Plan 02-A Summary\n\n**Wave:** 1\n**One-liner:** a store that keeps every row\n":            "a store that keeps every row",
		"# Summary\n\n**Completed:** 2026-06-14\n**Built a store whose rows survive a crash**\n":       "Built a store whose rows survive a crash",
	} {
		s, _ := parse.Summary("02-A-SUMMARY.md", []byte(body))
		if s.OneLiner != want {
			t.Errorf("one-liner of %q = %q, want %q", body, s.OneLiner, want)
		}
	}
}

func TestParseSummary(t *testing.T) {
	tests := []struct {
		file, selfCheck, oneLiner string
		created, modified         []string
		completed, duration       string
	}{
		{
			file:      ".planning/phases/01-foundation/01-01-SUMMARY.md",
			selfCheck: "PASSED",
			oneLiner:  "Prisma schema with integer-cent amounts plus a tested splitEvenly that never loses a cent",
			created:   []string{"prisma/schema.prisma", "src/lib/db.ts", "src/lib/money.ts"},
			modified:  []string{"package.json"},
			completed: "2026-03-02", duration: "6min",
		},
		{
			file:      ".planning/phases/01-foundation/01-02-SUMMARY.md",
			selfCheck: "FAILED",
			oneLiner:  "Login route with an httpOnly session cookie signed by jose. The refresh flow is left for phase 3.",
			created:   []string{"src/lib/auth.ts", "src/app/api/auth/login/route.ts"},
			completed: "2026-03-02", duration: "11min",
		},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fixture, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			s, ds := parse.Summary(tt.file, data)
			if len(ds) != 0 {
				t.Errorf("diagnostics: %v", ds)
			}
			if s.SelfCheck != tt.selfCheck || s.OneLiner != tt.oneLiner || s.Completed != tt.completed || s.Duration != tt.duration {
				t.Errorf("got %q %q %q %q", s.SelfCheck, s.OneLiner, s.Completed, s.Duration)
			}
			if !reflect.DeepEqual(s.KeyFilesCreated, tt.created) || !reflect.DeepEqual(s.KeyFilesModified, tt.modified) {
				t.Errorf("key-files = %q / %q", s.KeyFilesCreated, s.KeyFilesModified)
			}
			if s.PlanID != strings.TrimSuffix(filepath.Base(tt.file), "-SUMMARY.md") || s.Phase != "01-foundation" {
				t.Errorf("ids = %q %q", s.PlanID, s.Phase)
			}
		})
	}
	data, _ := os.ReadFile(filepath.Join(fixture, tests[0].file))
	s, _ := parse.Summary(tests[0].file, data)
	if s.Subsystem != "database" || !reflect.DeepEqual(s.Tags, []string{"prisma", "postgres", "money"}) ||
		len(s.KeyDecisions) != 2 || len(s.PatternsEstablished) != 1 || s.TechStack["added"] == nil {
		t.Errorf("summary = %+v", s)
	}
}

func TestParseSummaryEdgeCases(t *testing.T) {
	tests := []struct {
		name, in, selfCheck, oneLiner string
		broken                        bool // a warning about the frontmatter, never an error
	}{
		{"no frontmatter", "# Summary\n\nDid the thing.\n\n## Self-check: passed (all files found)\n", "PASSED", "Did the thing.", false},
		{"last verdict wins", "# S\n\n**Bold one-liner**\n\n## Self-Check: FAILED\n\n## Self-Check: PASSED\n", "PASSED", "Bold one-liner", false},
		{"no verdict", "---\nplan: 01\n---\n# S\n\ntext\n", "", "text", false},
		{"verdict in a bold line", "# S\n\n**Self-Check: FAILED** — 2 missing\n", "FAILED", "", false},
		{"unclosed frontmatter keeps the verdict", "---\nplan: 01\n# S\n## Self-Check: FAILED\n", "FAILED", "", true},
		{"broken yaml", "---\nplan: [01\n---\n# S\n\nok\n## Self-Check: PASSED\n", "PASSED", "ok", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ds := parse.Summary("x/01-01-SUMMARY.md", []byte(tt.in))
			warned := false
			for _, d := range ds {
				warned = warned || (d.Severity == plan.SeverityWarning && strings.Contains(d.Message, "the plan counts as done when the Self-Check passed"))
			}
			if s.SelfCheck != tt.selfCheck || plan.HasErrors(ds) || warned != tt.broken {
				t.Errorf("SelfCheck=%q errors=%v warned=%v (%v)", s.SelfCheck, plan.HasErrors(ds), warned, ds)
			}
			if tt.oneLiner != "" && s.OneLiner != tt.oneLiner {
				t.Errorf("OneLiner = %q", s.OneLiner)
			}
		})
	}
}

// GSD's TDD plans hold one <feature> (name, files, behavior,
// implementation) instead of <tasks>; each feature is one tdd task, so that
// progress counts it. tdd="true" tasks count as tasks too.
func TestParsePlanTDDFeatures(t *testing.T) {
	const body = `
<objective>
Parse durations written by people.
</objective>

<feature>
  <name>Duration parser</name>
  <files>src/time/parse.ts, src/time/parse.test.ts</files>
  <behavior>
    "90s" → 90; "1h30m" → 5400; "" → error
  </behavior>
  <implementation>Scan number-unit pairs; reject unknown units.</implementation>
</feature>

<feature>
  <name>Duration formatter</name>
  <files>src/time/format.ts</files>
  <behavior>5400 → "1h30m"</behavior>
</feature>

<verification>npm test -- src/time</verification>
`
	p, ds := parse.Plan(plantest.Dir+"/01-02-PLAN.md", []byte(plantest.Plan("type: tdd\nwave: 1", body)))
	if p == nil || plan.HasErrors(ds) {
		t.Fatalf("plan %v: %s", p, plantest.DiagList(ds))
	}
	for _, d := range ds {
		if strings.Contains(d.Message, "no tasks found") {
			t.Errorf("unexpected %s", d)
		}
	}
	if len(p.Tasks) != 2 {
		t.Fatalf("tasks = %+v, want 2", p.Tasks)
	}
	f := p.Tasks[0]
	if f.Number != 1 || f.Line != 10 || f.Type != plan.TaskTDD || !f.IsTDD() || f.Name != "Duration parser" ||
		!reflect.DeepEqual(f.Files, []string{"src/time/parse.ts", "src/time/parse.test.ts"}) ||
		!strings.Contains(f.Extra["behavior"], `"1h30m" → 5400`) || f.Action != "Scan number-unit pairs; reject unknown units." {
		t.Errorf("feature 1 = %+v", f)
	}
	if g := p.Tasks[1]; g.Number != 2 || g.Type != plan.TaskTDD || g.Name != "Duration formatter" {
		t.Errorf("feature 2 = %+v", g)
	}

	// The same inside <tasks>, next to tdd="true" tasks.
	p, ds = parse.Plan(plantest.Dir+"/01-03-PLAN.md", []byte(plantest.Plan("type: tdd", `<tasks>
<task type="auto" tdd="true"><name>Red</name><behavior>fails first</behavior></task>
<feature><name>Green</name><behavior>passes</behavior></feature>
</tasks>`)))
	if p == nil || len(p.Tasks) != 2 || !p.Tasks[0].IsTDD() || p.Tasks[0].Type != plan.TaskAuto || p.Tasks[1].Type != plan.TaskTDD {
		t.Fatalf("tasks = %+v (%s)", p, plantest.DiagList(ds))
	}
}

// GSD's SUMMARY template labels the one-liner; the label is not part of it.
func TestSummaryOneLinerLabel(t *testing.T) {
	for _, body := range []string{
		"# Phase 6 Plan 3: Auth tests\n\n**One-liner:** Storage-state login covering logout and sessions.\n\n## Accomplishments\n",
		"# Phase 6 Plan 3: Auth tests\n\nOne-liner: Storage-state login covering logout and sessions.\n",
	} {
		s, _ := parse.Summary("06-03-SUMMARY.md", []byte("---\nphase: 06-e2e\nplan: 03\n---\n"+body))
		if s.OneLiner != "Storage-state login covering logout and sessions." {
			t.Errorf("one-liner %q", s.OneLiner)
		}
	}
}
