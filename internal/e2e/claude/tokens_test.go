package claude_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

// One plan, five tasks, three of them checkpoints: the cost of a live
// session (team mode) against one-shot agents and continuations
// (standalone mode).

const tkPhase = ".planning/phases/05-tok"
const tkID = "05-01"

const tkPlan = `---
phase: 05-tok
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [src/auth/provider.ts, src/auth/session.ts]
autonomous: false
---
<objective>Authentication with three checkpoints</objective>
<tasks>
<task type="auto"><name>Task 1: Provider interface</name><files>src/auth/provider.ts</files><action>Define ` + "`interface AuthProvider { signIn(): Promise<User> }`" + `.</action><done>interface exists</done></task>
<task type="checkpoint:decision" gate="blocking">
  <name>Task 2: Choose the provider</name>
  <decision>Select authentication provider</decision>
  <context>Need user auth. Three options with different tradeoffs.</context>
  <options>
    <option id="supabase"><name>Supabase</name><pros>Built-in with our DB</pros><cons>Less customizable UI</cons></option>
    <option id="clerk"><name>Clerk</name><pros>Best DX</pros><cons>Paid after 10k MAU</cons></option>
    <option id="nextauth"><name>NextAuth</name><pros>Free</pros><cons>More setup</cons></option>
  </options>
  <resume-signal>Select: supabase, clerk, or nextauth</resume-signal>
</task>
<task type="checkpoint:human-verify" gate="blocking">
  <name>Task 3: Check the sign-in page</name>
  <what-built>Sign-in page at http://localhost:3000/login</what-built>
  <how-to-verify>Sign in with a test account.</how-to-verify>
  <resume-signal>Type "approved" or describe issues</resume-signal>
</task>
<task type="checkpoint:human-action" gate="blocking">
  <name>Task 4: Create the OAuth app</name>
  <action>Create the OAuth app in the provider's dashboard and put its keys in .env.</action>
  <resume-signal>Type "done" when the keys are in place</resume-signal>
</task>
<task type="auto"><name>Task 5: Session</name><files>src/auth/session.ts</files><action>Wire the chosen provider.</action><done>sessions work</done></task>
</tasks>
`

var tkTasks = []task{
	{Name: "Provider interface", File: "src/auth/provider.ts"},
	{Name: "Choose the provider", Checkpoint: "decision"},
	{Name: "Check the sign-in page", Checkpoint: "human-verify"},
	{Name: "Create the OAuth app", Checkpoint: "human-action"},
	{Name: "Session", File: "src/auth/session.ts"},
}

var tkAnswers = map[string]string{"decision": "clerk", "human-verify": "approved", "human-action": "done"}

var tkPlanRe = regexp.MustCompile(`- Plan: \.planning/phases/05-tok/(05-0\d)-PLAN\.md`)

func tkPlanOf(c *fa.Conversation) string {
	if m := tkPlanRe.FindStringSubmatch(firstUserText(c)); m != nil {
		return m[1]
	}
	return ""
}

// tkCheckpoints lists the task numbers of the checkpoints, in order.
func tkCheckpoints() []int {
	var out []int
	for i, tk := range tkTasks {
		if tk.Checkpoint != "" {
			out = append(out, i+1)
		}
	}
	return out
}

// tkSegment: the replies of one turn, from task `from` (answer resolves it
// when it is a checkpoint) to the next checkpoint or the end of the plan.
func tkSegment(root string, from int, answer string, team bool) []step {
	id := tkID
	total := len(tkTasks)
	planFile := fmt.Sprintf("%s/%s-PLAN.md", tkPhase, id)
	var steps []step
	var pending []string
	for n := from; n <= total; n++ {
		tk := tkTasks[n-1]
		subject := fmt.Sprintf("feat(%s): %s", id, tk.Name)
		progress := fmt.Sprintf("PROGRESS: Task %d/%d complete: %s", n, total, subject)
		if tk.Checkpoint != "" {
			if n == from && answer != "" {
				body := "checkpoint " + tk.Checkpoint + " " + answer
				steps = append(steps, static(withText(pending, fa.Bash(commitCmd(id, n, subject, body, planFile, true)))))
				pending = []string{progress}
				continue
			}
			p := pending
			steps = append(steps, func(c *fa.Conversation) fa.Reply {
				return withText(p, fa.Text(tkCheckpointText(n, team, c)))
			})
			return steps
		}
		steps = append(steps,
			static(withText(pending, fa.Write(filepath.Join(root, filepath.FromSlash(tk.File)), fmt.Sprintf("// %s: %s\n", id, tk.Name)))),
			static(fa.Bash(commitCmd(id, n, subject, "", tk.File, false))),
		)
		pending = []string{progress}
	}
	summary := fmt.Sprintf("%s/%s-SUMMARY.md", tkPhase, id)
	steps = append(steps,
		static(withText(pending, fa.Write(filepath.Join(root, filepath.FromSlash(summary)), fmt.Sprintf(
			"---\nphase: 05-tok\nplan: 01\nsubsystem: auth\ntags: [e2e]\nduration: 1min\ncompleted: 2026-01-01\n---\n# Plan %s Summary\n\nAll %d tasks done.\n\n## Self-Check: PASSED\n",
			id, total)))),
		static(fa.Bash(commitCmd(id, 0, fmt.Sprintf("docs(%s): complete plan", id), "", summary, false)+
			fmt.Sprintf(" && git log --format='- %%h %%s' --grep='Hive-Plan: %s'", id))),
		func(c *fa.Conversation) fa.Reply {
			var list []string
			for _, r := range c.LastToolResults() {
				for _, l := range strings.Split(r.Text, "\n") {
					if strings.HasPrefix(l, "- ") {
						list = append(list, l)
					}
				}
			}
			return fa.Text(fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s\n\n**Commits:**\n%s",
				id, total, total, summary, strings.Join(list, "\n")))
		},
	)
	return steps
}

func tkCheckpointText(n int, team bool, c *fa.Conversation) string {
	tk := tkTasks[n-1]
	var details, awaiting string
	switch tk.Checkpoint {
	case "decision":
		details, awaiting = authDecision, authDecisionAwaiting
	case "human-verify":
		details = "**What was built:** Sign-in page at http://localhost:3000/login\n**How to verify:** Sign in with a test account."
		awaiting = `Type "approved" or describe issues`
	default:
		details = "**Action required:** Create the OAuth app in the provider's dashboard and put its keys in .env."
		awaiting = `Type "done" when the keys are in place`
	}
	var rows []string
	for i, hs := range commitsSeen(c) {
		hash, subj, _ := strings.Cut(hs, " ")
		rows = append(rows, fmt.Sprintf("| %d | %s | %s | - |", i+1, subj, hash))
	}
	return checkpointMessage(tkID, tk.Checkpoint, tk.Name, n, len(tkTasks), team, rows, details, awaiting)
}

func tkExecutor(t *testing.T, root string) fa.Rule {
	return fa.Rule{
		Name:  "executor-05",
		Match: func(c *fa.Conversation) bool { return tkPlanOf(c) != "" },
		Reply: func(c *fa.Conversation) fa.Reply {
			first := firstUserText(c)
			team := strings.Contains(first, "executor-"+tkID)
			prompt, k := c.LastPrompt()
			var steps []step
			switch {
			case strings.HasPrefix(strings.TrimSpace(prompt), "CHECKPOINT_RESPONSE:"):
				ans := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(prompt), "CHECKPOINT_RESPONSE:"))
				// The i-th response answers the i-th checkpoint.
				i := 0
				for _, m := range c.Messages {
					if m.Role == "user" && strings.HasPrefix(strings.TrimSpace(m.Text()), "CHECKPOINT_RESPONSE:") {
						i++
					}
				}
				cps := tkCheckpoints()
				if i < 1 || i > len(cps) {
					t.Errorf("response %d of %d checkpoints", i, len(cps))
					return fa.Text("PLAN FAILED\n\n**Plan:** " + tkID + "\n**Error:** unexpected response")
				}
				steps = tkSegment(root, cps[i-1], ans, team)
			case resumeRe.MatchString(prompt):
				var from int
				fmt.Sscan(resumeRe.FindStringSubmatch(prompt)[1], &from)
				ans := ""
				if m := userRespRe.FindStringSubmatch(prompt); m != nil {
					ans = m[1]
				}
				steps = append([]step{static(fa.Bash(fmt.Sprintf("git log --all --oneline --grep 'Hive-Plan: %s'", tkID)))},
					tkSegment(root, from, ans, team)...)
			default:
				steps = tkSegment(root, 1, "", team)
			}
			if k >= len(steps) {
				t.Errorf("plan %s: no scripted reply for step %d of prompt %q", tkID, k, clipS(prompt, 80))
				return fa.Text("PLAN FAILED\n\n**Plan:** " + tkID + "\n**Error:** the script ran out")
			}
			return steps[k](c)
		},
	}
}

// tkObserver answers each checkpoint as a human typing in the terminal.
type tkObserver struct {
	*e2etest.Recorder
	types []string
}

func (o *tkObserver) Command(c phase.Command, s phase.Snapshot) {
	o.Recorder.Command(c, s)
	if c.Type == phase.CmdCheckpointOpened {
		o.Lock()
		o.types = append(o.types, c.Checkpoint.Type)
		o.Unlock()
		o.Answers <- runner.Answer{Plan: c.Plan, Text: tkAnswers[c.Checkpoint.Type]}
	}
}

type tkUsage struct {
	requests, sessions, tokens int
}

func tkRun(t *testing.T, live bool) (tkUsage, bool) {
	t.Helper()
	mode := "standalone"
	if live {
		mode = "team"
	}
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{tkPhase + "/" + tkID + "-PLAN.md": tkPlan})
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{tkExecutor(t, root)}})
	home := t.TempDir()
	launcher := adapter.Claude{
		Path: bin,
		Live: live,
		Env:  e2etest.ClaudeEnv(srv.URL(), home),
	}
	ph := e2etest.LoadPhase(t, root, tkPhase)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	obs := &tkObserver{Recorder: e2etest.NewRecorder(nil)}
	mem := journaltest.NewMemory()
	start := time.Now()
	res, err := runner.Run(ctx, runner.Options{
		Repo:     repo,
		Phase:    ph,
		Journal:  mem,
		Observer: obs,
		Schedule: runner.Schedule{
			MaxConcurrent: 1,
		},
		Agents: runner.Agents{
			Launcher:  launcher,
			Team:      live,
			StopGrace: 5 * time.Second,
			Stall:     30 * time.Second,
		},
		Human: runner.Human{
			Interactive:  true,
			Answers:      obs.Answers,
			PollInterval: 20 * time.Millisecond,
		},
	})
	spent := time.Since(start)
	if err != nil {
		t.Fatalf("%s: runner.Run: %v\nobserver:\n%s", mode, err, obs)
	}
	ok := true
	fail := func(format string, args ...any) {
		ok = false
		t.Errorf(mode+": "+format, args...)
	}
	if !res.Snapshot.Finished || res.Snapshot.Outcome != phase.OutcomeComplete {
		fail("run finished=%v outcome=%q, want complete", res.Snapshot.Finished, res.Snapshot.Outcome)
	}
	if strings.Join(obs.types, ",") != "decision,human-verify,human-action" {
		fail("checkpoints opened %v, want decision, human-verify, human-action once each", obs.types)
	}
	if res.Snapshot.Resolved != 3 {
		fail("resolved checkpoints = %d, want 3", res.Snapshot.Resolved)
	}
	log := git(t, root, "log", "--format=%B")
	commits := e2etest.TaskCommits(t, root)
	for n := range tkTasks {
		trailer := fmt.Sprintf("Hive-Task: %s/%d", tkID, n+1)
		if c := commits[strings.TrimPrefix(trailer, "Hive-Task: ")]; c != 1 {
			fail("%d commits carry %q, want 1", c, trailer)
		}
	}
	if n := strings.Count(log, "Hive-Task: "); n != len(tkTasks) {
		fail("%d task commits, want %d", n, len(tkTasks))
	}
	for _, a := range []string{"checkpoint decision clerk", "checkpoint human-verify approved", "checkpoint human-action done"} {
		if !strings.Contains(log, a) {
			fail("no commit records %q:\n%s", a, log)
		}
	}
	if err := e2etest.Summary(root, tkPhase, tkID); err != nil {
		fail("%v", err)
	}
	if st := e2etest.Dirty(t, root); st != "" {
		fail("work tree not clean after the run:\n%s", st)
	}

	var u tkUsage
	sessions := map[string]bool{}
	for _, r := range srv.MainRequests() {
		if tkPlanOf(r.Conv) != tkID {
			continue
		}
		u.requests++
		u.tokens += r.InputTokens
		sessions[r.Header.Get("X-Claude-Code-Session-Id")] = true
		for _, b := range r.Conv.LastToolResults() {
			if b.IsError {
				t.Logf("%s: tool error: %s", mode, clipS(b.Text, 300))
			}
		}
	}
	u.sessions = len(sessions)
	want := 1
	if !live {
		want = 1 + len(tkCheckpoints())
	}
	if u.sessions != want {
		fail("%d Claude Code sessions, want %d", u.sessions, want)
	}
	if !ok {
		t.Logf("%s observer:\n%s", mode, obs)
	}
	t.Logf("%s: %d model requests, %d agent session(s), ~%d input tokens (server estimate, summed); run %v",
		mode, u.requests, u.sessions, u.tokens, spent.Round(time.Millisecond))
	return u, ok
}

// TestThreeCheckpointTokens runs the same three-checkpoint plan in team
// mode (one live session answered in place) and in standalone mode (a
// one-shot agent and a continuation per checkpoint), each in its own
// repository with its own fake server, and logs what each cost.
func TestThreeCheckpointTokens(t *testing.T) {
	t.Parallel()
	team, ok1 := tkRun(t, true)
	alone, ok2 := tkRun(t, false)
	if ok1 && ok2 && team.tokens > 0 && team.requests > 0 {
		t.Logf("standalone/team: requests %.2fx (%d/%d), sessions %d/%d, input tokens %.2fx (%d/%d)",
			float64(alone.requests)/float64(team.requests), alone.requests, team.requests,
			alone.sessions, team.sessions,
			float64(alone.tokens)/float64(team.tokens), alone.tokens, team.tokens)
	}
}
