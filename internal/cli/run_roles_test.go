package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
)

// TestRoleRunnerPushesBeforeItReports runs role sessions as a worker does
// (roleRunner, without Temporal) in a clone of a project whose run's
// branch is on a bare remote:
//   - the architect's session runs in a worktree of its own made from the
//     run's branch, pushes its plans there before its report goes on, and
//     leaves no worktree behind; only its report's text travels;
//   - a session whose start is no longer the branch's tip is refused;
//   - a session whose push is refused (another session went on) hands on
//     no report, and its exit says why.
func TestRoleRunnerPushesBeforeItReports(t *testing.T) {
	// The sim is this test binary, which the test's TestMain makes hive.
	args0 := os.Args[0]
	os.Args[0] = "hive"
	defer func() { os.Args[0] = args0 }()
	dir := pipelineFixture(t)
	bare := bareOrigin(t, dir)
	const branch = "hive/run-1-0000abcd/run"
	git(t, dir, "push", "-q", "origin", "main:refs/heads/"+branch)
	rev := strings.TrimSpace(git(t, dir, "rev-parse", "main"))
	notes := &lockedBuffer{}
	r := &roleRunner{g: &globalOptions{repo: dir}, agent: "sim", out: notes}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := roleRequest{Role: "architect", Remote: "origin", Branch: branch, Rev: rev, Job: "architect", Attempt: 1,
		Prompt: "# Role: architect\n\n## Objective\n\nadd a health check endpoint\n\nWrite one phase of plans under `.planning/phases/01-health/`.\n",
		Env:    []string{"HIVE_AGENT_ROLE=architect", "HIVE_RUN=1"}}
	run := func(req roleRequest) ([]agent.Output, error) {
		raw, _ := json.Marshal(req)
		var mu sync.Mutex
		var outs []agent.Output
		err := r.Run(ctx, raw, func(b json.RawMessage) {
			var o agent.Output
			if err := json.Unmarshal(b, &o); err != nil {
				t.Errorf("an output that is not one: %s", b)
			}
			mu.Lock()
			outs = append(outs, o)
			mu.Unlock()
		})
		return outs, err
	}
	reports := func(outs []agent.Output) (n int) {
		for _, o := range outs {
			if strings.Contains(o.Text, "HIVE_REPORT") {
				n++
			} else if o.Text != "" {
				t.Errorf("a text that is no report travelled: %q", o.Text)
			}
		}
		return n
	}

	outs, err := run(req)
	if err != nil {
		logs, _ := filepath.Glob(filepath.Join(dir, ".hive", "logs", "*"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, b)
		}
		t.Fatalf("%v; outputs %+v", err, outs)
	}
	last := outs[len(outs)-1]
	if reports(outs) != 1 || last.Kind != agent.OutExit || last.ExitCode != 0 {
		t.Fatalf("the architect's session: %d reports, last output %+v; want one report, a clean exit", reports(outs), last)
	}
	tip := strings.TrimSpace(git(t, bare, "rev-parse", branch))
	if tip == rev || !strings.Contains(git(t, bare, "ls-tree", "-r", "--name-only", tip), ".planning/phases/01-health/") {
		t.Fatalf("the run's branch holds no plans after the architect's session (tip %s)", tip)
	}
	if wts := git(t, dir, "worktree", "list"); strings.Count(wts, "\n") > 1 {
		t.Errorf("worktrees left:\n%s", wts)
	}
	if !strings.Contains(notes.String(), "architect attempt 1 runs here (the architect)") {
		t.Errorf("the worker did not say so:\n%s", notes)
	}

	// The branch has moved on from rev.
	if _, err := run(req); err == nil || !strings.Contains(err.Error(), "another driver went on with the run") {
		t.Fatalf("a session from a start that is no longer the branch's tip: %v", err)
	}

	// Another session pushes while this one works.
	req.Rev, req.Attempt = tip, 2
	req.Prompt = strings.ReplaceAll(req.Prompt, "01-health", "02-more")
	req.Env = append(req.Env, "HIVE_SIM_DELAY=2s")
	go func() {
		for !strings.Contains(notes.String(), "architect attempt 2 runs here") {
			time.Sleep(20 * time.Millisecond)
		}
		os.WriteFile(filepath.Join(dir, "other.txt"), []byte("another session's work\n"), 0o644)
		git(t, dir, "add", "other.txt")
		git(t, dir, "commit", "-q", "-m", "another session")
		git(t, dir, "push", "-q", "-f", "origin", "HEAD:refs/heads/"+branch)
	}()
	outs, err = run(req)
	if err != nil {
		t.Fatal(err)
	}
	last = outs[len(outs)-1]
	if reports(outs) != 0 || last.Kind != agent.OutExit || last.ExitCode == 0 || !strings.Contains(last.Err, "could not be pushed to "+branch+" before its report") {
		t.Fatalf("a session whose push is refused: %d reports, last output %+v; want none, an exit that says why", reports(outs), last)
	}
}

// TestRolesAreCheckedWhereTheyRun: a Temporal run's driver starts none of
// the roles' agents, so it does not check their CLIs (a driver on a
// machine without claude drives runs whose roles run on workers that have
// it); the worker that is to run a role checks its agent first and, when
// the CLI is missing, says how to install it and starts nothing.
func TestRolesAreCheckedWhereTheyRun(t *testing.T) {
	dir := pipelineFixture(t)
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir() // git, and no claude
	if err := os.Symlink(gitPath, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("HIVE_TOOLS", "") // where make test installs the CLIs
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := &globalOptions{repo: dir, stdout: io.Discard, stderr: io.Discard}
	repo, cfg, err := openRepoConfig(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := pipeline.Builtin("full")
	choice := runChoice{Workflow: full}
	driver := &runOptions{globalOptions: g, agent: "claude", noInterview: true, rolesElsewhere: true}
	if _, err := pipelineOptions(ctx, driver, repo, cfg, "add a health check", choice, journal.NewMemory()); err != nil {
		t.Errorf("the driver checked the roles' agents: %v", err)
	}
	here := &runOptions{globalOptions: g, agent: "claude", noInterview: true}
	if _, err := pipelineOptions(ctx, here, repo, cfg, "add a health check", choice, journal.NewMemory()); err == nil || !strings.Contains(err.Error(), "claude is not installed") {
		t.Errorf("a local run whose roles' CLI is missing: %v", err)
	}
	notes := &lockedBuffer{}
	r := &roleRunner{g: g, agent: "claude", out: notes}
	raw, _ := json.Marshal(roleRequest{Role: "architect", Dir: filepath.Join(t.TempDir(), "run-1"), Job: "architect", Attempt: 1, Prompt: "plan it"})
	err = r.Run(ctx, raw, func(json.RawMessage) { t.Error("a session started without its agent") })
	if err == nil || !strings.Contains(err.Error(), "the architect agent cannot start") || !strings.Contains(err.Error(), "claude is not installed") ||
		!strings.Contains(err.Error(), "npm install -g @anthropic-ai/claude-code") || !strings.Contains(err.Error(), dir) {
		t.Errorf("a worker without the architect's CLI: %v", err)
	}
	if strings.Contains(notes.String(), "runs here") {
		t.Errorf("the worker said it runs the session: %s", notes)
	}
}
