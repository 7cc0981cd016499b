package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// randomDAG builds n plans where each depends on up to 3 earlier ones.
func randomDAG(n int, seed uint64) phase.RunSpec {
	r := rand.New(rand.NewPCG(seed, 1))
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 8, Dynamic: true}
	for i := 0; i < n; i++ {
		ps := phase.PlanSpec{ID: fmt.Sprintf("01-%05d", i), Tasks: 1 + r.IntN(5)}
		for k := r.IntN(4); k > 0 && i > 0; k-- {
			d := spec.Plans[r.IntN(i)].ID
			dup := false
			for _, x := range ps.DependsOn {
				dup = dup || x == d
			}
			if !dup {
				ps.DependsOn = append(ps.DependsOn, d)
			}
		}
		spec.Plans = append(spec.Plans, ps)
	}
	return spec
}

// runToEnd drives a whole run with instant agents and returns the number of
// events stepped.
func runToEnd(b *testing.B, spec phase.RunSpec) int {
	e := New()
	now := time.Unix(0, 0)
	events := 0
	pending := []phase.Command{}
	step := func(ev phase.Event) {
		now = now.Add(time.Millisecond)
		ev.Time = now
		cmds, err := e.Step(ev)
		if err != nil {
			b.Fatal(err)
		}
		events++
		pending = append(pending, cmds...)
	}
	step(phase.Event{Type: phase.EvRunStarted, Spec: &spec})
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c.Type {
		case phase.CmdStartAgent:
			step(phase.Event{Type: phase.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: 1})
			step(phase.Event{Type: phase.EvProgress, Plan: c.Plan, Attempt: c.Attempt, Task: 1})
			step(phase.Event{Type: phase.EvPlanComplete, Plan: c.Plan, Attempt: c.Attempt})
		case phase.CmdSpotCheck:
			step(phase.Event{Type: phase.EvSpotChecked, Plan: c.Plan, Attempt: c.Attempt, OK: true})
		}
	}
	if !e.Snapshot().Finished {
		b.Fatal("run did not finish")
	}
	return events
}

// BenchmarkEngine10k runs a 10,000-plan random DAG to the end and reports
// engine events per second.
func BenchmarkEngine10k(b *testing.B) {
	for _, dynamic := range []bool{true, false} {
		name := "rigid"
		if dynamic {
			name = "dynamic"
		}
		b.Run(name, func(b *testing.B) {
			spec := randomDAG(10000, 42)
			spec.Dynamic = dynamic
			events := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				events += runToEnd(b, spec)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkEngineDeep runs a 10,000-plan graph 1,250 waves deep (each plan
// depends on the one 8 places before it): the cost of a step must not grow
// with the number of waves.
func BenchmarkEngineDeep(b *testing.B) {
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 8, Dynamic: true}
	for i := 0; i < 10000; i++ {
		ps := phase.PlanSpec{ID: fmt.Sprintf("01-%05d", i), Tasks: 3}
		if i >= 8 {
			ps.DependsOn = []string{fmt.Sprintf("01-%05d", i-8)}
		}
		spec.Plans = append(spec.Plans, ps)
	}
	events := 0
	for b.Loop() {
		events += runToEnd(b, spec)
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSnapshot copies the state of a 1,000-plan run, as the runner
// does after every event it steps.
func BenchmarkSnapshot(b *testing.B) {
	spec := randomDAG(1000, 42)
	e := New()
	if _, err := e.Step(phase.Event{Type: phase.EvRunStarted, Time: time.Unix(0, 0), Spec: &spec}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := e.Snapshot(); len(s.Plans) != 1000 {
			b.Fatal("short snapshot")
		}
	}
}
