package plan

import (
	"fmt"
	"sort"
	"strings"
)

// ComputeWaves sets ComputedWave on every plan: the declared wave when it is
// later than every dependency's, else one after the latest dependency, 1 for a
// plan without dependencies. Dependencies outside plans are ignored (earlier
// phases are done). Plans in a cycle, and plans after one, get 0 and the error
// describes the first cycle.
func ComputeWaves(plans []*Plan) error {
	byID := map[string]*Plan{}
	for _, p := range plans {
		if byID[p.ID] == nil {
			byID[p.ID] = p
		}
	}
	cycles := FindCycles(plans)
	inCycle := map[*Plan]bool{}
	for _, c := range cycles {
		for _, p := range c {
			inCycle[p] = true
		}
	}
	done := map[*Plan]bool{}
	var wave func(p *Plan) int
	wave = func(p *Plan) int {
		if done[p] {
			return p.ComputedWave
		}
		done[p] = true
		p.ComputedWave = 0
		if inCycle[p] {
			return 0
		}
		hi := 0
		for _, d := range p.DependsOn {
			q := byID[d]
			if q == nil {
				continue
			}
			w := wave(q)
			if w == 0 {
				return 0 // after a cycle: no wave can be trusted
			}
			hi = max(hi, w)
		}
		p.ComputedWave = hi + 1
		if p.Wave > hi {
			p.ComputedWave = p.Wave
		}
		return p.ComputedWave
	}
	for _, p := range plans {
		wave(p)
	}
	if len(cycles) > 0 {
		return fmt.Errorf("dependency cycle: %s", DescribeCycle(cycles[0]))
	}
	return nil
}

// DescribeCycle renders "01-02 (path) → 01-03 (path) → 01-02".
func DescribeCycle(c []*Plan) string {
	var b strings.Builder
	for _, p := range c {
		fmt.Fprintf(&b, "%s (%s) → ", p.ID, p.Path)
	}
	b.WriteString(c[0].ID)
	return b.String()
}

// FindCycles returns one cycle per strongly connected component of the
// depends_on graph that has one, each starting at its smallest id and listed in
// the order the dependencies are followed.
func FindCycles(plans []*Plan) [][]*Plan {
	sorted := append([]*Plan(nil), plans...)
	SortPlans(sorted)
	byID := map[string]*Plan{}
	for _, p := range sorted {
		if byID[p.ID] == nil {
			byID[p.ID] = p
		}
	}
	deps := func(p *Plan) []*Plan {
		var out []*Plan
		for _, d := range p.DependsOn {
			if q := byID[d]; q != nil {
				out = append(out, q)
			}
		}
		return out
	}
	// Tarjan's algorithm.
	index, low := map[*Plan]int{}, map[*Plan]int{}
	onStack := map[*Plan]bool{}
	var stack []*Plan
	var sccs [][]*Plan
	next := 0
	var strong func(p *Plan)
	strong = func(p *Plan) {
		index[p], low[p] = next, next
		next++
		stack = append(stack, p)
		onStack[p] = true
		for _, q := range deps(p) {
			if _, seen := index[q]; !seen {
				strong(q)
				low[p] = min(low[p], low[q])
			} else if onStack[q] {
				low[p] = min(low[p], index[q])
			}
		}
		if low[p] == index[p] {
			var scc []*Plan
			for {
				q := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[q] = false
				scc = append(scc, q)
				if q == p {
					break
				}
			}
			sccs = append(sccs, scc)
		}
	}
	for _, p := range sorted {
		if _, seen := index[p]; !seen {
			strong(p)
		}
	}
	var cycles [][]*Plan
	for _, scc := range sccs {
		member := map[*Plan]bool{}
		for _, p := range scc {
			member[p] = true
		}
		start := scc[0]
		for _, p := range scc {
			if compareID(p.ID, start.ID) < 0 {
				start = p
			}
		}
		if c := shortestCycle(start, member, deps); c != nil {
			cycles = append(cycles, c)
		}
	}
	sort.Slice(cycles, func(i, j int) bool { return compareID(cycles[i][0].ID, cycles[j][0].ID) < 0 })
	return cycles
}

// shortestCycle finds by breadth-first search the shortest path from start
// back to itself inside one component, or nil when there is none.
func shortestCycle(start *Plan, member map[*Plan]bool, deps func(*Plan) []*Plan) []*Plan {
	parent := map[*Plan]*Plan{}
	queue := []*Plan{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range deps(p) {
			if !member[q] {
				continue
			}
			if q == start {
				var c []*Plan
				for x := p; x != start; x = parent[x] {
					c = append(c, x)
				}
				c = append(c, start)
				for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
					c[i], c[j] = c[j], c[i]
				}
				return c
			}
			if _, seen := parent[q]; !seen {
				parent[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}
