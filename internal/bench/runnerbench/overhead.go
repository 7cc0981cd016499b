package runnerbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/bench/makespanbench"
	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/sim/benchagent"
)

// Targets of the overhead rows.
const (
	overheadTarget    = 5 * time.Millisecond // wall time per plan
	engineEventTarget = 200_000              // engine events per second
)

// InstantEnv makes the sim agents report PLAN COMPLETE at once.
var InstantEnv = []string{benchagent.EnvMode + "=" + benchagent.ModeInstant}

// OverheadConcurrency is the agents at once in the overhead run.
const OverheadConcurrency = 8

// OverheadRows measures what hive itself costs: a run of instant sim agents
// (real processes that report PLAN COMPLETE at once) through the real runner,
// journal and spot-checks, per plan; the engine alone in events per second;
// and hive's own share of a hive run with the real Claude Code.
func OverheadRows(ctx context.Context, o report.Options) []report.Row {
	n := 1000
	if o.Quick {
		n = 50
	}
	rows := runOverhead(ctx, o, n)
	return append(rows, engineThroughput(o))
}

// Target of hive's cost per plan beyond spawning and waiting for its agent.
const beyondSpawnTarget = time.Millisecond

func runOverhead(ctx context.Context, o report.Options, n int) []report.Row {
	name := fmt.Sprintf("runner wall time per plan, %d plans", n)
	fail := func(err error) []report.Row { return []report.Row{report.ErrorRow("overhead", name, err)} }
	proj, remove, err := project.TempProject(ctx, "hive-bench-overhead-", project.RandomDAG(n, o.Seed))
	if err != nil {
		return fail(err)
	}
	defer remove()
	// The bare loop runs before hive and again after it, and hive is
	// compared with their mean. Whatever runs first on a machine pays for
	// its warm-up (the binary's pages, the file system's caches): measured
	// on one VM, the first of two runs of the same agents cost 6 ms of CPU
	// per agent more than the second, which charged hive, when it ran
	// first, for more than its whole overhead. Two bare runs also show how
	// much the same work varies here, printed beside the figure.
	bare := func() (cpuUse, error) {
		return measureCPU(func() error { return bareSpawn(ctx, o.HiveBin, proj, OverheadConcurrency) })
	}
	bare1, bareErr := bare()
	hive, err := measureCPU(func() error {
		_, _, err := runSetup{proj: proj, hiveBin: o.HiveBin, concurrent: OverheadConcurrency,
			env: InstantEnv}.run(ctx)
		return err
	})
	if err != nil {
		return fail(err)
	}
	per := hive.wall / time.Duration(n)
	rows := []report.Row{{Group: "overhead", Name: name, Value: ms(per), Unit: "ms",
		Figure: fmt.Sprintf("%.2f ms/plan (%.2f s in all)", ms(per), hive.wall.Seconds()),
		Target: fmt.Sprintf("≤ %.0f ms/plan", ms(overheadTarget)), Status: report.Judge(per <= overheadTarget),
		Note: fmt.Sprintf("%d agents at once, SQLite journal, spot-checks; CPU per plan: hive %.1f ms, its children (agents, git) %.1f ms",
			OverheadConcurrency, ms(hive.self/time.Duration(n)), ms(hive.children/time.Duration(n)))}}
	// The same agents, spawned and waited for by a bare loop at the same
	// concurrency: what hive adds beyond the processes, in wall time and in
	// CPU (its own, and its children's beyond the agents').
	beyond := fmt.Sprintf("hive beyond bare spawning, per plan, %d plans", n)
	bare2, err := bare()
	if err = errors.Join(bareErr, err); err != nil {
		rows = append(rows, report.ErrorRow("overhead", beyond, err))
	} else {
		bare := cpuUse{wall: (bare1.wall + bare2.wall) / 2, self: (bare1.self + bare2.self) / 2, children: (bare1.children + bare2.children) / 2}
		extra := (hive.wall - bare.wall) / time.Duration(n)
		perPlan := func(d time.Duration) float64 { return ms(d / time.Duration(n)) }
		note := fmt.Sprintf("the same instant agents, same concurrency, the loop run before hive and after it (%.2f and %.2f ms/plan); CPU per plan: hive %.2f ms vs the loop's %.2f ms, children %.2f ms vs %.2f ms (the agents alone)",
			perPlan(bare1.wall), perPlan(bare2.wall), perPlan(hive.self), perPlan(bare.self), perPlan(hive.children), perPlan(bare.children))
		if create, err := createCost(filepath.Join(proj.Root, ".hive", "logs")); err == nil {
			note += fmt.Sprintf("; creating a file in the project's folder costs %.0f µs here (hive makes one log per attempt)", float64(create)/float64(time.Microsecond))
		}
		rows = append(rows, report.Row{Group: "overhead", Name: beyond, Value: ms(extra), Unit: "ms",
			Figure: fmt.Sprintf("%.2f ms/plan (hive %.2f s, bare loop %.2f s: ratio %.2f)", ms(extra), hive.wall.Seconds(), bare.wall.Seconds(), ratio(hive.wall, bare.wall)),
			Target: fmt.Sprintf("≤ %.0f ms/plan", ms(beyondSpawnTarget)), Status: report.Judge(extra <= beyondSpawnTarget),
			Note: note})
	}
	if events, bytes, err := journalSize(proj); err != nil {
		rows = append(rows, report.ErrorRow("overhead", "journal per plan", err))
	} else {
		rows = append(rows, report.Row{Group: "overhead", Name: "journal per plan", Value: float64(events) / float64(n), Unit: "events",
			Figure: fmt.Sprintf("%.1f events, %.0f bytes per plan", float64(events)/float64(n), float64(bytes)/float64(n)),
			Target: "-", Status: report.Info, Note: "the overhead run's journal: every event's JSON payload"})
	}
	return rows
}

// cpuUse is what a piece of work cost: wall time, this process's CPU and
// its waited-for children's.
type cpuUse struct{ wall, self, children time.Duration }

func measureCPU(work func() error) (cpuUse, error) {
	self0, kids0 := cpuTimes()
	start := time.Now()
	err := work()
	wall := time.Since(start)
	self1, kids1 := cpuTimes()
	return cpuUse{wall: wall, self: self1 - self0, children: kids1 - kids0}, err
}

// bareSpawn starts one instant sim agent per plan of proj, concurrent at
// once, each given its prompt and waited for.
func bareSpawn(ctx context.Context, hiveBin string, proj *project.Project, concurrent int) error {
	bin := hiveBin
	if bin == "" {
		var err error
		if bin, err = adapter.SelfPath(); err != nil {
			return err
		}
	}
	plans := make(chan string)
	errs := make(chan error, concurrent)
	var wg sync.WaitGroup
	for range concurrent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rel := range plans {
				cmd := exec.CommandContext(ctx, bin, "__sim")
				cmd.Dir = proj.Root
				cmd.Env = append(cmd.Environ(), benchagent.EnvMode+"="+benchagent.ModeInstant)
				cmd.Stdin = bytes.NewReader(agent.UserMessage("- Plan: " + rel))
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("instant agent: %v: %s", err, out)
					return
				}
			}
		}()
	}
	for _, p := range proj.Phase.Plans {
		plans <- p.Path
	}
	close(plans)
	wg.Wait()
	close(errs)
	return <-errs
}

// createCost is what creating (and closing) one empty file in dir costs,
// over 100 files. It depends on the file system more than on anything
// hive does: ext4, for one, searches past the inodes freed in the last
// seconds, so a folder beside much churn (a busy /tmp) can take a quarter
// of a millisecond a file where a quiet one takes a hundredth.
func createCost(dir string) (time.Duration, error) {
	tmp, err := os.MkdirTemp(dir, "create-cost-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	const n = 100
	start := time.Now()
	for i := range n {
		f, err := os.Create(filepath.Join(tmp, fmt.Sprintf("f%d", i)))
		if err != nil {
			return 0, err
		}
		f.Close()
	}
	return time.Since(start) / n, nil
}

// journalSize counts the events of the project's newest run and their bytes.
func journalSize(proj *project.Project) (events, size int64, err error) {
	j, err := journal.Open(filepath.Join(proj.Root, ".hive", "journal.db"))
	if err != nil {
		return 0, 0, err
	}
	defer j.Close()
	runs, err := j.Runs()
	if err != nil || len(runs) == 0 {
		return 0, 0, fmt.Errorf("no run in the journal: %v", err)
	}
	err = j.Each(runs[0].ID, func(rec journal.Record) error {
		events++
		size += int64(len(rec.Payload))
		return nil
	})
	return events, size, err
}

// engineThroughput drives the engine alone through 1,000-plan runs for at
// least a second (a tenth in quick mode) and counts events per second.
func engineThroughput(o report.Options) report.Row {
	name := "engine events per second"
	d := project.RandomDAG(1000, o.Seed)
	budget := time.Second
	if o.Quick {
		budget = 100 * time.Millisecond
	}
	events := 0
	start := time.Now()
	for time.Since(start) < budget {
		_, n, err := makespanbench.Makespan(d, makespanbench.Concurrency, true)
		if err != nil {
			return report.ErrorRow("overhead", name, err)
		}
		events += n
	}
	rate := float64(events) / time.Since(start).Seconds()
	return report.Row{Group: "overhead", Name: name, Value: rate, Unit: "events/s",
		Figure: fmt.Sprintf("%.0f events/s", rate), Target: fmt.Sprintf("≥ %d", engineEventTarget),
		Status: report.Judge(rate >= engineEventTarget), Note: "1,000-plan DAGs, dynamic"}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ratio is a / b, as makespanbench and temporalbench have it too.
func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
