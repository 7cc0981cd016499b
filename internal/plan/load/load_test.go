package load_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// fixture is the project the plan packages' tests share.
const fixture = "../testdata/project"

func loadFixture(t *testing.T) *plan.Project {
	t.Helper()
	p, err := load.Project(fixture)
	if err != nil {
		t.Fatalf("load.Project: %v", err)
	}
	return p
}

func TestLoadProject(t *testing.T) {
	p := loadFixture(t)
	var dirs []string
	for _, ph := range p.Phases {
		dirs = append(dirs, ph.Dir)
	}
	// Numeric order, decimal phase in between, milestones and non-phase folders ignored.
	want := []string{
		".planning/phases/01-foundation",
		".planning/phases/02-legacy-api",
		".planning/phases/02.1-hotfix",
		".planning/phases/10-polish",
	}
	if !reflect.DeepEqual(dirs, want) {
		t.Fatalf("phases = %v, want %v", dirs, want)
	}
	if !filepath.IsAbs(p.Root) {
		t.Errorf("Root %q is not absolute", p.Root)
	}
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].File != ".planning/phases/notes" || p.Diagnostics[0].Severity != plan.SeverityNote {
		t.Errorf("project diagnostics = %v, want one note about .planning/phases/notes", p.Diagnostics)
	}
	for _, ph := range p.Phases {
		if ds := append(ph.Diagnostics, validate.Phase(ph)...); plan.HasErrors(ds) {
			t.Errorf("phase %s has errors: %v", ph.Dir, ds)
		}
	}
	ph := p.Phases[0]
	if ph.Number != "01" || ph.Slug != "foundation" {
		t.Errorf("phase 1 = %q/%q", ph.Number, ph.Slug)
	}
	var ids []string
	for _, pl := range ph.Plans {
		ids = append(ids, pl.ID)
	}
	if want := []string{"01-01", "01-02", "01-03", "01-04"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("plans = %v, want %v", ids, want)
	}
	if p.Phases[2].Number != "02.1" || p.Phases[2].Slug != "hotfix" {
		t.Errorf("decimal phase = %q/%q", p.Phases[2].Number, p.Phases[2].Slug)
	}
	// Stray files are notes, never errors.
	notes := map[string]string{}
	for _, d := range ph.Diagnostics {
		notes[filepath.Base(d.File)] = d.Severity.String() + ": " + d.Message
	}
	for _, f := range []string{"PLAN.md", "01-CONTEXT.md", "01-RESEARCH.md", "01-VERIFICATION.md"} {
		if !strings.HasPrefix(notes[f], "note: ") {
			t.Errorf("%s: got %q, want a note", f, notes[f])
		}
	}
	if !strings.Contains(notes["01-04-PLAN.md"], `"model_profile"`) {
		t.Errorf("unknown key note missing: %q", notes["01-04-PLAN.md"])
	}
	if len(ph.Summaries) != 2 || ph.Summaries["01-01"] == nil || ph.Summaries["01-02"] == nil {
		t.Errorf("summaries = %v", ph.Summaries)
	}
}

func TestLoadProjectMissingPlanning(t *testing.T) {
	_, err := load.Project(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "create .planning/") {
		t.Fatalf("err = %v, want a hint to create .planning", err)
	}
}

func TestLoadProjectWithoutPhases(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := load.Project(root)
	if err != nil || len(p.Phases) != 0 {
		t.Fatalf("got %v, %v", p, err)
	}
	if _, err := p.FindPhase("1"); err == nil || !strings.Contains(err.Error(), "no phase folders") {
		t.Errorf("FindPhase on empty project: %v", err)
	}
}

// A frontmatter strict YAML refuses but GSD reads (a value starting with a
// backtick) is read with a note; one nobody can read leaves its plan out,
// with an error.
func TestLoadPhaseLeavesOutInvalidYAML(t *testing.T) {
	ph, err := load.Phase("../testdata/broken", ".planning/phases/03-reports")
	if err != nil {
		t.Fatal(err)
	}
	if len(ph.Plans) != 2 || ph.Plans[0].ID != "03-01" || ph.Plans[1].ID != "03-02" {
		t.Fatalf("plans = %v, want 03-01 and 03-02", ph.Plans)
	}
	if got := ph.Plans[0].MustHaves.Truths; len(got) != 1 || got[0] != "`monthly.ts` exports totalsPerMember" {
		t.Errorf("truths = %q", got)
	}
	if len(ph.Diagnostics) != 2 {
		t.Fatalf("diagnostics = %v", ph.Diagnostics)
	}
	d := ph.Diagnostics[0]
	if d.File != ".planning/phases/03-reports/03-01-PLAN.md" || d.Line != 9 || d.Severity != plan.SeverityNote ||
		!strings.Contains(d.Message, "not valid YAML") || !strings.Contains(d.Message, "as GSD does") {
		t.Errorf("diagnostic = %s", d)
	}
	d = ph.Diagnostics[1]
	if d.File != ".planning/phases/03-reports/03-03-PLAN.md" || d.Line != 5 || d.Severity != plan.SeverityError ||
		!strings.Contains(d.Message, "invalid YAML") || !strings.Contains(d.Fix, "backtick") {
		t.Errorf("diagnostic = %s", d)
	}
	if ph.Plans[0].ComputedWave != 1 {
		t.Errorf("load.Phase should compute waves, got %d", ph.Plans[0].ComputedWave)
	}
}

func TestLoadPhaseIOError(t *testing.T) {
	if _, err := load.Phase(fixture, ".planning/phases/99-nope"); err == nil || !strings.Contains(err.Error(), "99-nope") {
		t.Fatalf("err = %v", err)
	}
}

func TestFindPhase(t *testing.T) {
	p := loadFixture(t)
	abs, _ := filepath.Abs(filepath.Join(fixture, ".planning/phases/02-legacy-api"))
	tests := []struct {
		arg, want, err string
	}{
		{"1", ".planning/phases/01-foundation", ""},
		{"01", ".planning/phases/01-foundation", ""},
		{"2", ".planning/phases/02-legacy-api", ""},
		{"2.1", ".planning/phases/02.1-hotfix", ""},
		{"02.1", ".planning/phases/02.1-hotfix", ""},
		{"10", ".planning/phases/10-polish", ""},
		{"02-legacy-api", ".planning/phases/02-legacy-api", ""},
		{"2-legacy-api", ".planning/phases/02-legacy-api", ""},
		{"hotfix", ".planning/phases/02.1-hotfix", ""},
		{".planning/phases/10-polish/", ".planning/phases/10-polish", ""},
		{"./.planning/phases/01-foundation", ".planning/phases/01-foundation", ""},
		{abs, ".planning/phases/02-legacy-api", ""},
		{"3", "", `phase "3" not found; available phases: 01-foundation, 02-legacy-api, 02.1-hotfix, 10-polish`},
		{"02-auth", "", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			ph, err := p.FindPhase(tt.arg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || ph.Dir != tt.want {
				t.Fatalf("got %v, %v; want %s", ph, err, tt.want)
			}
		})
	}
}

func TestPhasePlanAndSummaryPath(t *testing.T) {
	ph, err := loadFixture(t).FindPhase("1")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"01-03", "1-3"} {
		if pl := ph.Plan(id); pl == nil || pl.ID != "01-03" {
			t.Errorf("Plan(%q) = %v", id, pl)
		}
	}
	if ph.Plan("01-09") != nil {
		t.Error("Plan(01-09) should be nil")
	}
	if got := ph.Plan("01-02").SummaryPath(); got != ".planning/phases/01-foundation/01-02-SUMMARY.md" {
		t.Errorf("SummaryPath = %s", got)
	}
}

// GSD's project_code prefixes phase folders with the project's code
// (XR-02-api is phase 02 when .planning/config.json says "project_code":
// "XR"); the plans inside keep their NN-MM names. A folder with another
// code is not read, and lint says how to have it read.
func TestProjectCodePhaseFolders(t *testing.T) {
	root := t.TempDir()
	writePhase(t, root, "XR-01-setup", map[string]string{"01-01-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask), "01-01-SUMMARY.md": plantest.Passed})
	writePhase(t, root, "XR-02.1-api", map[string]string{"02.1-01-PLAN.md": plantest.Plan("depends_on: ['01-01']", plantest.AutoTask)})
	writePhase(t, root, "ZZ-03-other", map[string]string{"03-01-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask)})
	if err := os.WriteFile(filepath.Join(root, ".planning", "config.json"), []byte(`{"project_code": "XR"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := load.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ph := range p.Phases {
		got = append(got, ph.Number+" "+ph.Slug+" "+fmt.Sprint(len(ph.Plans)))
	}
	if want := []string{"01 setup 1", "02.1 api 1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("phases %q, want %q", got, want)
	}
	if ph, err := p.FindPhase("2.1"); err != nil || path.Base(ph.Dir) != "XR-02.1-api" {
		t.Errorf("FindPhase(2.1) = %v, %v", ph, err)
	}
	if ref, ok := load.LookupPlan(p, "01-01"); !ok || !ref.Done() {
		t.Errorf("LookupPlan(01-01) = %+v, %v; want done", ref, ok)
	}
	if ds := validate.InProject(p, p.Phases[1]); plan.HasErrors(ds) {
		t.Errorf("02.1's dependency on 01-01 of a coded folder: %v", ds)
	}
	found := false
	for _, d := range p.Diagnostics {
		if d.File == plan.PhasesDir+"/ZZ-03-other" {
			found = d.Severity == plan.SeverityWarning && strings.Contains(d.Fix, `set "project_code": "ZZ"`) && strings.Contains(d.Fix, "rename it 03-other")
		}
	}
	if !found {
		t.Errorf("no warning that ZZ-03-other is not read, with its fix: %v", p.Diagnostics)
	}
}

// A folder named like a phase another way (a fork's v0.40-03-hooks) is
// not read: a warning while it holds plans to run, with the number before
// its name to rename it to; a note when every plan in it is done.
func TestFoldersNamedAnotherWay(t *testing.T) {
	root := t.TempDir()
	writePhase(t, root, "v0.30-01-models", map[string]string{"v0.30-01-01-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask), "v0.30-01-01-SUMMARY.md": plantest.Passed})
	writePhase(t, root, "v0.40-03-hooks", map[string]string{"v0.40-03-01-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask)})
	p, err := load.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]plan.Diagnostic{}
	for _, d := range p.Diagnostics {
		got[path.Base(d.File)] = d
	}
	if d := got["v0.30-01-models"]; d.Severity != plan.SeverityNote || !strings.Contains(d.Message, "its 1 plan(s) are done: nothing to run") {
		t.Errorf("v0.30-01-models: %v", d)
	}
	if d := got["v0.40-03-hooks"]; d.Severity != plan.SeverityWarning || !strings.HasPrefix(d.Fix, "rename it 03-<name>") {
		t.Errorf("v0.40-03-hooks: %v", d)
	}
}
