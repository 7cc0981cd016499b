package load_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// writePhase writes files into root/.planning/phases/<dir>/ and loads the phase.
func writePhase(t *testing.T, root, phaseDir string, files map[string]string) *plan.Phase {
	t.Helper()
	ph, err := load.Phase(root, plantest.WritePhase(t, root, phaseDir, files))
	if err != nil {
		t.Fatal(err)
	}
	return ph
}

// Every SUMMARY naming GSD has used counts for its plan, SummaryPath names
// the file found, and lint notes say which plan each unusual name went to.
func TestSummaryNamings(t *testing.T) {
	root := t.TempDir()
	ph := writePhase(t, root, "03-auth", map[string]string{
		"03-01-PLAN.md":          plantest.Plan("wave: 1", plantest.AutoTask),
		"03-01-SUMMARY.md":       plantest.Passed,
		"03-02-PLAN.md":          plantest.Plan("wave: 1", plantest.AutoTask),
		"03-auth-02-SUMMARY.md":  plantest.Passed, // phase slug in the SUMMARY name
		"03-03-login-PLAN.md":    plantest.Plan("wave: 1", plantest.AutoTask),
		"03-03-SUMMARY.md":       plantest.Passed, // plan slug only in the PLAN name
		"03-04-oauth-PLAN.md":    plantest.Plan("wave: 1", plantest.AutoTask),
		"03-04-oauth-SUMMARY.md": plantest.Passed,
		"3-5-PLAN.md":            plantest.Plan("wave: 1", plantest.AutoTask),
		"03-05-SUMMARY.md":       plantest.Passed, // padding differs
		"03-auth-06-PLAN.md":     plantest.Plan("wave: 1", plantest.AutoTask),
		"03-auth-06-SUMMARY.md":  plantest.Passed,
		"03-07-PLAN.md":          plantest.Plan("wave: 1", plantest.AutoTask), // not done: no SUMMARY
		"03-09-SUMMARY.md":       plantest.Passed,                             // no plan
		"03-auth-01-SUMMARY.md":  plantest.Passed,                             // a second SUMMARY of 03-01
	})
	base := plan.PhasesDir + "/03-auth/"
	want := map[string]string{
		"03-01":       "03-01-SUMMARY.md",
		"03-02":       "03-auth-02-SUMMARY.md",
		"03-03-login": "03-03-SUMMARY.md",
		"03-04-oauth": "03-04-oauth-SUMMARY.md",
		"3-5":         "03-05-SUMMARY.md",
		"03-auth-06":  "03-auth-06-SUMMARY.md",
	}
	for _, p := range ph.Plans {
		s := ph.Summaries[p.ID]
		name, done := want[p.ID]
		switch {
		case !done && s != nil:
			t.Errorf("plan %s counted done by %s", p.ID, s.Path)
		case !done:
			if got := p.SummaryPath(); got != base+p.ID+"-SUMMARY.md" {
				t.Errorf("plan %s: SummaryPath = %s, want the canonical name", p.ID, got)
			}
		case s == nil:
			t.Errorf("plan %s: no SUMMARY matched, want %s", p.ID, name)
		case s.Path != base+name || p.SummaryPath() != base+name || s.PlanID != p.ID:
			t.Errorf("plan %s: SUMMARY %s (plan %s), SummaryPath %s; want %s", p.ID, s.Path, s.PlanID, p.SummaryPath(), name)
		}
	}
	notes := map[string]string{}
	for _, d := range ph.Diagnostics {
		if d.Severity == plan.SeverityNote && strings.HasSuffix(d.File, "-SUMMARY.md") {
			notes[strings.TrimPrefix(d.File, base)] = d.Message
		}
		if d.Severity == plan.SeverityError {
			t.Errorf("error: %s", d)
		}
	}
	for file, msg := range map[string]string{
		"03-auth-02-SUMMARY.md": "SUMMARY of plan 03-02 (" + base + "03-02-PLAN.md), matched by its phase and plan numbers",
		"03-03-SUMMARY.md":      "SUMMARY of plan 03-03-login",
		"03-09-SUMMARY.md":      "summary of plan 03-09, which has no PLAN.md in this phase",
		"03-auth-01-SUMMARY.md": "another SUMMARY of plan 03-01, which already has " + base + "03-01-SUMMARY.md",
	} {
		if !strings.Contains(notes[file], msg) {
			t.Errorf("%s: note %q, want %q", file, notes[file], msg)
		}
	}
	for _, file := range []string{"03-01-SUMMARY.md", "03-04-oauth-SUMMARY.md", "03-auth-06-SUMMARY.md"} {
		if notes[file] != "" {
			t.Errorf("%s: a SUMMARY named like its plan needs no note, got %q", file, notes[file])
		}
	}
}

func TestSummaryMatchingSeveralPlans(t *testing.T) {
	ph := writePhase(t, t.TempDir(), "03-auth", map[string]string{
		"03-02-login-PLAN.md":  plantest.Plan("wave: 1", plantest.AutoTask),
		"03-02-logout-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask),
		"03-02-SUMMARY.md":     plantest.Passed,
	})
	if len(ph.Plans) != 2 || ph.Summaries["03-02-login"] != nil || ph.Summaries["03-02-logout"] != nil {
		t.Errorf("an ambiguous SUMMARY must count for no plan: %v", ph.Summaries)
	}
	found := false
	for _, d := range ph.Diagnostics {
		found = found || strings.Contains(d.Message, "match several plans (03-02-login, 03-02-logout)")
	}
	if !found {
		t.Errorf("no note about the ambiguous SUMMARY: %s", plantest.DiagList(ph.Diagnostics))
	}
}

// Some GSD projects name plans NN-PLAN-MM.md; depends_on and SUMMARYs call
// them NN-MM.
func TestPlanDashNaming(t *testing.T) {
	ph := writePhase(t, t.TempDir(), "12.2-devices", map[string]string{
		"12.2-PLAN-01.md":    plantest.Plan("wave: 1", plantest.AutoTask),
		"12.2-PLAN-02.md":    plantest.Plan("depends_on: ['12.2-01']", plantest.AutoTask),
		"12.2-01-SUMMARY.md": plantest.Passed,
	})
	if len(ph.Plans) != 2 || ph.Plans[0].ID != "12.2-01" || ph.Plans[1].ID != "12.2-02" {
		t.Fatalf("plans = %v", ph.Plans)
	}
	if ph.Summaries["12.2-01"] == nil || ph.Plans[1].ComputedWave != 2 {
		t.Errorf("summaries %v, wave of 12.2-02 %d", ph.Summaries, ph.Plans[1].ComputedWave)
	}
	if ds := append(ph.Diagnostics, validate.Phase(ph)...); plan.HasErrors(ds) || strings.Contains(plantest.DiagList(ds), "not a plan") {
		t.Errorf("diagnostics:\n%s", plantest.DiagList(ds))
	}
}

// Plans lettered in that naming, with a slug after the letter
// (01-PLAN-B-store.md is plan 01-B), whose SUMMARYs are NN-X-SUMMARY.md
// and whose depends_on names the other plan's file.
func TestPlanDashLettered(t *testing.T) {
	ph := writePhase(t, t.TempDir(), "01-setup", map[string]string{
		"01-PLAN-A-skeleton.md": plantest.Plan("wave: 1", plantest.AutoTask),
		"01-PLAN-B-store.md":    plantest.Plan("wave: 1", plantest.AutoTask),
		"01-PLAN-C-wiring.md":   plantest.Plan("wave: 2\ndepends_on: [01-PLAN-A-skeleton, 01-PLAN-B-store.md]", plantest.AutoTask),
		"01-A-SUMMARY.md":       plantest.Passed,
	})
	var ids []string
	for _, p := range ph.Plans {
		ids = append(ids, p.ID)
	}
	if want := []string{"01-A", "01-B", "01-C"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("plans = %q, want %q", ids, want)
	}
	if c := ph.Plans[2]; !reflect.DeepEqual(c.DependsOn, []string{"01-A", "01-B"}) || c.ComputedWave != 2 {
		t.Errorf("01-C depends on %q (wave %d), want 01-A and 01-B (wave 2)", c.DependsOn, c.ComputedWave)
	}
	if ph.Summaries["01-A"] == nil || ph.Summaries["01-B"] != nil {
		t.Errorf("summaries %v, want 01-A's only", ph.Summaries)
	}
	if ds := append(ph.Diagnostics, validate.Phase(ph)...); plan.HasErrors(ds) || strings.Contains(plantest.DiagList(ds), "not a plan") || strings.Contains(plantest.DiagList(ds), "unknown plan") {
		t.Errorf("diagnostics:\n%s", plantest.DiagList(ds))
	}
}

// Older GSD wrote plan ids with the phase slug (01-analytics-01); they name
// the plan 01-01, and a plan id with a slug after the numbers is found by
// its numbers.
func TestSlugDependencies(t *testing.T) {
	ph := writePhase(t, t.TempDir(), "01-analytics", map[string]string{
		"01-01-events-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask),
		"01-02-PLAN.md":        plantest.Plan("depends_on:\n  - 01-analytics-01", plantest.AutoTask),
		"01-03-PLAN.md":        plantest.Plan("depends_on: [\"01-02\", 1]", plantest.AutoTask),
	})
	if got := ph.Plan("01-02").DependsOn; !reflect.DeepEqual(got, []string{"01-01-events"}) {
		t.Errorf("01-02 DependsOn = %q", got)
	}
	if got := ph.Plan("01-03").DependsOn; !reflect.DeepEqual(got, []string{"01-02", "01-01-events"}) {
		t.Errorf("01-03 DependsOn = %q", got)
	}
	if ds := validate.Phase(ph); plan.HasErrors(ds) {
		t.Errorf("errors: %s", plantest.DiagList(ds))
	}
	if w := ph.Plan("01-03").ComputedWave; w != 3 {
		t.Errorf("01-03 wave %d, want 3", w)
	}
}
