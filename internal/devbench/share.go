package devbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/roleplan"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

// NoClaude is the note of the tokens group where the real claude CLI is
// not installed.
const NoClaude = "claude CLI not installed (make tools, then HIVE_TOOLS=$PWD/.tools/node_modules/.bin)"

// hiveShareTarget is the most of a hive run's wall time hive's own work
// may take (issue 48): the rest is the model's and the tools'.
const hiveShareTarget = 0.05

const hiveShareName = "hive's own share of a hive run's wall time"

// hiveShareRow runs hive run's classic workflow (architect, two
// implementers side by side, comb, tester, reviewer, documenter) on a
// small Go service, with the real Claude Code CLI playing every role
// against the fake model server, and reports the share of its wall time
// that was hive's own: the wall time less the time an agent or one of
// hive's check commands (lint, build, tests) ran, as hive report's
// timeline reads it from the run's journal. The fake model answers at
// once, so the share is hive's against the CLI's and the tools' time
// alone: a real model's minutes only shrink it.
func hiveShareRow(ctx context.Context, bin string) report.Row {
	tl, err := hiveShareRun(ctx, bin)
	if err != nil {
		return report.ErrorRow("tokens", hiveShareName, err)
	}
	return report.Row{Group: "tokens", Name: hiveShareName, Value: 100 * tl.HiveShare, Unit: "%",
		Figure: fmt.Sprintf("%.1f %% (%s of %s; agents %s, checks %s)", 100*tl.HiveShare, tl.Hive.Round(time.Millisecond),
			tl.Wall.Round(100*time.Millisecond), tl.Agents.Round(100*time.Millisecond), tl.Checks.Round(100*time.Millisecond)),
		Target: fmt.Sprintf("≤ %g %%", 100*hiveShareTarget), Status: report.Judge(tl.HiveShare <= hiveShareTarget),
		Note: "real claude CLI, fake model server; hive run's classic workflow on a Go service"}
}

// hiveShareRun runs the workflow and returns its timeline.
func hiveShareRun(ctx context.Context, bin string) (runreport.Timeline, error) {
	dir, err := os.MkdirTemp("", "hive-bench-share-")
	if err != nil {
		return runreport.Timeline{}, err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "repo")
	for name, body := range e2etest.HealthService {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return runreport.Timeline{}, err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return runreport.Timeline{}, err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Hive Bench"}, {"config", "user.email", "bench@hive.invalid"},
		{"config", "commit.gpgsign", "false"}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		if out, err := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			return runreport.Timeline{}, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	var mu sync.Mutex
	var surprises []string
	surprise := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		surprises = append(surprises, fmt.Sprintf(format, args...))
	}
	srv := fa.Start(fa.Script{Rules: []fa.Rule{e2etest.HealthRoles(root, surprise)}}, surprise)
	defer srv.Close()
	failed := func(err error) (runreport.Timeline, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(surprises) > 0 {
			err = fmt.Errorf("%w (the fake model: %s)", err, strings.Join(surprises, "; "))
		}
		return runreport.Timeline{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		return failed(err)
	}
	j := journaltest.NewMemory()
	res, err := piperun.Run(ctx, piperun.Options{Repo: repo, Journal: j, Objective: e2etest.HealthObjective, Workflow: e2etest.Classic,
		Launcher: adapter.Claude{Path: bin, Env: e2etest.ClaudeEnv(srv.URL(), filepath.Join(dir, "home"))}, AutoAnswer: true,
		MaxConcurrent: 2, Stall: time.Minute, WorktreeRoot: filepath.Join(dir, "worktrees")})
	if err != nil {
		return failed(err)
	}
	if s := res.Snapshot; s.Outcome != roleplan.OutcomeComplete {
		return failed(fmt.Errorf("the run ended %s: %s", s.Outcome, s.Reason))
	}
	runs, err := j.Runs() // as the run finished: res.Run is as it began
	if err != nil || len(runs) == 0 {
		return failed(fmt.Errorf("the run is not in its journal: %v", err))
	}
	rep, err := runreport.Build(ctx, j, repo, runs[0])
	if err != nil {
		return failed(err)
	}
	return rep.Timeline, nil
}
