package plan

import "testing"

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{SeverityError, "a/01-01-PLAN.md", 7, "wave must be a whole number", "set wave: 2"}, "a/01-01-PLAN.md:7: error: wave must be a whole number (fix: set wave: 2)"},
		{Diagnostic{SeverityWarning, "b.md", 1, "no tasks found", ""}, "b.md:1: warning: no tasks found"},
		{Diagnostic{SeverityNote, "c", 0, "stray", ""}, "c: note: stray"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if HasErrors([]Diagnostic{tests[1].d, tests[2].d}) || !HasErrors([]Diagnostic{tests[2].d, tests[0].d}) {
		t.Error("HasErrors")
	}
}

func TestComputeWavesError(t *testing.T) {
	a := &Plan{ID: "01-01", Path: "a", DependsOn: []string{"01-02"}}
	b := &Plan{ID: "01-02", Path: "b", DependsOn: []string{"01-01"}}
	c := &Plan{ID: "01-03", Path: "c", DependsOn: []string{"00-09"}}
	err := ComputeWaves([]*Plan{b, a, c})
	if err == nil || err.Error() != "dependency cycle: 01-01 (a) → 01-02 (b) → 01-01" {
		t.Fatalf("err = %v", err)
	}
	if a.ComputedWave != 0 || b.ComputedWave != 0 || c.ComputedWave != 1 {
		t.Errorf("waves = %d %d %d", a.ComputedWave, b.ComputedWave, c.ComputedWave)
	}
}
