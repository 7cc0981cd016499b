package makespanbench

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/phase"
)

// Makespan runs d to the end on a virtual clock through the engine: each
// agent finishes its plan after the plan's duration, spot-checks pass at
// once. It returns the virtual time the run took and the engine events
// stepped.
func Makespan(d project.DAG, concurrency int, dynamic bool) (time.Duration, int, error) {
	spec := phase.RunSpec{Phase: "01", Plans: d.Plans, MaxConcurrent: concurrency, Dynamic: dynamic}
	e := engine.New()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	events := 0
	var due dueHeap
	var cmds []phase.Command
	step := func(ev phase.Event) error {
		ev.Time = now
		out, err := e.Step(ev)
		if err != nil {
			return fmt.Errorf("step %s %s: %w", ev.Type, ev.Plan, err)
		}
		events++
		cmds = append(cmds, out...)
		return nil
	}
	if err := step(phase.Event{Type: phase.EvRunStarted, Spec: &spec}); err != nil {
		return 0, events, err
	}
	finished := false
	seq := 0
	for {
		for len(cmds) > 0 {
			c := cmds[0]
			cmds = cmds[1:]
			switch c.Type {
			case phase.CmdStartAgent:
				seq++
				heap.Push(&due, dueEvent{at: now.Add(d.Duration[c.Plan]), seq: seq,
					ev: phase.Event{Type: phase.EvPlanComplete, Plan: c.Plan, Attempt: c.Attempt}})
				if err := step(phase.Event{Type: phase.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: seq}); err != nil {
					return 0, events, err
				}
			case phase.CmdSpotCheck:
				if err := step(phase.Event{Type: phase.EvSpotChecked, Plan: c.Plan, Attempt: c.Attempt, OK: true}); err != nil {
					return 0, events, err
				}
			case phase.CmdRunFinished:
				finished = true
			}
		}
		if due.Len() == 0 {
			break
		}
		next := heap.Pop(&due).(dueEvent)
		now = next.at
		if err := step(next.ev); err != nil {
			return 0, events, err
		}
	}
	if !finished {
		return 0, events, fmt.Errorf("the run did not finish: %d of %d plans complete", e.Snapshot().Count(phase.Complete), len(d.Plans))
	}
	return now.Sub(t0), events, nil
}

// dueEvent is an agent's outcome due at a virtual time; seq breaks ties so
// the simulation is deterministic.
type dueEvent struct {
	at  time.Time
	seq int
	ev  phase.Event
}

type dueHeap []dueEvent

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h dueHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)   { *h = append(*h, x.(dueEvent)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
