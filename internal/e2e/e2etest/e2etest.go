package e2etest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
)

// Git runs git in dir and returns its combined output; it fails t on error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Repo makes a git repository in a temporary directory holding files
// (slash-separated path to content), committed as "initial" on main.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "config", "user.name", "Hive Test")
	Git(t, dir, "config", "user.email", "test@hive.invalid")
	Git(t, dir, "config", "commit.gpgsign", "false")
	Commit(t, dir, "initial")
	return dir
}

// Commit stages everything in dir and commits it with msg.
func Commit(t testing.TB, dir, msg string) {
	t.Helper()
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", msg)
}

// LoadPhase loads the phase in root/dir and fails t unless it is valid.
func LoadPhase(t testing.TB, root, dir string) *plan.Phase {
	t.Helper()
	ph, err := load.Phase(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ds := validate.Phase(ph); plan.HasErrors(ds) {
		t.Fatalf("invalid fixture: %v", ds)
	}
	return ph
}

// RunTimeout bounds one run of hive against a real agent CLI, so that a
// hung run fails its test instead of holding the package until go test's
// timeout. It is no measure of speed: the tests run in parallel on a
// loaded 2-core machine, where a run of half a minute took over a minute.
const RunTimeout = 5 * time.Minute

var taskRe = regexp.MustCompile(`(?m)^[ \t]*Hive-Task: (\S+)[ \t]*$`)

// TaskCommits counts the commits of dir (all refs) per Hive-Task trailer
// value ("01-01/2").
func TaskCommits(t testing.TB, dir string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, m := range taskRe.FindAllStringSubmatch(Git(t, dir, "log", "--all", "--format=%B"), -1) {
		counts[m[1]]++
	}
	return counts
}

// Dirty is `git status --porcelain` of dir, trimmed: "" for a clean tree.
func Dirty(t testing.TB, dir string) string {
	t.Helper()
	return strings.TrimSpace(Git(t, dir, "status", "--porcelain"))
}

// Summary reports whether the SUMMARY of plan id exists in root/phaseDir.
func Summary(root, phaseDir, id string) error {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(phaseDir), id+"-SUMMARY.md"))
	return err
}

// AgentStarts lists the attempts of the agent-started events of a run per plan.
func AgentStarts(t testing.TB, j journal.Journal, run int64) map[string][]int {
	t.Helper()
	started := map[string][]int{}
	recs, err := j.Events(run, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Type != string(phase.EvAgentStarted) {
			continue
		}
		var ev phase.Event
		if err := json.Unmarshal(r.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		started[ev.Plan] = append(started[ev.Plan], ev.Attempt)
	}
	return started
}

// ClaudeEnv is the environment of a Claude Code CLI talking to a fake
// Anthropic server at baseURL, with its own home.
func ClaudeEnv(baseURL, home string) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"HOME=" + home,
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_MAX_RETRIES=0",
	}
}

// OpenRepo opens the repository at root for the runner.
func OpenRepo(ctx context.Context, t testing.TB, root string) *gitx.Repo {
	t.Helper()
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// TurnResults runs one session of l in dir on a short prompt and returns
// the results of its turns, once the process has exited (within two
// minutes).
func TurnResults(t testing.TB, l agent.Launcher, dir string) []agent.Output {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var results []agent.Output
	done := make(chan struct{})
	_, err := l.Start(ctx, agent.Spec{Plan: "01-01", Attempt: 1, Dir: dir, Prompt: "say hi", LogPath: filepath.Join(dir, "agent.log")}, func(o agent.Output) {
		mu.Lock()
		defer mu.Unlock()
		switch o.Kind {
		case agent.OutResult:
			results = append(results, o)
		case agent.OutExit:
			close(done)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s did not exit", l.Name())
	}
	mu.Lock()
	defer mu.Unlock()
	return results
}
