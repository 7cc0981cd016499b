package objectives

import "testing"

// TestPipelineFixturesAreReal runs every fixture's tests for real (go test,
// python3 -m unittest, node --test): the correct variant passes every
// suite, the subtle one passes the repository's own cases and fails the
// tester's and the hidden ones, and the stub fails even its own. A bench
// whose bugs the tests did not catch would measure nothing.
func TestPipelineFixturesAreReal(t *testing.T) {
	out, err := Measure(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(All)*len(Languages) < 30 {
		t.Fatalf("%d objectives, want at least 30", len(All)*len(Languages))
	}
	for _, lang := range Languages {
		for _, o := range All {
			for _, s := range Suites {
				got := out[lang][VariantCorrect][o.Fn][s]
				if got.Passed == 0 || got.Failed != 0 {
					t.Errorf("%s %s, correct variant, %s cases: %+v", lang, o.Fn, s, got)
				}
			}
			subtle := out[lang][VariantSubtle][o.Fn]
			if subtle[SuiteVisible].Failed != 0 || subtle[SuiteTester].Failed == 0 || subtle[SuiteHidden].Failed == 0 {
				t.Errorf("%s %s, subtle variant: %+v; want the visible cases to pass, the tester's and hidden ones to fail", lang, o.Fn, subtle)
			}
			if stub := out[lang][VariantStub][o.Fn]; stub[SuiteVisible].Failed == 0 {
				t.Errorf("%s %s, stub: %+v; want a visible case to fail", lang, o.Fn, stub)
			}
		}
	}
}
