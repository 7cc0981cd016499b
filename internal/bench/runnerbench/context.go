package runnerbench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/sim/stream"
)

// contextTasks and contextCheckpoints shape the plan of the context rows:
// a long plan in one live session, three human checks on the way.
const contextTasks = 30

var contextCheckpoints = []int{8, 16, 24}

// contextCurve is the sim's context: a 12k-token prompt, 3k tokens a
// request and 2k a task (a realistic read-edit-test loop), in a
// 200k-token window.
const contextCurve = "base=12000,request=3000,task=2000,window=200000"

// contextResult is one run of the context rows' plan.
type contextResult struct {
	input       int64 // every input token the model read: plain, cache read, cache write
	peak        int64 // the fullest any session got
	rollovers   int
	compactions int
	once        bool            // every task committed exactly once
	fresh       []int64         // each fresh session's first request: what a rollover costs to rehydrate
	handover    []time.Duration // from the ask to the fresh session's first turn
}

// ContextRows runs a 30-task plan with 3 checkpoints in one live sim
// session twice, with hive's rollover at its default threshold and with it
// off, and compares what the model read, how full the session got, and
// whether every task was done exactly once.
func ContextRows(ctx context.Context, o report.Options) []report.Row {
	with, err := contextRun(ctx, o, phase.ContextLimits{})
	if err != nil {
		return []report.Row{report.ErrorRow("context", "rollover on", err)}
	}
	without, err := contextRun(ctx, o, phase.ContextLimits{Off: true})
	if err != nil {
		return []report.Row{report.ErrorRow("context", "rollover off", err)}
	}
	r := float64(without.input) / float64(max(with.input, 1))
	note := fmt.Sprintf("%d-task plan, %d checkpoints, one live sim session, context %s", contextTasks, len(contextCheckpoints), contextCurve)
	rows := []report.Row{
		{Group: "context", Name: "input tokens, rollover on", Value: float64(with.input), Unit: "tokens",
			Figure: fmt.Sprintf("%d tokens, %d rollover(s), %d compaction(s)", with.input, with.rollovers, with.compactions), Status: report.Info, Note: note},
		{Group: "context", Name: "input tokens, rollover off", Value: float64(without.input), Unit: "tokens",
			Figure: fmt.Sprintf("%d tokens, %d compaction(s) by the CLI", without.input, without.compactions), Status: report.Info},
		{Group: "context", Name: "input tokens, off / on", Value: r, Unit: "ratio", Figure: fmt.Sprintf("%.2f×", r), Status: report.Info},
		{Group: "context", Name: "peak occupancy, rollover on", Value: float64(with.peak) / 2000, Unit: "% of window",
			Figure: fmt.Sprintf("%d tokens (%.0f%%)", with.peak, float64(with.peak)/2000), Target: "< 92% (no compaction)", Status: report.Judge(with.compactions == 0 && with.rollovers > 0)},
		{Group: "context", Name: "peak occupancy, rollover off", Value: float64(without.peak) / 2000, Unit: "% of window",
			Figure: fmt.Sprintf("%d tokens (%.0f%%)", without.peak, float64(without.peak)/2000), Status: report.Info},
		{Group: "context", Name: "every task done exactly once, on and off", Value: b2f(with.once && without.once), Unit: "bool",
			Figure: fmt.Sprintf("on: %v, off: %v", with.once, without.once), Target: "both", Status: report.Judge(with.once && without.once)},
	}
	if len(with.fresh) > 0 {
		rows = append(rows,
			report.Row{Group: "context", Name: "rollover cost: fresh session's first request", Value: float64(mean(with.fresh)), Unit: "tokens",
				Figure: fmt.Sprintf("%d tokens on average over %d rollover(s)", mean(with.fresh), len(with.fresh)), Status: report.Info,
				Note: "the rehydrate prompt's size: what each rollover makes the model read again"},
			report.Row{Group: "context", Name: "rollover time: ask to the fresh session's first turn", Value: ms(meanD(with.handover)), Unit: "ms",
				Figure: fmt.Sprintf("%.0f ms on average", ms(meanD(with.handover))), Status: report.Info})
	}
	return rows
}

func contextRun(ctx context.Context, o report.Options, limits phase.ContextLimits) (contextResult, error) {
	dir, err := os.MkdirTemp("", "hive-bench-context-")
	if err != nil {
		return contextResult{}, err
	}
	defer os.RemoveAll(dir)
	d := project.DAG{Plans: []phase.PlanSpec{{ID: "01-0001", Tasks: contextTasks}}}
	proj, err := project.NewProjectWith(ctx, filepath.Join(dir, "repo"), d, contextPlan)
	if err != nil {
		return contextResult{}, err
	}
	_, snap, err := runSetup{proj: proj, hiveBin: o.HiveBin, concurrent: 1, team: true, limits: limits,
		env: []string{stream.EnvContext + "=" + contextCurve}}.run(ctx)
	if err != nil {
		return contextResult{}, err
	}
	var res contextResult
	for _, p := range snap.Plans {
		res.input += p.InputTokens + p.CacheReadTokens + p.CacheWriteTokens
		res.peak = max(res.peak, p.Context.Peak)
		res.rollovers += p.Context.Rollovers
		res.compactions += p.Context.Compactions
	}
	counts, err := taskCommits(ctx, proj, "01-0001")
	if err != nil {
		return res, err
	}
	res.once = len(counts) == contextTasks
	for _, n := range counts {
		res.once = res.once && n == 1
	}
	res.fresh, res.handover, err = rolloverTimes(filepath.Join(proj.Root, ".hive", "journal.db"))
	return res, err
}

// contextPlan is a plan of contextTasks tasks with human checks at
// contextCheckpoints, which --yes approves.
func contextPlan(id string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nphase: 01-bench\nplan: 0001\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [src/%s.txt]\nautonomous: false\n---\n\n<objective>\nA long plan.\n</objective>\n\n<tasks>\n", id)
	for n := 1; n <= contextTasks; n++ {
		if slices.Contains(contextCheckpoints, n) {
			fmt.Fprintf(&b, "<task type=\"checkpoint:human-verify\">\n  <name>Task %d: Check step %d</name>\n  <what-built>Step %d</what-built>\n  <how-to-verify>Look at it.</how-to-verify>\n  <resume-signal>Type \"approved\"</resume-signal>\n</task>\n", n, n, n)
			continue
		}
		fmt.Fprintf(&b, "<task type=\"auto\">\n  <name>Task %d: Build step %d</name>\n  <files>src/%s.txt</files>\n  <action>Write step %d.</action>\n  <done>Step %d works.</done>\n</task>\n", n, n, id, n, n)
	}
	b.WriteString("</tasks>\n")
	return []byte(b.String())
}

// taskCommits counts the commits of each task of plan id (Hive-Task trailers).
func taskCommits(ctx context.Context, proj *project.Project, id string) (map[string]int, error) {
	out, err := proj.Repo.Git(ctx, "log", "--format=%B")
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "Hive-Task: "+id+"/"); ok {
			counts[t]++
		}
	}
	return counts, nil
}

// rolloverTimes replays the run's journal: for each rollover, the context
// of the fresh session's first request and the time from the ask (the
// event the engine answered with the rollover message) to the fresh
// session's first turn.
func rolloverTimes(path string) ([]int64, []time.Duration, error) {
	j, err := journal.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer j.Close()
	runs, err := j.Runs()
	if err != nil || len(runs) == 0 {
		return nil, nil, fmt.Errorf("context bench: no run journaled: %v", err)
	}
	e := engine.New()
	asked := map[string]time.Time{} // plan/attempt → when it was asked to hand over
	var fresh []int64
	var times []time.Duration
	err = j.Each(runs[0].ID, func(r journal.Record) error {
		var ev phase.Event
		if err := json.Unmarshal(r.Payload, &ev); err != nil {
			return err
		}
		cmds, err := e.Step(ev)
		if err != nil {
			return err
		}
		key := fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt)
		if ev.Type == phase.EvSpend || ev.Type == phase.EvUsage {
			prev := fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt-1)
			if at, ok := asked[prev]; ok && ev.ContextTokens > 0 {
				fresh = append(fresh, ev.ContextTokens)
				times = append(times, ev.Time.Sub(at))
				delete(asked, prev)
			}
		}
		for _, c := range cmds {
			if c.Type == phase.CmdSend && c.Message == phase.MsgRollover {
				asked[key] = ev.Time
			}
		}
		return nil
	})
	return fresh, times, err
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func mean(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s / int64(max(len(xs), 1))
}

func meanD(xs []time.Duration) time.Duration {
	var s time.Duration
	for _, x := range xs {
		s += x
	}
	return s / time.Duration(max(len(xs), 1))
}
