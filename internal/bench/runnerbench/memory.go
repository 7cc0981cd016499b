package runnerbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/sim/benchagent"
)

// memoryTarget is the hive process's peak RSS with 64 agents at once.
const memoryTarget = 150 << 20

// MemoryRows measures the peak resident memory of a hive process running 64
// live agents. Peak RSS is a lifetime figure, so unless memory is the only
// group asked for, a fresh `hive bench --only memory` child measures it: the
// other groups' million-event journal must not count.
func MemoryRows(ctx context.Context, o report.Options) []report.Row {
	if len(o.Only) == 1 && o.Only[0] == "memory" {
		return []report.Row{measureMemory(ctx, o)}
	}
	bin := o.HiveBin
	if bin == "" {
		var err error
		if bin, err = adapter.SelfPath(); err != nil {
			return []report.Row{report.ErrorRow("memory", "peak RSS", err)}
		}
	}
	args := []string{"bench", "--only", "memory", "--json", "--seed", strconv.FormatUint(o.Seed, 10)}
	if o.Quick {
		args = append(args, "--quick")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var rep report.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Rows) == 0 {
		return []report.Row{report.ErrorRow("memory", "peak RSS", fmt.Errorf("hive bench --only memory: %v %v: %s", runErr, err, bytes.TrimSpace(stderr.Bytes())))}
	}
	return rep.Rows
}

// measureMemory runs twice as many one-file plans as agents, each agent
// holding its plan for a while so that all of them are live at once, and
// reads this process's peak RSS afterwards.
func measureMemory(ctx context.Context, o report.Options) report.Row {
	agents := 64
	if o.Quick {
		agents = 16
	}
	name := fmt.Sprintf("peak RSS of hive with %d agents", agents)
	d := project.RandomDAG(2*agents, o.Seed)
	for i := range d.Plans {
		d.Plans[i].DependsOn = nil
	}
	proj, remove, err := project.TempProject(ctx, "hive-bench-memory-", d)
	if err != nil {
		return report.ErrorRow("memory", name, err)
	}
	defer remove()
	obs := &peakRunning{}
	hold := 500 * time.Millisecond
	_, _, err = runSetup{proj: proj, hiveBin: o.HiveBin, concurrent: agents, team: true, observer: obs,
		env: []string{benchagent.EnvMode + "=" + benchagent.ModeInstant, benchagent.EnvHold + "=" + hold.String()}}.run(ctx)
	if err != nil {
		return report.ErrorRow("memory", name, err)
	}
	peak := peakRSS()
	return report.Row{Group: "memory", Name: name, Value: float64(peak) / (1 << 20), Unit: "MiB",
		Figure: fmt.Sprintf("%.1f MiB", float64(peak)/(1<<20)), Target: fmt.Sprintf("≤ %d MiB", memoryTarget>>20),
		Status: report.Judge(peak > 0 && peak <= memoryTarget),
		Note:   fmt.Sprintf("%d plans, at most %d agents live at once (getrusage maxrss)", len(d.Plans), obs.max)}
}

// peakRunning counts the most plans running at once.
type peakRunning struct {
	quiet
	mu  sync.Mutex
	max int
}

func (p *peakRunning) Event(_ phase.Event, s phase.Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.max = max(p.max, s.Count(phase.Running))
}
