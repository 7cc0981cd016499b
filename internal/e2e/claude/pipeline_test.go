package claude_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/roleplan"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// The model's side of hive run: the fake server plays each role the real
// Claude Code CLI is started as (e2etest's health check objective). The
// architect writes two plans: the health endpoint with its test, and its
// documentation; the implementers carry them out in their worktrees; the
// other roles report.

func reportOnly(role string) fa.Reply { return fa.Text(e2etest.RoleReport(role)) }

// TestPipelineWithClaude runs hive run's full workflow with the real Claude
// Code CLI playing every role against the fake model server: the plans it
// writes are linted and run by parallel executors, the project's tests
// pass, and the endpoint with its test reaches main. Each role runs on its
// own model (models.ROLE): the server sees the architect's requests on
// one, the implementers' on another, the other roles' on the default.
func TestPipelineWithClaude(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	root := e2etest.Repo(t, e2etest.HealthService)
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{e2etest.HealthRoles(root, t.Errorf)}})
	env := e2etest.ClaudeEnv(srv.URL(), t.TempDir())
	launcher := adapter.Claude{Path: bin, Env: env, Model: "claude-sonnet-5-5"}
	roles := map[string]agent.Launcher{
		workflows.RoleArchitect:   adapter.Claude{Path: bin, Env: env, Model: "claude-opus-5-5"},
		workflows.RoleImplementer: adapter.Claude{Path: bin, Env: env, Model: "claude-haiku-5-5"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	j := journaltest.NewMemory()
	res, err := piperun.Run(ctx, piperun.Options{
		Repo: repo, Journal: j, Objective: e2etest.HealthObjective, Workflow: e2etest.Classic,
		Launcher: launcher, Roles: roles, AutoAnswer: true, MaxConcurrent: 2, Stall: 30 * time.Second,
		WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	if err != nil {
		t.Fatal(err)
	}
	e2etest.CheckHealthRun(t, root, res)
	runs, _ := j.Runs()
	if rep, err := runreport.Build(ctx, j, repo, runs[0]); err == nil {
		t.Logf("where the run's time went:\n%s", rep.Timeline.Text())
	}
	models := map[string]map[string]bool{} // who → the models its requests named
	for _, r := range srv.MainRequests() {
		first := firstUserText(r.Conv)
		who := "?"
		if m := e2etest.RoleHeading.FindStringSubmatch(first); m != nil {
			who = m[1]
		} else if e2etest.PlanToRun.MatchString(first) {
			who = "executor"
		}
		if models[who] == nil {
			models[who] = map[string]bool{}
		}
		models[who][r.Conv.Model] = true
	}
	for who, want := range map[string]string{"architect": "claude-opus-5-5", "executor": "claude-haiku-5-5",
		"tester": "claude-sonnet-5-5", "reviewer": "claude-sonnet-5-5", "documenter": "claude-sonnet-5-5"} {
		if got := models[who]; len(got) != 1 || !got[want] {
			t.Errorf("%s's requests named %v, want %s only", who, got, want)
		}
	}
}

// TestRoleLoopGuardWithClaude: the real Claude Code plays a tester that
// runs the same command again and again; the loop guard sees its calls in
// the stream, interrupts it at the fifth, and the run stops for the human
// with the loop named. The calls are journaled as fingerprints.
func TestRoleLoopGuardWithClaude(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{"go.mod": "module example.com/svc\n\ngo 1.22\n"})
	loop := fa.Rule{
		Name:  "tester loops",
		Match: func(c *fa.Conversation) bool { return isTester(c) },
		Reply: func(*fa.Conversation) fa.Reply { return fa.Bash("git status --short") },
	}
	others := fa.Rule{
		Name:  "other roles",
		Match: func(c *fa.Conversation) bool { return e2etest.RoleHeading.MatchString(firstUserText(c)) },
		Reply: func(c *fa.Conversation) fa.Reply {
			return reportOnly(e2etest.RoleHeading.FindStringSubmatch(firstUserText(c))[1])
		},
	}
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{loop, others}})
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	j := journaltest.NewMemory()
	_, err := piperun.Run(ctx, piperun.Options{
		Repo: e2etest.OpenRepo(ctx, t, root), Journal: j, Objective: e2etest.HealthObjective, Workflow: workflows.Quick,
		Launcher: adapter.Claude{Path: bin, Env: e2etest.ClaudeEnv(srv.URL(), t.TempDir())}, AutoAnswer: true,
		Stall: 30 * time.Second, WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	var needs *piperun.NeedsHumanError
	if !errors.As(err, &needs) || needs.Checkpoint.Job != workflows.RoleTester ||
		!strings.Contains(needs.Checkpoint.Question, "loop guard: the agent made the same call 5 times in a row (Bash git status --short)") {
		t.Fatalf("Run = %v, want the tester stopped by the loop guard", err)
	}
	calls := 0
	for _, r := range srv.MainRequests() {
		if isTester(r.Conv) {
			calls++
		}
	}
	if calls > 6 {
		t.Errorf("the tester made %d requests: the interrupt at the fifth call did not stop it", calls)
	}
	runs, _ := j.Runs()
	recs, _ := j.Events(runs[0].ID, 1)
	journaled := 0
	for _, rec := range recs {
		if rec.Type == string(roleplan.EvToolCall) {
			journaled++
			if !regexp.MustCompile(`"text":"[0-9a-f]{16} git status --short"`).Match(rec.Payload) {
				t.Errorf("a tool call journaled as %s, want its fingerprint", rec.Payload)
			}
		}
	}
	if journaled != 5 {
		t.Errorf("%d tool calls journaled, want the 5 the guard saw", journaled)
	}
}

func isTester(c *fa.Conversation) bool {
	m := e2etest.RoleHeading.FindStringSubmatch(firstUserText(c))
	return m != nil && m[1] == "tester"
}

// TestUsageLimitInARunWithClaude: the real Claude Code, logged in with a
// subscription, plays every role of hive run; the tester's first request
// meets the account's usage limit. Waiting (the default), the run waits
// for the reset (5 s ahead on the wall clock, which Claude Code keeps
// too), the tester runs again, and the run completes with no crash
// counted. With limits.on_limit fallback, the run goes on at once with the
// fallback agent (Claude Code on another model and account), which the
// tester's next session and every later role use.
func TestUsageLimitInARunWithClaude(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	for _, policy := range []work.OnLimit{work.OnLimitWait, work.OnLimitFallback} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			root := e2etest.Repo(t, e2etest.HealthService)
			reset := 5 * time.Second
			if policy == work.OnLimitFallback {
				reset = 2 * time.Hour // never waited for
			}
			limit := fa.Rule{Name: "usage limit", Times: 1, Match: isTester,
				Reply: func(*fa.Conversation) fa.Reply {
					epoch := strconv.FormatInt(time.Now().Add(reset).Unix()+1, 10)
					return fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "This request would exceed your account's rate limit.",
						Header: http.Header{"Anthropic-Ratelimit-Unified-Status": {"rejected"}, "Anthropic-Ratelimit-Unified-Reset": {epoch},
							"Anthropic-Ratelimit-Unified-Representative-Claim": {"five_hour"}}}
				}}
			srv := fa.New(t, fa.Script{Rules: []fa.Rule{limit, e2etest.HealthRoles(root, t.Errorf)}})
			oauth := []string{"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-hive-test"}
			launcher := adapter.Claude{Path: bin, Env: append(e2etest.ClaudeEnv(srv.URL(), t.TempDir()), oauth...), Model: "claude-sonnet-5-5"}
			// Another account: a Claude Code of its own, which has not met
			// the limit.
			fallback := adapter.Claude{Path: bin, Env: append(e2etest.ClaudeEnv(srv.URL(), t.TempDir()), oauth...), Model: "claude-fallback-5-5"}
			ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
			defer cancel()
			repo := e2etest.OpenRepo(ctx, t, root)
			j := journaltest.NewMemory()
			res, err := piperun.Run(ctx, piperun.Options{
				Repo: repo, Journal: j, Objective: e2etest.HealthObjective, Workflow: e2etest.Classic,
				Launcher: launcher, AutoAnswer: true, MaxConcurrent: 2, Stall: 30 * time.Second,
				WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"), OnLimit: policy, Fallback: fallback,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Merged || res.Snapshot.Fallback != (policy == work.OnLimitFallback) {
				t.Fatalf("outcome %s merged %v fallback %v: %s %q", res.Snapshot.Outcome, res.Merged, res.Snapshot.Fallback, res.Snapshot.Reason, res.Notes)
			}
			for _, jb := range res.Snapshot.Jobs {
				if want := map[string]int{workflows.RoleTester: 2}[jb.ID]; jb.ID == workflows.RoleTester && jb.Attempts != want || jb.ID != workflows.RoleTester && jb.Attempts > 1 {
					t.Errorf("%s ran %d times", jb.ID, jb.Attempts)
				}
			}
			var limited, woke int
			j.Each(res.Run.ID, func(rec journal.Record) error {
				switch rec.Type {
				case string(roleplan.EvLimited):
					limited++
				case string(roleplan.EvWake):
					woke++
				}
				return nil
			})
			if limited != 1 || (woke == 1) != (policy == work.OnLimitWait) {
				t.Errorf("%d limits and %d wakes journaled", limited, woke)
			}
			e2etest.CheckHealthWork(t, root)
			// Who ran on which model: on the fallback, the tester's second
			// session and the roles after it.
			models := map[string]map[string]bool{}
			for _, r := range srv.MainRequests() {
				if m := e2etest.RoleHeading.FindStringSubmatch(firstUserText(r.Conv)); m != nil {
					if models[m[1]] == nil {
						models[m[1]] = map[string]bool{}
					}
					models[m[1]][r.Conv.Model] = true
				}
			}
			if fell := models["documenter"]["claude-fallback-5-5"]; fell != (policy == work.OnLimitFallback) || models["architect"]["claude-fallback-5-5"] {
				t.Errorf("the models the roles' requests named: %v", models)
			}
			if policy == work.OnLimitFallback && !models["tester"]["claude-fallback-5-5"] {
				t.Errorf("the tester did not go on on the fallback: %v", models)
			}
		})
	}
}
