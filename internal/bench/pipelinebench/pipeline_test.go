package pipelinebench

import (
	"context"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hivectl/hive/internal/bench/pipelinebench/objectives"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/workflows"
)

// measured runs the fixtures' real tests once for every test here.
var measured = sync.OnceValues(func() (objectives.Outcomes, error) {
	dir, err := os.MkdirTemp("", "hive-bench-test-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	return objectives.Measure(context.Background(), dir)
})

func outcomesFor(t *testing.T) objectives.Outcomes {
	t.Helper()
	out, err := measured()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPipelineBenchComparesConfigurations runs the simulated runs on the
// measured outcomes: each configuration runs every objective, the same
// seed gives the same figures, the implementer alone bills least and
// passes least, the planned pipeline bills less than the fixed one, and
// the figures are in range.
func TestPipelineBenchComparesConfigurations(t *testing.T) {
	out := outcomesFor(t)
	const trials = 4
	sums, err := pipelineRuns(out, 7, trials, defaultPolicy)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := pipelineRuns(out, 7, trials, defaultPolicy)
	if !reflect.DeepEqual(sums, again) {
		t.Fatal("two runs of one seed differ")
	}
	by := map[string]pipelineSummary{}
	for _, s := range sums {
		by[s.Config] = s
		if s.Runs != trials*len(objectives.All)*len(objectives.Languages) {
			t.Errorf("%s: %d runs", s.Config, s.Runs)
		}
		if s.BrierComputed < 0 || s.BrierComputed > 1 || s.BrierSelf < 0 || s.BrierSelf > 1 {
			t.Errorf("%s: Brier %v / %v", s.Config, s.BrierComputed, s.BrierSelf)
		}
		n := 0
		for _, b := range s.ComputedBins {
			n += b.Runs
			if b.Runs > 0 && (b.Said < b.Lo || b.Said > b.Hi) {
				t.Errorf("%s: bin %v–%v says %v", s.Config, b.Lo, b.Hi, b.Said)
			}
		}
		if n != s.Runs {
			t.Errorf("%s: the reliability table holds %d of %d runs", s.Config, n, s.Runs)
		}
	}
	alone, fixed, planned := by["implementer only"], by["fixed full"], by["planned"]
	if !(alone.Tokens < planned.Tokens && planned.Tokens < fixed.Tokens) {
		t.Errorf("tokens: alone %d, planned %d, fixed %d", alone.Tokens, planned.Tokens, fixed.Tokens)
	}
	if alone.passRate() >= planned.passRate() || alone.passRate() >= fixed.passRate() {
		t.Errorf("the implementer alone passes %.2f, planned %.2f, fixed %.2f: the other roles caught nothing", alone.passRate(), planned.passRate(), fixed.passRate())
	}
	if alone.Checkpoints != 0 {
		t.Errorf("the implementer alone raised %d checkpoints", alone.Checkpoints)
	}
	rows := pipelineReport(sums, trials)
	for _, r := range rows {
		if r.Group != "pipeline" || r.Figure == "" || (r.Target != "" && r.Status == report.Info) {
			t.Errorf("row %+v", r)
		}
	}
}

// TestPipelineBenchPlansTheTypo: the planner's answer for a typo runs the
// implementer and hive's build, nothing else; an answer out of its schema
// twice falls back to hive's rules, which choose the same for a typo.
func TestPipelineBenchPlansTheTypo(t *testing.T) {
	typo := objectives.All[0]
	for _, right := range []float64{1, 0} {
		pol := defaultPolicy
		pol.PlannerRight = right
		w, calls := plannedWorkflow(typo, pol, rand.New(rand.NewPCG(1, 2)))
		var roles []string
		for _, s := range w.Steps {
			if s.Type == "" {
				roles = append(roles, s.Role)
			}
		}
		if strings.Join(roles, ",") != workflows.RoleImplementer {
			t.Errorf("planner right %v: roles %v (%s)", right, roles, w)
		}
		if want := map[float64]int{1: 1, 0: 2}[right]; calls != want {
			t.Errorf("planner right %v: %d calls, want %d", right, calls, want)
		}
	}
}

// TestPipelineBenchRoutesOnEvidence: in the planned configuration hive
// judges the writers' work, and a run that delivers a stub (its own tests
// fail, a TODO is left) never claims more than 75 of 100, in any
// configuration: the checks see the failing tests and the TODO.
func TestPipelineBenchRoutesOnEvidence(t *testing.T) {
	out := outcomesFor(t)
	evaluated, stubs := 0, 0
	for _, cfg := range benchConfigs {
		for k := range 20 {
			for _, o := range objectives.All {
				res, err := simulate(cfg, o, "python", out, defaultPolicy, rand.New(rand.NewPCG(3, uint64(k))))
				if err != nil {
					t.Fatal(err)
				}
				if res.Evaluated != cfg.Evaluate {
					t.Errorf("%s: %s evaluated %v", cfg.Name, o.Fn, res.Evaluated)
				}
				if res.Evaluated {
					evaluated++
				}
				if res.Variant == objectives.VariantStub {
					stubs++
					if res.Computed > 0.75 {
						t.Errorf("%s: %s delivered a stub with computed confidence %.2f", cfg.Name, o.Fn, res.Computed)
					}
				}
			}
		}
	}
	if evaluated == 0 || stubs == 0 {
		t.Fatalf("%d evaluated runs, %d stubs delivered: the test tried nothing", evaluated, stubs)
	}
}
