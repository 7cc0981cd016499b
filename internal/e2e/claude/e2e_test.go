// Package claude_test runs hive's runner end to end with the real Claude
// Code CLI, whose model is played by the fake Anthropic server of
// internal/testsupport/fakeanthropic: a phase of three plans (two with a
// checkpoint) in team mode (live stream-json sessions) and in standalone
// mode (one-shot agents and continuation agents).
package claude_test

import (
	"cmp"
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
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/testsupport"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

const phaseDir = e2etest.Phase03Dir

type task = e2etest.Task

var (
	plans   = e2etest.Phase03Tasks
	answers = e2etest.Phase03Answers

	firstUserText = e2etest.FirstUserText
	inCwd         = e2etest.InCwd
	commitCmd     = e2etest.CommitCmd
	commitPaths   = e2etest.CommitPaths
)

// claudeBin finds the real Claude Code CLI (see testsupport.RequireCLI).
func claudeBin(t *testing.T) string { t.Helper(); return testsupport.RequireCLI(t, "claude") }

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return e2etest.Git(t, dir, args...)
}

// ---- the fake executor ----

var (
	planRe     = regexp.MustCompile(`- Plan: \.planning/phases/03-auth/(03-0\d)-PLAN\.md`)
	resumeRe   = regexp.MustCompile(`(?s)<resume_from>\s*Task (\d+):.*?</resume_from>`)
	userRespRe = regexp.MustCompile(`(?s)<user_response>\s*(.*?)\s*</user_response>`)
	commitRe   = regexp.MustCompile(`\[main ([0-9a-f]{7,})\] (.*)`)
)

func planOf(c *fa.Conversation) string {
	if m := planRe.FindStringSubmatch(firstUserText(c)); m != nil {
		return m[1]
	}
	return ""
}

// commitsSeen lists "hash subject" of the commits whose `git commit` output
// came back in the conversation's tool results.
func commitsSeen(c *fa.Conversation) []string {
	var out []string
	for _, m := range c.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				for _, sm := range commitRe.FindAllStringSubmatch(b.Text, -1) {
					out = append(out, sm[1]+" "+strings.TrimSpace(sm[2]))
				}
			}
		}
	}
	return out
}

type step func(c *fa.Conversation) fa.Reply

func static(r fa.Reply) step { return func(*fa.Conversation) fa.Reply { return r } }

// withText puts text blocks (PROGRESS lines) before the blocks of r.
func withText(texts []string, r fa.Reply) fa.Reply {
	var bs []fa.Block
	for _, s := range texts {
		bs = append(bs, fa.TextBlock(s))
	}
	return fa.Reply{Blocks: append(bs, r.Blocks...)}
}

// segment builds the replies of one turn of plan id's executor, starting at
// task from (1-based); answer resolves task from when it is a checkpoint.
func segment(root, id string, from int, answer string, team bool) []step {
	tasks := plans[id]
	total := len(tasks)
	var steps []step
	var pending []string // PROGRESS lines said with the next reply
	for n := from; n <= total; n++ {
		tk := tasks[n-1]
		subject := fmt.Sprintf("feat(%s): %s", id, tk.Name)
		progress := fmt.Sprintf("PROGRESS: Task %d/%d complete: %s", n, total, subject)
		if tk.Checkpoint != "" {
			if n == from && answer != "" {
				body := "checkpoint " + tk.Checkpoint + " " + answer
				if tk.Checkpoint == "decision" {
					body = "decision " + answer
				}
				steps = append(steps, static(withText(pending, fa.Bash(commitCmd(id, n, subject, body, fmt.Sprintf("%s/%s-PLAN.md", phaseDir, id), true)))))
				pending = []string{progress}
				continue
			}
			p := pending
			steps = append(steps, func(c *fa.Conversation) fa.Reply {
				return withText(p, fa.Text(checkpointText(id, n, team, c)))
			})
			return steps
		}
		p, file, content := pending, tk.File, fmt.Sprintf("// %s: %s\n", id, tk.Name)
		steps = append(steps,
			func(c *fa.Conversation) fa.Reply { return withText(p, fa.Write(inCwd(c, root, file), content)) },
			static(fa.Bash(commitCmd(id, n, subject, "", tk.File, false))),
		)
		pending = []string{progress}
	}
	summary := fmt.Sprintf("%s/%s-SUMMARY.md", phaseDir, id)
	last, summaryText := pending, fmt.Sprintf(
		"---\nphase: 03-auth\nplan: %s\nsubsystem: auth\ntags: [e2e]\nduration: 1min\ncompleted: 2026-01-01\n---\n# Plan %s Summary\n\nAll %d tasks done.\n\n## Self-Check: PASSED\n",
		id[3:], id, total)
	steps = append(steps,
		func(c *fa.Conversation) fa.Reply {
			return withText(last, fa.Write(inCwd(c, root, summary), summaryText))
		},
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

func checkpointText(id string, n int, team bool, c *fa.Conversation) string {
	tk := plans[id][n-1]
	details := "**What was built:** Responsive dashboard at http://localhost:3000/dashboard\n**How to verify:** Visit it at 375px, 768px and 1280px."
	awaiting := `Type "approved" or describe layout issues`
	if tk.Checkpoint == "decision" {
		details, awaiting = authDecision, authDecisionAwaiting
	}
	var rows []string
	for i, hs := range commitsSeen(c) {
		hash, _, _ := strings.Cut(hs, " ")
		rows = append(rows, fmt.Sprintf("| %d | %s | %s | %s |", i+1, plans[id][i].Name, hash, plans[id][i].File))
	}
	return checkpointMessage(id, tk.Checkpoint, tk.Name, n, len(plans[id]), team, rows, details, awaiting)
}

// The decision both scripted plans stop at.
const (
	authDecision = "**Decision:** Select authentication provider\n**Context:** Need user auth.\n\n**Options:**\n" +
		"1. **supabase** - Built-in with our DB\n2. **clerk** - Best DX\n3. **nextauth** - Free"
	authDecisionAwaiting = "Select: supabase, clerk, or nextauth"
)

// checkpointMessage is what a scripted executor says at checkpoint task n of
// total: the CHECKPOINT message, and in standalone mode also the CHECKPOINT
// REACHED block with the completed tasks' table rows (seed 002).
func checkpointMessage(id, kind, name string, n, total int, team bool, rows []string, details, awaiting string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CHECKPOINT: %s\nPLAN: %s\nPROGRESS: %d/%d\n\n", kind, id, n-1, total)
	if !team {
		fmt.Fprintf(&b, "## CHECKPOINT REACHED\n\n**Type:** %s\n**Plan:** %s\n**Progress:** %d/%d tasks complete\n\n", kind, id, n-1, total)
		b.WriteString("### Completed Tasks\n| # | Task | Commit | Files |\n|---|------|--------|-------|\n")
		for _, r := range rows {
			b.WriteString(r + "\n")
		}
		fmt.Fprintf(&b, "\n### Current Task\n- **Number:** %d\n- **Name:** %s\n- **Status:** Blocked on checkpoint\n\n", n, name)
	}
	fmt.Fprintf(&b, "### Checkpoint Details\n%s\n\n### Awaiting\n%s", details, awaiting)
	return b.String()
}

// executor is the one rule of the script: it plays the executor of the
// plan named in the first user message, turn by turn.
func executor(t *testing.T, root string) fa.Rule {
	return fa.Rule{
		Name:  "executor",
		Match: func(c *fa.Conversation) bool { return planOf(c) != "" },
		Reply: func(c *fa.Conversation) fa.Reply {
			id := planOf(c)
			first := firstUserText(c)
			team := strings.Contains(first, "executor-"+id)
			prompt, k := c.LastPrompt()
			var steps []step
			switch {
			case strings.HasPrefix(strings.TrimSpace(prompt), "CHECKPOINT_RESPONSE:"):
				ans := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(prompt), "CHECKPOINT_RESPONSE:"))
				from := 0
				for i, tk := range plans[id] {
					if tk.Checkpoint != "" {
						from = i + 1 // each test plan has one checkpoint
					}
				}
				steps = segment(root, id, from, ans, team)
			case resumeRe.MatchString(prompt):
				var from int
				fmt.Sscan(resumeRe.FindStringSubmatch(prompt)[1], &from)
				ans := ""
				if m := userRespRe.FindStringSubmatch(prompt); m != nil {
					ans = m[1]
				}
				// Check the earlier agent's commits first, as the prompt says.
				steps = append([]step{static(fa.Bash(fmt.Sprintf("git log --all --oneline --grep 'Hive-Plan: %s'", id)))},
					segment(root, id, from, ans, team)...)
			default:
				steps = segment(root, id, 1, "", team)
			}
			if k >= len(steps) {
				t.Errorf("plan %s: no scripted reply for step %d of prompt %q", id, k, clipS(prompt, 80))
				return fa.Text("PLAN FAILED\n\n**Plan:** " + id + "\n**Error:** the script ran out")
			}
			return steps[k](c)
		},
	}
}

func clipS(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ---- the runs ----

type outcome struct {
	root  string
	srv   *fa.Server
	mem   *journaltest.Memory
	res   runner.Result
	obs   *e2etest.Recorder
	spent time.Duration
}

// runPhase runs the phase of three plans with the real CLI; tune, when
// given, changes the fake model's script and the runner's options first.
func runPhase(t *testing.T, live, worktrees bool, tune ...func(root string, s *fa.Script, o *runner.Options)) outcome {
	t.Helper()
	bin := claudeBin(t)
	root := e2etest.Repo(t, e2etest.Phase03Auth)
	script := fa.Script{Rules: []fa.Rule{executor(t, root)}}
	var tuned runner.Options
	for _, f := range tune {
		f(root, &script, &tuned)
	}
	srv := fa.New(t, script)
	home := t.TempDir()
	launcher := adapter.Claude{Path: bin, Live: live, Env: e2etest.ClaudeEnv(srv.URL(), home)}
	if c, ok := tuned.Agents.Launcher.(adapter.Claude); ok {
		// A tune gives more of the CLI's environment this way.
		launcher.Env = append(launcher.Env, c.Env...)
	}
	ph := e2etest.LoadPhase(t, root, phaseDir)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	obs := e2etest.NewRecorder(answers)
	mem := journaltest.NewMemory()
	start := time.Now()
	res, err := runner.Run(ctx, runner.Options{
		Repo:     repo,
		Phase:    ph,
		Journal:  mem,
		Observer: obs,
		Now:      tuned.Now,
		After:    tuned.After,
		Schedule: runner.Schedule{
			MaxConcurrent: cmp.Or(tuned.Schedule.MaxConcurrent, 3),
		},
		Agents: runner.Agents{
			Launcher:  launcher,
			Team:      live,
			StopGrace: 5 * time.Second,
			Stall:     cmp.Or(tuned.Agents.Stall, 30*time.Second),
			Context:   tuned.Agents.Context,
		},
		Human: runner.Human{
			Interactive:  true,
			Answers:      obs.Answers,
			PollInterval: 20 * time.Millisecond,
		},
		Git: integration.Git{
			Worktrees:    worktrees,
			WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
		},
	})
	spent := time.Since(start)
	if err != nil {
		t.Fatalf("runner.Run: %v\nobserver:\n%s", err, obs)
	}
	t.Logf("run took %v", spent.Round(time.Millisecond))
	return outcome{root: root, srv: srv, mem: mem, res: res, obs: obs, spent: spent}
}

// check asserts what both modes share: every plan complete, one commit per
// task, both checkpoints raised once and answered; it returns the number of
// agent-started events per plan and their attempts.
func (o outcome) check(t *testing.T) (started map[string][]int) {
	t.Helper()
	if !o.res.Snapshot.Finished || o.res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Errorf("run finished=%v outcome=%q, want complete\nobserver:\n%s", o.res.Snapshot.Finished, o.res.Snapshot.Outcome, o.obs)
	}
	for _, p := range o.res.Snapshot.Plans {
		if p.State != phase.Complete {
			t.Errorf("plan %s is %s (%s), want complete", p.Spec.ID, p.State, p.Reason)
		}
	}
	if o.res.Snapshot.Resolved != 2 {
		t.Errorf("resolved checkpoints = %d, want 2", o.res.Snapshot.Resolved)
	}
	for id := range answers {
		if n := o.obs.Opened(id); n != 1 {
			t.Errorf("plan %s: %d checkpoint-opened, want 1", id, n)
		}
	}

	log := git(t, o.root, "log", "--format=%B")
	commits := e2etest.TaskCommits(t, o.root)
	for id, tasks := range plans {
		for n := range tasks {
			trailer := fmt.Sprintf("Hive-Task: %s/%d", id, n+1)
			if c := commits[strings.TrimPrefix(trailer, "Hive-Task: ")]; c != 1 {
				t.Errorf("%d commits carry %q, want 1", c, trailer)
			}
		}
		if err := e2etest.Summary(o.root, phaseDir, id); err != nil {
			t.Errorf("plan %s: %v", id, err)
		}
	}
	if !strings.Contains(log, "decision clerk") {
		t.Errorf("the decision commit does not record the answer clerk:\n%s", log)
	}
	if n := strings.Count(log, "Hive-Task: "); n != 6 {
		t.Errorf("%d task commits, want 6", n)
	}
	if st := e2etest.Dirty(t, o.root); st != "" {
		t.Errorf("work tree not clean after the run:\n%s", st)
	}

	started = e2etest.AgentStarts(t, o.mem, o.res.Run.ID)
	if t.Failed() {
		for _, r := range o.srv.MainRequests() {
			for _, b := range r.Conv.LastToolResults() {
				if b.IsError {
					t.Logf("plan %s: tool error: %s", planOf(r.Conv), clipS(b.Text, 300))
				}
			}
		}
	}
	for _, u := range o.srv.UnknownPaths() {
		t.Logf("unknown path requested: %s", u)
	}
	return started
}

type usage struct {
	requests, tokens int // tokens: the server's input estimate summed over requests
	agents           int // distinct Claude Code sessions
}

func (o outcome) usage() map[string]*usage {
	out := map[string]*usage{}
	sessions := map[string]map[string]bool{}
	for _, r := range o.srv.MainRequests() {
		id := planOf(r.Conv)
		u := out[id]
		if u == nil {
			u = &usage{}
			out[id] = u
			sessions[id] = map[string]bool{}
		}
		u.requests++
		u.tokens += r.InputTokens
		sessions[id][r.Header.Get("X-Claude-Code-Session-Id")] = true
	}
	for id, s := range sessions {
		out[id].agents = len(s)
	}
	return out
}

func (o outcome) logUsage(t *testing.T, mode string) {
	t.Helper()
	us := o.usage()
	total := usage{}
	for _, id := range []string{"03-01", "03-02", "03-03"} {
		u := us[id]
		if u == nil {
			t.Errorf("%s: no requests seen for plan %s", mode, id)
			continue
		}
		t.Logf("%s: plan %s: %d agent session(s), %d requests, ~%d input tokens (server estimate, summed)", mode, id, u.agents, u.requests, u.tokens)
		total.requests += u.requests
		total.tokens += u.tokens
	}
	t.Logf("%s: phase total: %d requests, ~%d input tokens; run %v", mode, total.requests, total.tokens, o.spent.Round(time.Millisecond))
	var billed fa.Usage
	for _, r := range o.srv.MainRequests() {
		billed = billed.Add(r.Usage)
	}
	t.Logf("%s: billed by the server: %+v", mode, billed)
	for _, p := range o.res.Snapshot.Plans {
		t.Logf("%s: plan %s: engine usage in=%d out=%d cache read=%d write=%d cost=$%.4f cli=$%.4f", mode, p.Spec.ID, p.InputTokens, p.OutputTokens, p.CacheReadTokens, p.CacheWriteTokens, p.CostUSD, p.CLICostUSD)
	}
}

// Team mode: one live Claude Code session per plan; both checkpoints are
// answered in the same process (no continuation agent).
func TestTeamModeRealClaude(t *testing.T) {
	t.Parallel()
	o := runPhase(t, true, false)
	started := o.check(t)
	for _, id := range []string{"03-01", "03-02", "03-03"} {
		if got := started[id]; len(got) != 1 || got[0] != 1 {
			t.Errorf("plan %s: agent-started attempts %v, want exactly [1] (one process, no attempt 2)", id, got)
		}
	}
	for id, u := range o.usage() {
		if u.agents != 1 {
			t.Errorf("plan %s: %d Claude Code sessions, want 1", id, u.agents)
		}
	}
	if t.Failed() {
		t.Logf("observer:\n%s", o.obs)
	}
	o.logUsage(t, "team")
}

// Standalone mode: each checkpoint ends the one-shot agent; the answer goes
// to a continuation agent whose prompt carries <resume_from> and
// <user_response>.
func TestStandaloneModeRealClaude(t *testing.T) {
	t.Parallel()
	o := runPhase(t, false, false)
	started := o.check(t)
	want := map[string][]int{"03-01": {1, 2}, "03-02": {1, 2}, "03-03": {1}}
	for id, w := range want {
		if fmt.Sprint(started[id]) != fmt.Sprint(w) {
			t.Errorf("plan %s: agent-started attempts %v, want %v", id, started[id], w)
		}
	}
	conts := 0
	for _, r := range o.srv.MainRequests() {
		first := firstUserText(r.Conv)
		if strings.Contains(first, "<resume_from>") && strings.Contains(first, "<user_response>") {
			conts++
			id := planOf(r.Conv)
			if m := userRespRe.FindStringSubmatch(first); m == nil || m[1] != answers[id] {
				t.Errorf("plan %s: continuation <user_response> = %v, want %q", id, m, answers[id])
			}
		}
	}
	if conts == 0 {
		t.Errorf("no request carried a continuation prompt with <resume_from> and <user_response>")
	}
	if t.Failed() {
		t.Logf("observer:\n%s", o.obs)
	}
	o.logUsage(t, "standalone")
	var seq []string
	for _, l := range strings.Split(o.obs.String(), "\n") {
		if strings.Contains(l, " 03-01 ") && (strings.Contains(l, "event ") || strings.Contains(l, "start-agent")) {
			seq = append(seq, strings.TrimSpace(l))
		}
	}
	t.Logf("standalone: plan 03-01 events: %s", strings.Join(seq, "; "))
}

// Worktree mode with the real CLI: each live session works in its plan's
// worktree (Claude Code reports it as its working directory), and hive
// merges the three plans and fast-forwards the user's branch.
func TestWorktreesRealClaude(t *testing.T) {
	t.Parallel()
	o := runPhase(t, true, true)
	o.check(t)
	merges := strings.Fields(git(t, o.root, "log", "--merges", "--format=%h"))
	if len(merges) != 3 {
		t.Errorf("%d merge commits on the user's branch, want 3", len(merges))
	}
	cwds := map[string]bool{}
	for _, r := range o.srv.MainRequests() {
		if d := r.Conv.Cwd(); d != "" {
			cwds[d] = true
		}
	}
	if len(cwds) != 3 || cwds[o.root] {
		t.Errorf("Claude Code ran in %v, want three worktrees, not the repository", cwds)
	}
	if wts := strings.TrimSpace(git(t, o.root, "worktree", "list")); strings.Contains(wts, "\n") {
		t.Errorf("worktrees left:\n%s", wts)
	}
	if t.Failed() {
		t.Logf("observer:\n%s", o.obs)
	}
}
