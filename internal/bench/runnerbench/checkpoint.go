package runnerbench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/sim/benchagent"
)

// checkpointTarget is the team-mode p99 of the round trip.
const checkpointTarget = 20 * time.Millisecond

// CheckpointRows measures the checkpoint round trip, from the agent
// printing CHECKPOINT to the answer arriving on its stdin, with --yes
// answering: in team mode the live agent gets CHECKPOINT_RESPONSE; in
// standalone mode the agent ends and the answer arrives in a continuation
// agent's prompt. Both timestamps are taken by the agents (trace lines).
// One agent at a time gives the latency of the path itself; four at once
// add the queueing behind other agents' starts, journal writes and
// spot-checks that a busy run sees.
func CheckpointRows(ctx context.Context, o report.Options) []report.Row {
	n := 100
	if o.Quick {
		n = 10
	}
	var rows []report.Row
	for _, concurrent := range []int{1, 4} {
		team, err := roundTrips(ctx, o, n, concurrent, true)
		if err != nil {
			return append(rows, report.ErrorRow("checkpoint", "team round trip", err))
		}
		alone, err := roundTrips(ctx, o, n, concurrent, false)
		if err != nil {
			return append(rows, report.ErrorRow("checkpoint", "standalone round trip", err))
		}
		tp50, tp99 := percentile(team, 50), percentile(team, 99)
		sp50, sp99 := percentile(alone, 50), percentile(alone, 99)
		at := fmt.Sprintf("%d agent at a time", concurrent)
		if concurrent > 1 {
			at = fmt.Sprintf("%d agents at once", concurrent)
		}
		note := fmt.Sprintf("%d checkpoints, %s, answered by --yes", n, at)
		team99 := report.Row{Group: "checkpoint", Name: "team round trip, " + at, Value: ms(tp99), Unit: "ms p99",
			Figure: fmt.Sprintf("p50 %.1f ms, p99 %.1f ms", ms(tp50), ms(tp99)), Status: report.Info, Note: note}
		if concurrent == 1 {
			team99.Target = fmt.Sprintf("p99 ≤ %.0f ms", ms(checkpointTarget))
			team99.Status = report.Judge(tp99 <= checkpointTarget)
		}
		rows = append(rows, team99,
			report.Row{Group: "checkpoint", Name: "standalone round trip, " + at, Value: ms(sp99), Unit: "ms p99",
				Figure: fmt.Sprintf("p50 %.1f ms, p99 %.1f ms", ms(sp50), ms(sp99)), Status: report.Info, Note: "continuation agent start"},
			report.Row{Group: "checkpoint", Name: "standalone / team p50, " + at, Value: ratio(sp50, tp50), Unit: "ratio",
				Figure: fmt.Sprintf("%.1f×", ratio(sp50, tp50)), Status: report.Info})
	}
	return rows
}

// roundTrips runs n independent one-checkpoint plans and returns each
// checkpoint's round trip.
func roundTrips(ctx context.Context, o report.Options, n, concurrent int, team bool) ([]time.Duration, error) {
	dir, err := os.MkdirTemp("", "hive-bench-checkpoint-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	d := project.RandomDAG(n, o.Seed)
	for i := range d.Plans {
		d.Plans[i].DependsOn = nil // the round trip, not the graph, is measured
	}
	proj, err := project.NewProject(ctx, filepath.Join(dir, "repo"), d, true)
	if err != nil {
		return nil, err
	}
	trace := filepath.Join(dir, "trace")
	_, _, err = runSetup{proj: proj, hiveBin: o.HiveBin, concurrent: concurrent, team: team,
		env: []string{benchagent.EnvMode + "=" + benchagent.ModeCheckpoint, benchagent.EnvTrace + "=" + trace}}.run(ctx)
	if err != nil {
		return nil, err
	}
	return readTrace(trace, n)
}

// readTrace pairs each plan's "sent" and "got" lines.
func readTrace(path string, want int) ([]time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint trace: %w", err)
	}
	defer f.Close()
	sent, got := map[string]int64{}, map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		ns, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "sent":
			sent[fields[1]] = ns
		case "got":
			got[fields[1]] = ns
		}
	}
	var out []time.Duration
	for id, s := range sent {
		if g, ok := got[id]; ok {
			out = append(out, time.Duration(g-s))
		}
	}
	if len(out) != want {
		return nil, fmt.Errorf("checkpoint trace: %d round trips, want %d", len(out), want)
	}
	return out, sc.Err()
}

// percentile is the nearest-rank p-th percentile.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100
	return s[max(rank, 1)-1]
}
