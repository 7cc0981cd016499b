package sched

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// Graph is the plans' dependency graph with the queues of the plans ready
// to start (their dependencies complete), by wave.
type Graph struct {
	dynamic  bool
	nodes    []node
	ready    map[int]*readyHeap // plans whose dependencies are complete, by wave (dynamic: all under 0)
	openWave map[int]int        // rigid mode: plans of each wave not yet final
	waves    []int              // distinct waves, ascending
	waveAt   int                // index in waves of the first wave with an open plan; len(waves) when none
	curWave  int                // rigid mode: the wave being run
	begun    map[int]bool       // waves whose first plan started
}

// node is one plan in the graph.
type node struct {
	id         string
	wave       int
	done       bool  // complete on disk when the run started: in no wave
	deps       []int // its dependencies, as the spec lists them
	dependents []int
	unmet      int   // dependencies not yet complete
	remaining  int64 // longest path (in tasks, or estimated seconds) from this plan to the end of the graph
	index      int   // position in its ready heap; -1 when not queued
}

// New builds the graph of a run's plans, or says what is wrong with it: a
// plan without an id, a duplicate, an unknown dependency, a cycle. A plan's
// wave is never earlier than its dependencies allow, whatever was declared
// (see Wave), so rigid mode cannot wait on a plan of its own wave.
func New(specs []phase.PlanSpec, dynamic bool) (*Graph, error) {
	g := &Graph{dynamic: dynamic, nodes: make([]node, len(specs))}
	at := make(map[string]int, len(specs))
	for i, ps := range specs {
		if ps.ID == "" {
			return nil, fmt.Errorf("run spec: a plan has no id")
		}
		if _, dup := at[ps.ID]; dup {
			return nil, fmt.Errorf("run spec: duplicate plan %s", ps.ID)
		}
		at[ps.ID] = i
		g.nodes[i] = node{id: ps.ID, wave: ps.Wave, done: ps.Done, index: -1}
	}
	for i, ps := range specs {
		for _, d := range ps.DependsOn {
			j, ok := at[d]
			if !ok {
				return nil, fmt.Errorf("run spec: plan %s depends on unknown plan %s", ps.ID, d)
			}
			g.nodes[i].deps = append(g.nodes[i].deps, j)
			g.nodes[j].dependents = append(g.nodes[j].dependents, i)
		}
	}
	order, err := g.topoOrder()
	if err != nil {
		return nil, err
	}
	for _, i := range order {
		n := &g.nodes[i]
		w := max(n.wave, 1)
		for _, d := range n.deps {
			w = max(w, g.nodes[d].wave+1)
		}
		n.wave = w
	}
	weight := weightOf(specs)
	for k := len(order) - 1; k >= 0; k-- {
		n := &g.nodes[order[k]]
		longest := int64(0)
		for _, d := range n.dependents {
			longest = max(longest, g.nodes[d].remaining)
		}
		n.remaining = weight(specs[order[k]]) + longest
	}
	return g, nil
}

// Wave is plan i's wave: the declared one, or later if its dependencies
// need it.
func (g *Graph) Wave(i int) int { return g.nodes[i].wave }

// topoOrder orders the plans so that every plan comes after its
// dependencies, or reports a cycle.
func (g *Graph) topoOrder() ([]int, error) {
	const (
		unseen = iota
		visiting
		done
	)
	mark := make([]int, len(g.nodes))
	var order []int
	var stack []string
	var visit func(i int) error
	visit = func(i int) error {
		n := &g.nodes[i]
		switch mark[i] {
		case done:
			return nil
		case visiting:
			k := 0
			for stack[k] != n.id {
				k++
			}
			return fmt.Errorf("run spec: dependency cycle %s", strings.Join(append(stack[k:], n.id), " → "))
		}
		mark[i] = visiting
		stack = append(stack, n.id)
		for _, d := range n.deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		mark[i] = done
		order = append(order, i)
		return nil
	}
	for i := range g.nodes {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// weightOf returns how a plan counts in the longest-remaining-path
// priority: its estimated seconds when every plan to run has an estimate
// (a mix of units would rank nonsense), else its task count.
func weightOf(specs []phase.PlanSpec) func(phase.PlanSpec) int64 {
	estimated := true
	for _, s := range specs {
		if !s.Done && s.Estimate <= 0 {
			estimated = false
		}
	}
	if estimated {
		return func(s phase.PlanSpec) int64 { return max(int64(s.Estimate/time.Second), 1) }
	}
	return func(s phase.PlanSpec) int64 { return int64(max(s.Tasks, 1)) }
}

// Reset derives, from the plans' states (state(i)), what the graph keeps
// alongside them: each wave's open plans, each plan's unmet dependencies
// and the ready queues. A plan done before the run counts in no wave. The
// waves begun are kept.
func (g *Graph) Reset(state func(i int) phase.PlanState) {
	g.ready = map[int]*readyHeap{}
	g.openWave = map[int]int{}
	g.waves, g.waveAt = nil, 0
	if g.begun == nil {
		g.begun = map[int]bool{}
	}
	waves := map[int]bool{}
	for i := range g.nodes {
		n := &g.nodes[i]
		n.index = -1
		n.unmet = 0
		for _, d := range n.deps {
			if state(d) != phase.Complete {
				n.unmet++
			}
		}
		if n.done {
			continue
		}
		if !waves[n.wave] {
			waves[n.wave] = true
			g.waves = append(g.waves, n.wave)
		}
		if !state(i).Final() {
			g.openWave[n.wave]++
		}
	}
	sort.Ints(g.waves)
	for i := range g.nodes {
		if state(i) == phase.Pending && g.nodes[i].unmet == 0 {
			g.Enqueue(i)
		}
	}
	g.Advance()
}

// Advance moves rigid mode's current wave past every wave with no open
// plan. A wave's open count only falls after Reset, so the first open wave
// never moves back: a cursor makes this O(1) per step, not O(waves), which
// matters when a million events are replayed.
func (g *Graph) Advance() {
	for g.waveAt < len(g.waves) && g.openWave[g.waves[g.waveAt]] == 0 {
		g.waveAt++
	}
	g.curWave = 0
	if g.waveAt < len(g.waves) {
		g.curWave = g.waves[g.waveAt]
	}
}

// CurrentWave is rigid mode's wave being run, as of the last Advance; 0
// when none is open.
func (g *Graph) CurrentWave() int {
	if g == nil {
		return 0 // no run yet
	}
	return g.curWave
}

// AllFinal reports whether every plan to run is final.
func (g *Graph) AllFinal() bool {
	g.Advance()
	return g.waveAt == len(g.waves)
}

// Begin reports whether plan i is the first of its wave to start, and
// notes that the wave has begun.
func (g *Graph) Begin(i int) bool {
	w := g.nodes[i].wave
	first := !g.begun[w]
	g.begun[w] = true
	return first
}

// Begun lists the waves begun, ascending.
func (g *Graph) Begun() []int {
	if g == nil {
		return nil // no run yet
	}
	var out []int
	for w := range g.begun {
		out = append(out, w)
	}
	sort.Ints(out)
	return out
}

// SetBegun notes waves as begun (a restore).
func (g *Graph) SetBegun(waves []int) {
	for _, w := range waves {
		g.begun[w] = true
	}
}

// Next takes the ready plan to start next: of the current wave (as of the
// last Advance) in rigid mode, the longest remaining path first. A plan
// taken and not started goes back with Enqueue.
func (g *Graph) Next() (int, bool) {
	h := g.heap(g.curWave)
	if h == nil || h.Len() == 0 {
		return 0, false
	}
	return heap.Pop(h).(int), true
}

// Enqueue makes plan i ready to start.
func (g *Graph) Enqueue(i int) {
	w := g.nodes[i].wave
	if g.dynamic {
		w = 0
	}
	h := g.ready[w]
	if h == nil {
		h = &readyHeap{g: g}
		g.ready[w] = h
	}
	heap.Push(h, i)
}

// heap is the ready queue that plans of wave w wait in.
func (g *Graph) heap(w int) *readyHeap {
	if g.dynamic {
		w = 0
	}
	return g.ready[w]
}

// Settled takes plan i out of the ready queue and its wave's open plans:
// it is final. When it is complete, it returns the dependents whose every
// dependency is now complete, for the engine to enqueue those pending.
func (g *Graph) Settled(i int, complete bool) []int {
	n := &g.nodes[i]
	if n.index >= 0 {
		heap.Remove(g.heap(n.wave), n.index)
	}
	g.openWave[n.wave]--
	if !complete {
		return nil
	}
	var ready []int
	for _, d := range n.dependents {
		g.nodes[d].unmet--
		if g.nodes[d].unmet == 0 {
			ready = append(ready, d)
		}
	}
	return ready
}

// Dependents are the plans that depend on plan i directly.
func (g *Graph) Dependents(i int) []int { return g.nodes[i].dependents }

// readyHeap orders ready plans: the longest remaining path first (it bounds
// the makespan), then the earlier wave, then the id, so the order is total
// and the schedule deterministic.
type readyHeap struct {
	g  *Graph
	is []int
}

func (h *readyHeap) Len() int { return len(h.is) }
func (h *readyHeap) Less(i, j int) bool {
	a, b := &h.g.nodes[h.is[i]], &h.g.nodes[h.is[j]]
	if a.remaining != b.remaining {
		return a.remaining > b.remaining
	}
	if a.wave != b.wave {
		return a.wave < b.wave
	}
	return a.id < b.id
}
func (h *readyHeap) Swap(i, j int) {
	h.is[i], h.is[j] = h.is[j], h.is[i]
	h.g.nodes[h.is[i]].index = i
	h.g.nodes[h.is[j]].index = j
}
func (h *readyHeap) Push(x any) {
	i := x.(int)
	h.g.nodes[i].index = len(h.is)
	h.is = append(h.is, i)
}
func (h *readyHeap) Pop() any {
	i := h.is[len(h.is)-1]
	h.is = h.is[:len(h.is)-1]
	h.g.nodes[i].index = -1
	return i
}

// Overlaps reports whether two file lists may touch a common file: equal
// paths, a folder and a path inside it, or a glob pattern (which could match
// anything, so it overlaps everything).
func Overlaps(a, b []string) bool {
	for _, x := range a {
		if strings.ContainsAny(x, "*?[") {
			return true
		}
		for _, y := range b {
			if strings.ContainsAny(y, "*?[") || x == y || strings.HasPrefix(y, strings.TrimSuffix(x, "/")+"/") || strings.HasPrefix(x, strings.TrimSuffix(y, "/")+"/") {
				return true
			}
		}
	}
	return false
}
