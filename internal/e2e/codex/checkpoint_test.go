package codex_test

// TestCheckpointPhaseRealCodex runs the 03-auth phase of the claude e2e test
// (three plans, a checkpoint:decision in 03-01 and a checkpoint:human-verify
// in 03-02) with the real codex CLI in standalone mode: at a checkpoint the
// one-shot codex agent ends its turn with the CHECKPOINT REACHED block and
// exits, the answer arrives through Options.Answers, and hive starts a
// continuation agent whose prompt carries <resume_from> and <user_response>.

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

const cpPhaseDir = e2etest.Phase03Dir

var (
	cpPlans   = e2etest.Phase03Tasks
	cpAnswers = e2etest.Phase03Answers
)

var (
	cpPlanRe     = regexp.MustCompile(`- Plan: \.planning/phases/03-auth/(03-0\d)-PLAN\.md`)
	cpResumeRe   = regexp.MustCompile(`(?s)<resume_from>\s*Task (\d+):.*?</resume_from>`)
	cpUserRespRe = regexp.MustCompile(`(?s)<user_response>\s*(.*?)\s*</user_response>`)
	cpCommitRe   = regexp.MustCompile(`\[main ([0-9a-f]{7,})\] (.*)`)
)

// cpCommitsSeen lists "hash subject" of the commits whose `git commit`
// output came back in the request's tool outputs.
func cpCommitsSeen(r fakeopenai.Request) []string {
	var out []string
	for _, it := range r.ItemsOfType("function_call_output") {
		s, _ := it["output"].(string)
		for _, m := range cpCommitRe.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1]+" "+strings.TrimSpace(m[2]))
		}
	}
	return out
}

type cpStep func(fakeopenai.Request) fakeopenai.Reply

func cpStatic(r fakeopenai.Reply) cpStep {
	return func(fakeopenai.Request) fakeopenai.Reply { return r }
}

// cpSegment builds the model steps of one codex agent of plan id, starting at
// task from (1-based); answer resolves task from when it is a checkpoint.
// Each step is one exec_command; the last is the final text (PLAN COMPLETE
// or the CHECKPOINT REACHED block), after which codex exits.
func cpSegment(id string, from int, answer string) []cpStep {
	tasks := cpPlans[id]
	total := len(tasks)
	var steps []cpStep
	var progress []string
	for n := from; n <= total; n++ {
		tk := tasks[n-1]
		subject := fmt.Sprintf("feat(%s): %s", id, tk.Name)
		if tk.Checkpoint != "" {
			if n == from && answer != "" {
				body := "checkpoint " + tk.Checkpoint + " " + answer
				if tk.Checkpoint == "decision" {
					body = "decision " + answer
				}
				steps = append(steps, cpStatic(fakeopenai.Run(e2etest.CommitCmd(id, n, subject, body, fmt.Sprintf("%s/%s-PLAN.md", cpPhaseDir, id), true))))
				progress = append(progress, fmt.Sprintf("PROGRESS: Task %d/%d complete: %s", n, total, subject))
				continue
			}
			p := progress
			steps = append(steps, func(r fakeopenai.Request) fakeopenai.Reply {
				return fakeopenai.Say(strings.Join(append(append([]string(nil), p...), cpCheckpointText(id, n, r)), "\n\n"))
			})
			return steps
		}
		steps = append(steps, cpStatic(fakeopenai.Run(e2etest.WriteCmd(tk.File, fmt.Sprintf("// %s: %s\n", id, tk.Name))+" && "+
			e2etest.CommitCmd(id, n, subject, "", tk.File, false))))
		progress = append(progress, fmt.Sprintf("PROGRESS: Task %d/%d complete: %s", n, total, subject))
	}
	summary := fmt.Sprintf("%s/%s-SUMMARY.md", cpPhaseDir, id)
	body := fmt.Sprintf("---\nphase: 03-auth\nplan: %s\nsubsystem: auth\ntags: [e2e]\nkey-files:\n  created: []\n  modified: []\nkey-decisions: []\nduration: 1min\ncompleted: 2026-01-01\n---\n# Plan %s Summary\n\nAll %d tasks done.\n\n## Self-Check: PASSED\n",
		id[3:], id, total)
	steps = append(steps,
		cpStatic(fakeopenai.Run(e2etest.WriteCmd(summary, body)+" && "+
			e2etest.CommitCmd(id, 0, fmt.Sprintf("docs(%s): complete plan", id), "", summary, false)+
			fmt.Sprintf(" && git log --format='- %%h %%s' --grep='Hive-Plan: %s'", id))),
		func(r fakeopenai.Request) fakeopenai.Reply {
			var list []string
			for _, l := range strings.Split(r.LastToolOutput(), "\n") {
				if strings.HasPrefix(l, "- ") {
					list = append(list, l)
				}
			}
			return fakeopenai.Say(fmt.Sprintf("%s\n\nPLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s\n\n**Commits:**\n%s",
				strings.Join(progress, "\n"), id, total, total, summary, strings.Join(list, "\n")))
		},
	)
	return steps
}

func cpCheckpointText(id string, n int, r fakeopenai.Request) string {
	tk := cpPlans[id][n-1]
	total := len(cpPlans[id])
	var details, awaiting string
	switch tk.Checkpoint {
	case "decision":
		details = "**Decision:** Select authentication provider\n**Context:** Need user auth.\n\n**Options:**\n" +
			"1. **supabase** - Built-in with our DB\n2. **clerk** - Best DX\n3. **nextauth** - Free"
		awaiting = "Select: supabase, clerk, or nextauth"
	default:
		details = "**What was built:** Responsive dashboard at http://localhost:3000/dashboard\n**How to verify:** Visit it at 375px, 768px and 1280px."
		awaiting = `Type "approved" or describe layout issues`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## CHECKPOINT REACHED\n\n**Type:** %s\n**Plan:** %s\n**Progress:** %d/%d tasks complete\n\n", tk.Checkpoint, id, n-1, total)
	b.WriteString("### Completed Tasks\n| # | Task | Commit | Files |\n|---|------|--------|-------|\n")
	for i, hs := range cpCommitsSeen(r) {
		hash, _, _ := strings.Cut(hs, " ")
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", i+1, cpPlans[id][i].Name, hash, cpPlans[id][i].File)
	}
	fmt.Fprintf(&b, "\n### Current Task\n- **Number:** %d\n- **Name:** %s\n- **Status:** Blocked on checkpoint\n\n", n, tk.Name)
	fmt.Fprintf(&b, "### Checkpoint Details\n%s\n\n### Awaiting\n%s", details, awaiting)
	return b.String()
}

// cpExecutor is the one rule of the script: it plays the executor of the
// plan named in the prompt; the step is the number of tool outputs so far.
func cpExecutor(t *testing.T) fakeopenai.Rule {
	return fakeopenai.Rule{
		Name:            "executor",
		TurnToolOutputs: fakeopenai.Any,
		Match:           func(r fakeopenai.Request) bool { return cpPlanRe.MatchString(r.LastUserText) },
		Reply: fakeopenai.Reply{Func: func(r fakeopenai.Request) fakeopenai.Reply {
			prompt := r.LastUserText
			id := cpPlanRe.FindStringSubmatch(prompt)[1]
			var steps []cpStep
			if m := cpResumeRe.FindStringSubmatch(prompt); m != nil && strings.Contains(prompt, "<user_response>") {
				var from int
				fmt.Sscan(m[1], &from)
				ans := ""
				if um := cpUserRespRe.FindStringSubmatch(prompt); um != nil {
					ans = um[1]
				}
				// Check the earlier agent's commits first, as the prompt says.
				steps = append([]cpStep{cpStatic(fakeopenai.Run(fmt.Sprintf("git log --all --oneline --grep 'Hive-Plan: %s'", id)))},
					cpSegment(id, from, ans)...)
			} else {
				steps = cpSegment(id, 1, "")
			}
			k := r.TurnToolOutputs
			if k >= len(steps) {
				t.Errorf("plan %s: no scripted reply for step %d", id, k)
				return fakeopenai.Say("PLAN FAILED\n\n**Plan:** " + id + "\n**Error:** the script ran out")
			}
			return steps[k](r)
		}},
	}
}

func TestCheckpointPhaseRealCodex(t *testing.T) {
	t.Parallel()
	bin := fakeopenai.CodexBinary(t) // fails when missing and CI is set; skips otherwise
	root := e2etest.Repo(t, e2etest.Phase03Auth)
	ph := e2etest.LoadPhase(t, root, cpPhaseDir)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)

	srv := fakeopenai.New(t, fakeopenai.Script{cpExecutor(t)})
	home := t.TempDir()
	launcher := adapter.Codex{
		Path:  bin,
		Model: fakeopenai.Model,
		Args:  srv.CodexConfig(),
		Env:   []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home},
	}
	obs := e2etest.NewRecorder(cpAnswers)
	mem := journaltest.NewMemory()
	start := time.Now()
	res, err := runner.Run(ctx, runner.Options{
		Repo:     repo,
		Phase:    ph,
		Journal:  mem,
		Observer: obs,
		Schedule: runner.Schedule{
			MaxConcurrent: 3,
		},
		Agents: runner.Agents{
			Launcher:  launcher,
			Team:      false,
			Stall:     60 * time.Second,
			StopGrace: 2 * time.Second,
		},
		Human: runner.Human{
			Interactive:  true,
			Answers:      obs.Answers,
			PollInterval: 20 * time.Millisecond,
		},
	})
	elapsed := time.Since(start)
	reqs := srv.ResponsesRequests()
	t.Logf("run took %v; %d model requests", elapsed.Round(time.Millisecond), len(reqs))
	if err != nil {
		t.Fatalf("runner.Run: %v\nobserved:\n%s", err, obs)
	}
	defer func() {
		if t.Failed() {
			t.Logf("observed:\n%s", obs)
		}
	}()

	snap := res.Snapshot
	if !snap.Finished || snap.Outcome != phase.OutcomeComplete {
		t.Errorf("outcome %q (finished %v), want complete", snap.Outcome, snap.Finished)
	}
	for _, p := range snap.Plans {
		t.Logf("plan %s: %s, tasks %d, tokens in %d out %d", p.Spec.ID, p.State, p.TasksDone, p.InputTokens, p.OutputTokens)
		if p.State != phase.Complete {
			t.Errorf("plan %s is %s (%s), want complete", p.Spec.ID, p.State, p.Reason)
		}
		if p.InputTokens <= 0 {
			t.Errorf("plan %s: InputTokens = %d, want > 0 (codex usage did not reach the engine)", p.Spec.ID, p.InputTokens)
		}
	}
	if snap.Resolved != 2 {
		t.Errorf("resolved checkpoints = %d, want 2", snap.Resolved)
	}
	for id := range cpAnswers {
		if n := obs.Opened(id); n != 1 {
			t.Errorf("plan %s: %d checkpoint-opened, want 1", id, n)
		}
	}

	// One commit per task, a SUMMARY per plan, the decision's answer recorded.
	log := git(t, root, "log", "--format=%B")
	commits := e2etest.TaskCommits(t, root)
	for id, tasks := range cpPlans {
		for n := range tasks {
			trailer := fmt.Sprintf("Hive-Task: %s/%d", id, n+1)
			if c := commits[strings.TrimPrefix(trailer, "Hive-Task: ")]; c != 1 {
				t.Errorf("%d commits carry %q, want 1", c, trailer)
			}
		}
		if err := e2etest.Summary(root, cpPhaseDir, id); err != nil {
			t.Errorf("plan %s: %v", id, err)
		}
	}
	if n := strings.Count(log, "Hive-Task: "); n != 6 {
		t.Errorf("%d task commits, want 6", n)
	}
	decision := git(t, root, "log", "--format=%B", "--grep", "Hive-Task: 03-01/2")
	if !strings.Contains(decision, "clerk") {
		t.Errorf("the decision commit does not name clerk:\n%s", decision)
	}
	if st := e2etest.Dirty(t, root); st != "" {
		t.Errorf("work tree not clean after the run:\n%s", st)
	}

	// Two agents for each checkpointed plan, one for 03-03.
	started := e2etest.AgentStarts(t, mem, res.Run.ID)
	want := map[string][]int{"03-01": {1, 2}, "03-02": {1, 2}, "03-03": {1}}
	for id, w := range want {
		if fmt.Sprint(started[id]) != fmt.Sprint(w) {
			t.Errorf("plan %s: agent-started attempts %v, want %v", id, started[id], w)
		}
	}

	// The continuation prompts carried the answers.
	conts := map[string]bool{}
	for _, r := range reqs {
		p := r.LastUserText
		if !strings.Contains(p, "<resume_from>") || !strings.Contains(p, "<user_response>") {
			continue
		}
		id := cpPlanRe.FindStringSubmatch(p)[1]
		conts[id] = true
		if m := cpUserRespRe.FindStringSubmatch(p); m == nil || m[1] != cpAnswers[id] {
			t.Errorf("plan %s: continuation <user_response> = %v, want %q", id, m, cpAnswers[id])
		}
	}
	if !conts["03-01"] || !conts["03-02"] || conts["03-03"] {
		t.Errorf("continuation prompts seen for %v, want 03-01 and 03-02", conts)
	}
	// 03-01: 2 then 5 (git log, 2 tasks, SUMMARY, report); 03-02: 2 then 4; 03-03: 3.
	if len(reqs) != 2+5+2+4+3 {
		t.Errorf("%d model requests, want 16", len(reqs))
	}
}
