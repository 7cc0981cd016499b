package bench

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hivectl/hive/internal/sim"
)

// Targets of the overhead rows.
const (
	overheadTarget    = 5 * time.Millisecond // wall time per plan
	engineEventTarget = 200_000              // engine events per second
)

// overheadConcurrency is the agents at once in the overhead run.
const overheadConcurrency = 8

// overheadRows measures what hive itself costs: a run of instant sim agents
// (real processes that report PLAN COMPLETE at once) through the real runner,
// journal and spot-checks, per plan; and the engine alone in events per second.
func overheadRows(ctx context.Context, o Options) []Row {
	n := 1000
	if o.Quick {
		n = 50
	}
	rows := []Row{runOverhead(ctx, o, n)}
	return append(rows, engineThroughput(o))
}

func runOverhead(ctx context.Context, o Options, n int) Row {
	name := fmt.Sprintf("runner wall time per plan, %d plans", n)
	dir, err := os.MkdirTemp("", "hive-bench-overhead-")
	if err != nil {
		return errorRow("overhead", name, err)
	}
	defer os.RemoveAll(dir)
	proj, err := newProject(ctx, dir, RandomDAG(n, o.Seed), false)
	if err != nil {
		return errorRow("overhead", name, err)
	}
	self0, kids0 := cpuTimes()
	wall, _, err := runSetup{proj: proj, hiveBin: o.HiveBin, concurrent: overheadConcurrency,
		env: []string{sim.EnvMode + "=" + sim.ModeInstant}}.run(ctx)
	if err != nil {
		return errorRow("overhead", name, err)
	}
	self1, kids1 := cpuTimes()
	per := wall / time.Duration(n)
	// Where the time goes: hive's own CPU, and its children's (the agent
	// processes and the spot-checks' git commands).
	selfPer, kidsPer := (self1-self0)/time.Duration(n), (kids1-kids0)/time.Duration(n)
	split := fmt.Sprintf("agents and git %.1f ms", ms(kidsPer))
	if a, err := agentCPU(ctx, o.HiveBin, proj.Phase.Plans[0].Path, 20); err == nil {
		split = fmt.Sprintf("agent processes ≈ %.1f ms, git (spot-checks) ≈ %.1f ms", ms(a), ms(max(kidsPer-a, 0)))
	}
	return Row{Group: "overhead", Name: name, Value: ms(per), Unit: "ms",
		Figure: fmt.Sprintf("%.2f ms/plan (%.2f s in all)", ms(per), wall.Seconds()),
		Target: fmt.Sprintf("≤ %.0f ms/plan", ms(overheadTarget)), Status: judge(per <= overheadTarget),
		Note: fmt.Sprintf("%d agents at once, SQLite journal, spot-checks; CPU per plan: hive %.1f ms, %s",
			overheadConcurrency, ms(selfPer), split)}
}

// engineThroughput drives the engine alone through 1,000-plan runs for at
// least a second (a tenth in quick mode) and counts events per second.
func engineThroughput(o Options) Row {
	name := "engine events per second"
	d := RandomDAG(1000, o.Seed)
	budget := time.Second
	if o.Quick {
		budget = 100 * time.Millisecond
	}
	events := 0
	start := time.Now()
	for time.Since(start) < budget {
		_, n, err := Makespan(d, makespanConcurrency, true)
		if err != nil {
			return errorRow("overhead", name, err)
		}
		events += n
	}
	rate := float64(events) / time.Since(start).Seconds()
	return Row{Group: "overhead", Name: name, Value: rate, Unit: "events/s",
		Figure: fmt.Sprintf("%.0f events/s", rate), Target: fmt.Sprintf("≥ %d", engineEventTarget),
		Status: judge(rate >= engineEventTarget), Note: "1,000-plan DAGs, dynamic"}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
