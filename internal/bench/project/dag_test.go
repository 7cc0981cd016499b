package project

import "testing"

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
