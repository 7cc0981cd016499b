package project

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// DAG is a random phase: plans with dependencies and how long each takes.
type DAG struct {
	Plans    []phase.PlanSpec
	Duration map[string]time.Duration // the plan's real duration (the sum of its tasks')
}

// taskUnit is the median duration of one task.
const taskUnit = 4 * time.Minute

// RandomDAG builds n plans in layers. The number of layers (the depth) and
// so the width vary with the seed; each plan after the first layer depends
// on one to three plans of earlier layers, mostly the previous one. A plan
// has 1–8 tasks (heavy-tailed: most have few), and each task's duration is
// lognormal (σ = 1), so a few plans take far longer than the rest. The
// engine sees the task counts, never the durations.
func RandomDAG(n int, seed uint64) DAG {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	depth := max(2, int(math.Sqrt(float64(n))*(0.5+r.Float64())))
	layers := make([][]string, depth)
	d := DAG{Duration: make(map[string]time.Duration, n)}
	for i := 0; i < n; i++ {
		layer := 0
		if i >= depth {
			layer = r.IntN(depth)
		} else {
			layer = i // every layer holds at least one plan
		}
		id := fmt.Sprintf("01-%04d", i+1)
		ps := phase.PlanSpec{ID: id, Tasks: paretoTasks(r)}
		if layer > 0 {
			for k := 1 + r.IntN(3); k > 0; k-- {
				from := layer - 1
				if r.IntN(4) == 0 {
					from = r.IntN(layer)
				}
				dep := layers[from][r.IntN(len(layers[from]))]
				if !contains(ps.DependsOn, dep) {
					ps.DependsOn = append(ps.DependsOn, dep)
				}
			}
		}
		var total time.Duration
		for t := 0; t < ps.Tasks; t++ {
			total += time.Duration(float64(taskUnit) * math.Exp(r.NormFloat64()))
		}
		d.Duration[id] = total.Round(time.Second)
		layers[layer] = append(layers[layer], id)
		d.Plans = append(d.Plans, ps)
	}
	return d
}

// paretoTasks draws a task count from a Pareto distribution (α = 1.5),
// capped at 8 tasks.
func paretoTasks(r *rand.Rand) int {
	x := 1 / math.Pow(1-r.Float64(), 1/1.5)
	return min(8, int(x))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// LowerBound is max(critical path, total work / concurrency): no schedule
// on concurrency agents can finish sooner.
func (d DAG) LowerBound(concurrency int) (bound, critical, work time.Duration) {
	finish := make(map[string]time.Duration, len(d.Plans))
	// Plans only depend on plans created before them, so one pass in order
	// computes each plan's earliest finish.
	for _, p := range d.Plans {
		start := time.Duration(0)
		for _, dep := range p.DependsOn {
			start = max(start, finish[dep])
		}
		finish[p.ID] = start + d.Duration[p.ID]
		critical = max(critical, finish[p.ID])
		work += d.Duration[p.ID]
	}
	return max(critical, work/time.Duration(concurrency)), critical, work
}
