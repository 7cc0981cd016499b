package sched

import (
	"testing"

	"github.com/hivectl/hive/internal/phase"
)

// A spec that is no graph is refused with what is wrong with it.
func TestNewRefuses(t *testing.T) {
	for _, c := range []struct {
		specs []phase.PlanSpec
		want  string
	}{
		{[]phase.PlanSpec{{ID: ""}}, "run spec: a plan has no id"},
		{[]phase.PlanSpec{{ID: "a"}, {ID: "a"}}, "run spec: duplicate plan a"},
		{[]phase.PlanSpec{{ID: "a", DependsOn: []string{"b"}}}, "run spec: plan a depends on unknown plan b"},
		{[]phase.PlanSpec{{ID: "a", DependsOn: []string{"b"}}, {ID: "b", DependsOn: []string{"a"}}}, "run spec: dependency cycle a → b → a"},
	} {
		if _, err := New(c.specs, false); err == nil || err.Error() != c.want {
			t.Errorf("New(%v) = %v, want %q", c.specs, err, c.want)
		}
	}
}

// A plan's wave follows its dependencies'; the longest remaining path
// starts first; a plan is ready once every dependency is complete.
func TestGraph(t *testing.T) {
	specs := []phase.PlanSpec{
		{ID: "a", Wave: 1, Tasks: 1},
		{ID: "b", Wave: 1, Tasks: 1},
		{ID: "c", Wave: 1, Tasks: 5, DependsOn: []string{"b"}},
	}
	g, err := New(specs, true)
	if err != nil {
		t.Fatal(err)
	}
	if g.Wave(2) != 2 {
		t.Errorf("c's wave = %d, want 2 (after b's)", g.Wave(2))
	}
	states := []phase.PlanState{phase.Pending, phase.Pending, phase.Pending}
	g.Reset(func(i int) phase.PlanState { return states[i] })
	g.Advance()
	first, _ := g.Next()
	second, _ := g.Next()
	if first != 1 || second != 0 {
		t.Errorf("started %d then %d, want b (1, its path is longer) then a (0)", first, second)
	}
	if _, ok := g.Next(); ok {
		t.Error("c is ready before b is complete")
	}
	states[1] = phase.Complete
	if ready := g.Settled(1, true); len(ready) != 1 || ready[0] != 2 {
		t.Errorf("b complete readies %v, want [2]", ready)
	}
}
