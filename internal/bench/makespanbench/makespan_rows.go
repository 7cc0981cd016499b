package makespanbench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/phase"
)

// Concurrency is the agents at once in the makespan runs: enough
// that the critical path and the total work both bind, which is where
// schedules differ.
const Concurrency = 8

// makespanTarget: dynamic scheduling within 5% of the lower bound.
const makespanTarget = 1.05

// dagsPerSize is how many random DAGs of each size are averaged.
func dagsPerSize(quick bool) int {
	if quick {
		return 2
	}
	return 5
}

// Rows compares, on random DAGs of 100 and 1,000 plans, dynamic
// scheduling (as hive runs it: priorities from task counts; and with
// duration estimates off by ~30%) against the lower bound, and rigid waves
// against dynamic.
func Rows(_ context.Context, o report.Options) []report.Row {
	var rows []report.Row
	for _, n := range []int{100, 1000} {
		var dyn, est, rig []float64
		for k := 0; k < dagsPerSize(o.Quick); k++ {
			d := project.RandomDAG(n, o.Seed+uint64(k))
			bound, _, _ := d.LowerBound(Concurrency)
			dm, _, err := Makespan(d, Concurrency, true)
			if err != nil {
				return append(rows, report.ErrorRow("makespan", fmt.Sprintf("%d plans", n), err))
			}
			em, _, err := Makespan(withEstimates(d, o.Seed+uint64(k)), Concurrency, true)
			if err != nil {
				return append(rows, report.ErrorRow("makespan", fmt.Sprintf("%d plans", n), err))
			}
			rm, _, err := Makespan(d, Concurrency, false)
			if err != nil {
				return append(rows, report.ErrorRow("makespan", fmt.Sprintf("%d plans", n), err))
			}
			dyn = append(dyn, ratio(dm, bound))
			est = append(est, ratio(em, bound))
			rig = append(rig, ratio(rm, dm))
		}
		what := fmt.Sprintf("%d plans, %d agents, %d DAGs", n, Concurrency, len(dyn))
		rows = append(rows,
			ratioRow(fmt.Sprintf("dynamic / bound, %d plans (task-count priority)", n), dyn, what, true),
			ratioRow(fmt.Sprintf("dynamic / bound, %d plans (estimates ±30%%)", n), est, what, true),
			ratioRow(fmt.Sprintf("rigid waves / dynamic, %d plans", n), rig, what, false),
		)
	}
	return rows
}

// ratioRow reports the mean of ratios and the worst one; judged rows must
// keep the mean within makespanTarget.
func ratioRow(name string, rs []float64, what string, judged bool) report.Row {
	mean, worst := 0.0, 0.0
	for _, r := range rs {
		mean += r / float64(len(rs))
		worst = max(worst, r)
	}
	row := report.Row{Group: "makespan", Name: name, Value: mean, Unit: "ratio",
		Figure: fmt.Sprintf("%.3f× (worst %.3f×)", mean, worst), Status: report.Info, Note: what}
	if judged {
		row.Target = fmt.Sprintf("≤ %.2f×", makespanTarget)
		row.Status = report.Judge(mean <= makespanTarget)
	}
	return row
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// withEstimates gives every plan an estimate of its duration that is off by
// a lognormal factor (σ = 0.3, about ±30%): what past runs or a plan's
// author might know, not the truth.
func withEstimates(d project.DAG, seed uint64) project.DAG {
	r := rand.New(rand.NewPCG(seed, 7))
	out := project.DAG{Duration: d.Duration, Plans: make([]phase.PlanSpec, len(d.Plans))}
	for i, p := range d.Plans {
		p.Estimate = time.Duration(float64(d.Duration[p.ID]) * math.Exp(0.3*r.NormFloat64()))
		out.Plans[i] = p
	}
	return out
}
