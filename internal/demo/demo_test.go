package demo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/sim"
	"github.com/hivectl/hive/internal/testsupport"
)

// The test binary doubles as the sim agent so that the demo is exercised by
// a real child process, as `hive demo` does.
const childEnv = "HIVE_DEMO_TEST_SIM"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(sim.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// loadPhase loads and validates the demo phase and fails on any error or
// warning: the demo is what users see first.
func loadPhase(t *testing.T, dir string) *plan.Phase {
	t.Helper()
	ph, err := load.Phase(dir, PhaseDir)
	if err != nil {
		t.Fatal(err)
	}
	diags := append(ph.Diagnostics, validate.Phase(ph)...)
	if plan.HasErrors(diags) {
		t.Errorf("diagnostics with errors: %v", diags)
	}
	for _, d := range diags {
		if d.Severity >= plan.SeverityWarning {
			t.Errorf("diagnostic: %v", d)
		} else {
			t.Logf("note: %v", d)
		}
	}
	return ph
}

func TestCreate(t *testing.T) {
	for _, variant := range []struct {
		name   string
		create func(string) error
	}{{"autonomous", Create}, {"checkpoints", CreateWithCheckpoints}} {
		t.Run(variant.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bookshelf")
			if err := variant.create(dir); err != nil {
				t.Fatal(err)
			}
			if n := gitOut(t, dir, "rev-list", "--count", "HEAD"); n != "1" {
				t.Errorf("%s commits, want 1", n)
			}
			if b := gitOut(t, dir, "branch", "--show-current"); b != "main" {
				t.Errorf("branch %q", b)
			}
			if s := gitOut(t, dir, "status", "--porcelain"); s != "" {
				t.Errorf("uncommitted files:\n%s", s)
			}
			for _, f := range []string{"go.mod", "main.go", "internal/store/store.go", "README.md", ".gitignore",
				".planning/PROJECT.md", ".planning/ROADMAP.md", ".planning/STATE.md", ".planning/config.json"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("missing %s", f)
				}
			}
			var cfg struct {
				Parallelization struct {
					MaxConcurrentAgents int  `json:"max_concurrent_agents"`
					DynamicScheduling   bool `json:"dynamic_scheduling"`
				} `json:"parallelization"`
				Teams struct {
					ExecutionTeam bool `json:"execution_team"`
				} `json:"teams"`
			}
			data, _ := os.ReadFile(filepath.Join(dir, ".planning/config.json"))
			if err := json.Unmarshal(data, &cfg); err != nil || cfg.Parallelization.MaxConcurrentAgents != 3 || !cfg.Teams.ExecutionTeam {
				t.Errorf("config.json: %+v, %v", cfg, err)
			}

			ph := loadPhase(t, dir)
			if ph.Number != "01" || ph.Slug != "core-library" || len(ph.Plans) != 6 {
				t.Fatalf("phase %s-%s with %d plans", ph.Number, ph.Slug, len(ph.Plans))
			}
			waves := map[string]int{}
			deps := map[string][]string{}
			owner := map[string]string{}
			for _, p := range ph.Plans {
				waves[p.ID] = p.ComputedWave
				deps[p.ID] = p.DependsOn
				if p.Wave != p.ComputedWave {
					t.Errorf("%s: declared wave %d, computed %d", p.ID, p.Wave, p.ComputedWave)
				}
				if len(p.Tasks) < 2 || len(p.MustHaves.Truths) == 0 || len(p.MustHaves.Artifacts) == 0 || len(p.MustHaves.KeyLinks) == 0 || len(p.Requirements) == 0 {
					t.Errorf("%s: too thin: %d tasks, must_haves %+v", p.ID, len(p.Tasks), p.MustHaves)
				}
				for _, f := range p.FilesModified {
					if o, dup := owner[f]; dup {
						t.Errorf("%s and %s both modify %s", o, p.ID, f)
					}
					owner[f] = p.ID
				}
				for _, tk := range p.Tasks {
					for _, f := range tk.Files {
						if owner[f] != p.ID {
							t.Errorf("%s task %d touches %s, not in its files_modified", p.ID, tk.Number, f)
						}
					}
					if tk.Type == plan.TaskAuto && (tk.Action == "" || !strings.Contains(tk.Verify, "go test ./...") || tk.Done == "" || tk.AcceptanceCriteria == "" || tk.ReadFirst == "") {
						t.Errorf("%s task %d is missing parts: %+v", p.ID, tk.Number, tk)
					}
				}
			}
			want := map[string]int{"01-01": 1, "01-02": 1, "01-03": 2, "01-04": 2, "01-05": 3, "01-06": 3}
			if fmt.Sprint(waves) != fmt.Sprint(want) {
				t.Errorf("waves %v, want %v", waves, want)
			}
			// The diamond: 01-01 → 01-03 → 01-05 and 01-01 → 01-04 → 01-05.
			if fmt.Sprint(deps["01-03"]) != "[01-01]" || fmt.Sprint(deps["01-04"]) != "[01-01 01-02]" ||
				fmt.Sprint(deps["01-05"]) != "[01-03 01-04]" || fmt.Sprint(deps["01-06"]) != "[01-04]" {
				t.Errorf("depends_on %v", deps)
			}

			for _, p := range ph.Plans {
				stops := variant.name == "checkpoints" && (p.ID == "01-03" || p.ID == "01-04")
				if p.Autonomous == stops {
					t.Errorf("%s: autonomous %t", p.ID, p.Autonomous)
				}
			}
			if variant.name == "checkpoints" {
				d := ph.Plan("01-03").Tasks[1]
				if d.Type != plan.TaskDecision || d.Gate != "blocking" || d.Decision == nil || len(d.Decision.Options) != 3 ||
					d.Decision.Options[0].ID != "json-file" || d.Decision.Options[0].Pros == "" || d.ResumeSignal == "" {
					t.Errorf("01-03 decision task: %+v", d)
				}
				v := ph.Plan("01-04").Tasks[2]
				if v.Type != plan.TaskHumanVerify || v.Gate != "blocking" || v.ResumeSignal == "" || v.Extra["how-to-verify"] == "" {
					t.Errorf("01-04 verify task: %+v", v)
				}
			}
		})
	}
}

func TestCreateRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "precious.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Create(dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("Create over a non-empty dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		t.Error("made a repository anyway")
	}
}

// session is a sim child process reading stream-json.
type session struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startSim(t *testing.T, dir string) *session {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return &session{t: t, cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
}

// wait reads the sim's output to its end and then reaps it: Wait closes the
// StdoutPipe, so it must come after the last read (os/exec's rule).
func (s *session) wait() error {
	_, _ = io.Copy(io.Discard, s.out)
	return s.cmd.Wait()
}

func (s *session) send(text string) {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// result reads up to the end of the turn and returns the result text.
func (s *session) result() string {
	s.t.Helper()
	done := make(chan string, 1)
	go func() {
		for {
			line, err := s.out.ReadBytes('\n')
			var m struct {
				Type   string `json:"type"`
				Result string `json:"result"`
			}
			if json.Unmarshal(line, &m) == nil && m.Type == "result" {
				done <- m.Result
				return
			}
			if err != nil {
				done <- "EOF before a result line"
				return
			}
		}
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(30 * time.Second):
		s.t.Fatal("no result line within 30s")
		return ""
	}
}

func prompt(id string) string {
	return fmt.Sprintf("<objective>\nExecute plan %s.\n</objective>\n\n<team_protocol>\nYou are executor-%s.\n</team_protocol>\n\n<files_to_read>\n- Plan: %s/%s-PLAN.md\n</files_to_read>\n", id, id, PhaseDir, id)
}

func TestSimRunsDemoPlans(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bookshelf")
	if err := CreateWithCheckpoints(dir); err != nil {
		t.Fatal(err)
	}

	s := startSim(t, dir)
	s.send(prompt("01-01"))
	if r := s.result(); !strings.HasPrefix(r, "PLAN COMPLETE\n\n**Plan:** 01-01\n**Tasks:** 2/2\n") {
		t.Fatalf("01-01 result:\n%s", r)
	}
	s.stdin.Close()
	if err := s.wait(); err != nil {
		t.Fatalf("01-01 sim: %v", err)
	}

	// 01-03 stops at its decision; the answer arrives in the same session.
	s = startSim(t, dir)
	s.send(prompt("01-03"))
	cp := s.result()
	if !strings.HasPrefix(cp, "CHECKPOINT: decision\nPLAN: 01-03\nPROGRESS: 1/3\n") || !strings.Contains(cp, "**sqlite**") {
		t.Fatalf("01-03 checkpoint:\n%s", cp)
	}
	s.send("CHECKPOINT_RESPONSE: json-file")
	if r := s.result(); !strings.HasPrefix(r, "PLAN COMPLETE\n\n**Plan:** 01-03\n**Tasks:** 3/3\n") {
		t.Fatalf("01-03 result:\n%s", r)
	}
	s.stdin.Close()
	if err := s.wait(); err != nil {
		t.Fatalf("01-03 sim: %v", err)
	}

	ph := loadPhase(t, dir)
	for _, id := range []string{"01-01", "01-03"} {
		if sum := ph.Summaries[id]; sum == nil || sum.SelfCheck != "PASSED" {
			t.Errorf("summary of %s: %+v", id, sum)
		}
	}
	if log := gitOut(t, dir, "log", "--format=%s"); !strings.Contains(log, "chore(01-03): decision json-file") {
		t.Errorf("no decision commit:\n%s", log)
	}

	// The sim's edits leave the project building and its tests passing.
	if testing.Short() {
		return
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s in the demo project: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
