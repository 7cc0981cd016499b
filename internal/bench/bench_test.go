package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRandomDAGIsSeededAndAcyclic(t *testing.T) {
	a, b := RandomDAG(300, 7), RandomDAG(300, 7)
	if len(a.Plans) != 300 {
		t.Fatalf("%d plans, want 300", len(a.Plans))
	}
	seen := map[string]bool{}
	layers := 0
	for i, p := range a.Plans {
		if p.ID != b.Plans[i].ID || a.Duration[p.ID] != b.Duration[p.ID] || len(p.DependsOn) != len(b.Plans[i].DependsOn) {
			t.Fatalf("plan %d differs between two DAGs of the same seed", i)
		}
		for _, d := range p.DependsOn {
			if !seen[d] {
				t.Fatalf("plan %s depends on %s, which does not come before it", p.ID, d)
			}
		}
		if len(p.DependsOn) == 0 {
			layers++
		}
		if p.Tasks < 1 || p.Tasks > 8 || a.Duration[p.ID] <= 0 {
			t.Fatalf("plan %s: %d tasks, %v", p.ID, p.Tasks, a.Duration[p.ID])
		}
		seen[p.ID] = true
	}
	if layers == len(a.Plans) {
		t.Fatal("no plan has a dependency")
	}
}

// TestMakespanNeverBeatsTheBound: a schedule below the lower bound would
// mean the simulation or the bound is wrong.
func TestMakespanNeverBeatsTheBound(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		d := RandomDAG(100, seed)
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

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(ds, 50); p != 50*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := percentile(ds, 99); p != 99*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := percentile(ds[:1], 99); p != 100*time.Millisecond {
		t.Errorf("p99 of one = %v", p)
	}
}

func TestReadTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace")
	data := "sent 01-0001 1000000\nsent 01-0002 5000000\ngot 01-0001 3000000\ngarbage line\ngot 01-0002 9000000\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := readTrace(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if percentile(ds, 50) != 2*time.Millisecond || percentile(ds, 99) != 4*time.Millisecond {
		t.Errorf("round trips %v", ds)
	}
	if _, err := readTrace(path, 3); err == nil {
		t.Error("a missing round trip was not reported")
	}
}

func TestReportTable(t *testing.T) {
	rep := Report{Seed: 3, Quick: true, CPUs: 2, Rows: []Row{
		{Group: "makespan", Name: "dynamic / bound", Figure: "1.010×", Target: "≤ 1.05×", Status: Pass},
		{Group: "tokens", Name: "checkpoint token cost", Figure: "-", Status: Skipped, Note: "claude CLI not installed (make tools)"},
		{Group: "overhead", Name: "per plan", Figure: "9 ms", Target: "≤ 5 ms", Status: Miss},
	}}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GROUP", "dynamic / bound", "≤ 1.05×", "skipped: claude CLI not installed (make tools)", "miss", "1 of 3 rows missed"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if err := CheckGroups([]string{"makespan", "nope"}, nil); err == nil {
		t.Error("an unknown group was accepted")
	}
	extra := With(Group{Name: "tokens"}, Group{Name: "more"})
	if err := CheckGroups([]string{"tokens", "more"}, extra); err != nil {
		t.Error(err)
	}
	if names := Names(extra); names[3] != "tokens" || names[len(names)-1] != "more" || len(names) != len(groups)+1 || extra[3].Measure != nil {
		t.Errorf("With: %v", names)
	}
}
