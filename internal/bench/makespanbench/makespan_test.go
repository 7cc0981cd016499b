package makespanbench

import (
	"testing"
	"time"

	"github.com/hivectl/hive/internal/bench/project"
)

// TestMakespanNeverBeatsTheBound: a schedule below the lower bound would
// mean the simulation or the bound is wrong.
func TestMakespanNeverBeatsTheBound(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		d := project.RandomDAG(100, seed)
		for _, c := range []int{1, 3, 8} {
			bound, critical, work := d.LowerBound(c)
			if bound < critical || bound < work/time.Duration(c) {
				t.Fatalf("bound %v below critical path %v or work/c %v", bound, critical, work/time.Duration(c))
			}
			for _, dynamic := range []bool{true, false} {
				got, events, err := Makespan(d, c, dynamic)
				if err != nil {
					t.Fatal(err)
				}
				if got < bound {
					t.Errorf("seed %d c=%d dynamic=%t: makespan %v below the bound %v", seed, c, dynamic, got, bound)
				}
				if c == 1 && got != work {
					t.Errorf("one agent: makespan %v, want the total work %v", got, work)
				}
				if events < 3*len(d.Plans) {
					t.Errorf("%d events for %d plans", events, len(d.Plans))
				}
			}
		}
	}
}
