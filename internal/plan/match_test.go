package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writePhase writes files into root/.planning/phases/<dir>/ and loads the phase.
func writePhase(t *testing.T, root, phaseDir string, files map[string]string) *Phase {
	t.Helper()
	abs := filepath.Join(root, ".planning", "phases", phaseDir)
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(abs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ph, err := LoadPhase(root, PhasesDir+"/"+phaseDir)
	if err != nil {
		t.Fatal(err)
	}
	return ph
}

const passed = "---\nphase: 03-auth\n---\n# Summary\n\nDone.\n\n## Self-Check: PASSED\n"

// Every SUMMARY naming GSD has used counts for its plan, SummaryPath names
// the file found, and lint notes say which plan each unusual name went to.
func TestSummaryNamings(t *testing.T) {
	root := t.TempDir()
	ph := writePhase(t, root, "03-auth", map[string]string{
		"03-01-PLAN.md":          plan("wave: 1", autoTask),
		"03-01-SUMMARY.md":       passed,
		"03-02-PLAN.md":          plan("wave: 1", autoTask),
		"03-auth-02-SUMMARY.md":  passed, // phase slug in the SUMMARY name
		"03-03-login-PLAN.md":    plan("wave: 1", autoTask),
		"03-03-SUMMARY.md":       passed, // plan slug only in the PLAN name
		"03-04-oauth-PLAN.md":    plan("wave: 1", autoTask),
		"03-04-oauth-SUMMARY.md": passed,
		"3-5-PLAN.md":            plan("wave: 1", autoTask),
		"03-05-SUMMARY.md":       passed, // padding differs
		"03-auth-06-PLAN.md":     plan("wave: 1", autoTask),
		"03-auth-06-SUMMARY.md":  passed,
		"03-07-PLAN.md":          plan("wave: 1", autoTask), // not done: no SUMMARY
		"03-09-SUMMARY.md":       passed,                    // no plan
		"03-auth-01-SUMMARY.md":  passed,                    // a second SUMMARY of 03-01
	})
	base := PhasesDir + "/03-auth/"
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
		if d.Severity == SeverityNote && strings.HasSuffix(d.File, "-SUMMARY.md") {
			notes[strings.TrimPrefix(d.File, base)] = d.Message
		}
		if d.Severity == SeverityError {
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
		"03-02-login-PLAN.md":  plan("wave: 1", autoTask),
		"03-02-logout-PLAN.md": plan("wave: 1", autoTask),
		"03-02-SUMMARY.md":     passed,
	})
	if len(ph.Plans) != 2 || ph.Summaries["03-02-login"] != nil || ph.Summaries["03-02-logout"] != nil {
		t.Errorf("an ambiguous SUMMARY must count for no plan: %v", ph.Summaries)
	}
	found := false
	for _, d := range ph.Diagnostics {
		found = found || strings.Contains(d.Message, "match several plans (03-02-login, 03-02-logout)")
	}
	if !found {
		t.Errorf("no note about the ambiguous SUMMARY: %s", diagList(ph.Diagnostics))
	}
}

func TestPlanKey(t *testing.T) {
	for name, want := range map[string]string{
		"03-02": "3/2", "03-auth-02": "3/2", "03-02-login": "3/2", "02.1-03": "2.1/3",
		"CK-04-01": "4/1", "03-user-auth-12": "3/12", "3A-01": "3A/1",
		"03": "", "03-auth": "", "03-auth-02-extra": "", "auth": "", "03-FIX": "", "03-v2-auth-02": "3/2", "03-2fa-02": "3/2", "03-1-2": "3/1",
	} {
		ph, n, ok := planKey(name)
		got := ""
		if ok {
			got = ph + "/" + n
		}
		if got != want {
			t.Errorf("planKey(%q) = %q, want %q", name, got, want)
		}
	}
}

// Some GSD projects name plans NN-PLAN-MM.md; depends_on and SUMMARYs call
// them NN-MM.
func TestPlanDashNaming(t *testing.T) {
	ph := writePhase(t, t.TempDir(), "12.2-devices", map[string]string{
		"12.2-PLAN-01.md":    plan("wave: 1", autoTask),
		"12.2-PLAN-02.md":    plan("depends_on: ['12.2-01']", autoTask),
		"12.2-01-SUMMARY.md": passed,
	})
	if len(ph.Plans) != 2 || ph.Plans[0].ID != "12.2-01" || ph.Plans[1].ID != "12.2-02" {
		t.Fatalf("plans = %v", ph.Plans)
	}
	if ph.Summaries["12.2-01"] == nil || ph.Plans[1].ComputedWave != 2 {
		t.Errorf("summaries %v, wave of 12.2-02 %d", ph.Summaries, ph.Plans[1].ComputedWave)
	}
	if ds := append(ph.Diagnostics, Validate(ph)...); HasErrors(ds) || strings.Contains(diagList(ds), "not a plan") {
		t.Errorf("diagnostics:\n%s", diagList(ds))
	}
}

// Plans lettered in that naming, with a slug after the letter
// (01-PLAN-B-store.md is plan 01-B), whose SUMMARYs are NN-X-SUMMARY.md
// and whose depends_on names the other plan's file.
func TestPlanDashLettered(t *testing.T) {
	ph := writePhase(t, t.TempDir(), "01-setup", map[string]string{
		"01-PLAN-A-skeleton.md": plan("wave: 1", autoTask),
		"01-PLAN-B-store.md":    plan("wave: 1", autoTask),
		"01-PLAN-C-wiring.md":   plan("wave: 2\ndepends_on: [01-PLAN-A-skeleton, 01-PLAN-B-store.md]", autoTask),
		"01-A-SUMMARY.md":       passed,
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
	if ds := append(ph.Diagnostics, Validate(ph)...); HasErrors(ds) || strings.Contains(diagList(ds), "not a plan") || strings.Contains(diagList(ds), "unknown plan") {
		t.Errorf("diagnostics:\n%s", diagList(ds))
	}
}

// A plan whose PLAN.md was cleaned away once it was done leaves its
// SUMMARY: a plan that depends on it waits for nothing, and lint says so
// in a note (it refused the phase with an error); a SUMMARY that failed its
// Self-Check, or no trace of the plan at all, is still an error.
func TestDependencyOnASummaryOnlyPlan(t *testing.T) {
	failed := strings.Replace(passed, "PASSED", "FAILED", 1)
	for _, tt := range []struct {
		name    string
		summary string // of 02-03; "" for none
		want    string // the diagnostic of 02-05's dependency
		sev     Severity
	}{
		{"done", passed, "depends_on names 02-03, whose PLAN.md is gone; its SUMMARY (02-03-SUMMARY.md) says it is done", SeverityNote},
		{"failed", failed, "depends_on names unknown plan 02-03", SeverityError},
		{"gone", "", "depends_on names unknown plan 02-03", SeverityError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"02-05-PLAN.md": plan("wave: 2\ndepends_on: [02-03]", autoTask)}
			if tt.summary != "" {
				files["02-03-SUMMARY.md"] = tt.summary
			}
			ph := writePhase(t, t.TempDir(), "02-claims", files)
			var got *Diagnostic
			for _, d := range append(ph.Diagnostics, Validate(ph)...) {
				if strings.Contains(d.Message, "depends_on names") {
					got = &d
				}
			}
			if got == nil || got.Severity != tt.sev || !strings.HasPrefix(got.Message, tt.want) {
				t.Errorf("got %v, want %s %q", got, tt.sev, tt.want)
			}
		})
	}
}
