package devbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/bench/runnerbench"
	"github.com/hivectl/hive/internal/phase"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// tokenRows runs one plan with three checkpoints through the real claude
// CLI against hive's fake model server, in team mode (one live session
// answered in place) and in standalone mode (a one-shot agent and a
// continuation per checkpoint), and sums the input tokens of the model
// requests the server received. The fake model reads the plan and runs a
// git command per task, so the history a live session carries holds tool
// traffic as a real one does.
//
// Then the prompt cache's share of a phase (cacheRows) and hive's own
// share of a hive run's wall time (hiveShareRow).
func tokenRows(ctx context.Context, o report.Options) []report.Row {
	bin, err := findClaude(o.Tools)
	if err != nil {
		return []report.Row{{Group: "tokens", Name: "checkpoint token cost, team vs standalone", Figure: "-",
			Status: report.Skipped, Note: NoClaude}}
	}
	team, err := tokenRun(ctx, o, bin, true)
	if err != nil {
		return []report.Row{report.ErrorRow("tokens", "team mode input tokens", err)}
	}
	alone, err := tokenRun(ctx, o, bin, false)
	if err != nil {
		return []report.Row{report.ErrorRow("tokens", "standalone input tokens", err)}
	}
	r := float64(alone.tokens) / float64(max(team.tokens, 1))
	return append([]report.Row{
		{Group: "tokens", Name: "team: input tokens, 3-checkpoint plan", Value: float64(team.tokens), Unit: "tokens",
			Figure: fmt.Sprintf("%d tokens, %d requests, %d session", team.tokens, team.requests, team.sessions), Status: report.Info,
			Note: "real claude CLI, fake model server's estimate"},
		{Group: "tokens", Name: "standalone: input tokens, 3-checkpoint plan", Value: float64(alone.tokens), Unit: "tokens",
			Figure: fmt.Sprintf("%d tokens, %d requests, %d sessions", alone.tokens, alone.requests, alone.sessions), Status: report.Info},
		{Group: "tokens", Name: "standalone / team input tokens", Value: r, Unit: "ratio",
			Figure: fmt.Sprintf("%.2f×", r), Target: "> 1× (team cheaper)", Status: report.Judge(r > 1)},
	}, append(cacheRows(ctx, bin), hiveShareRow(ctx, bin))...)
}

// findClaude finds the claude binary in tools, then PATH.
func findClaude(tools string) (string, error) {
	if tools != "" {
		p := filepath.Join(tools, "claude")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath("claude")
}

type tokenUsage struct{ requests, sessions, tokens int }

// tokenTasks: task 1 and 5 are auto, 2–4 human-verify checkpoints.
const tokenTasks = 5

var tokenCheckpoints = []int{2, 3, 4}

func tokenRun(ctx context.Context, o report.Options, bin string, team bool) (tokenUsage, error) {
	dir, err := os.MkdirTemp("", "hive-bench-tokens-")
	if err != nil {
		return tokenUsage{}, err
	}
	defer os.RemoveAll(dir)
	d := project.DAG{Plans: []phase.PlanSpec{{ID: "01-0001", Tasks: tokenTasks}}}
	proj, err := newTokenProject(ctx, filepath.Join(dir, "repo"), d)
	if err != nil {
		return tokenUsage{}, err
	}
	srv, err := runRealClaude(ctx, bin, dir, proj, tokenExecutor(proj.Phase.Plans[0].Path), 1, team)
	if err != nil {
		return tokenUsage{}, err
	}
	var u tokenUsage
	sessions := map[string]bool{}
	for _, r := range srv.MainRequests() {
		u.requests++
		u.tokens += r.InputTokens
		sessions[r.Header.Get("X-Claude-Code-Session-Id")] = true
	}
	u.sessions = len(sessions)
	return u, nil
}

// runRealClaude runs proj's phase with the real claude CLI (live sessions
// when team) against a fake model server whose one rule plays the
// executors, and returns the server (closed, its request log kept).
func runRealClaude(ctx context.Context, bin, dir string, proj *project.Project, rule fa.Rule, concurrent int, team bool) (*fa.Server, error) {
	var surprises []string
	srv := fa.Start(fa.Script{Rules: []fa.Rule{rule}}, func(format string, args ...any) {
		surprises = append(surprises, fmt.Sprintf(format, args...))
	})
	defer srv.Close()
	home := filepath.Join(dir, "home")
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	_, err := runnerbench.RunPhase(ctx, proj, adapter.Claude{Path: bin, Live: team, Env: []string{
		"ANTHROPIC_BASE_URL=" + srv.URL(), "ANTHROPIC_API_KEY=bench", "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"HOME=" + home, "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_MAX_RETRIES=0",
	}}, concurrent, team)
	if err != nil {
		return nil, fmt.Errorf("%w %s", err, strings.Join(surprises, "; "))
	}
	return srv, nil
}

// newTokenProject is newProject with the plan's checkpoints at tasks 2–4.
func newTokenProject(ctx context.Context, dir string, d project.DAG) (*project.Project, error) {
	return project.NewProjectWith(ctx, dir, d, func(id string) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nphase: 01-bench\nplan: 0001\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [src/%s.txt]\nautonomous: false\n---\n\n", id)
		b.WriteString("<objective>\nAuthentication with three human checks.\n</objective>\n\n<tasks>\n")
		for n := 1; n <= tokenTasks; n++ {
			if isTokenCheckpoint(n) {
				fmt.Fprintf(&b, "<task type=\"checkpoint:human-verify\">\n  <name>Task %d: Check step %d</name>\n  <what-built>Step %d of the sign-in flow</what-built>\n  <how-to-verify>Sign in with a test account and look at step %d.</how-to-verify>\n  <resume-signal>Type \"approved\" or describe issues</resume-signal>\n</task>\n", n, n, n, n)
				continue
			}
			fmt.Fprintf(&b, "<task type=\"auto\">\n  <name>Task %d: Build step %d</name>\n  <files>src/%s.txt</files>\n  <action>Write step %d of the sign-in flow and commit it.</action>\n  <done>Step %d works.</done>\n</task>\n", n, n, id, n, n)
		}
		b.WriteString("</tasks>\n")
		return []byte(b.String())
	})
}

func isTokenCheckpoint(n int) bool {
	for _, c := range tokenCheckpoints {
		if c == n {
			return true
		}
	}
	return false
}

var resumeTaskRe = regexp.MustCompile(`(?s)<resume_from>\s*Task (\d+)`)

// tokenExecutor plays the model: from the task the session starts at (1, the
// task after an answered checkpoint) it reads the plan once per session, runs
// one git command per auto task, and ends the turn at the next checkpoint or
// with PLAN COMPLETE.
func tokenExecutor(planPath string) fa.Rule {
	return fa.Rule{
		Name: "bench-executor",
		Reply: func(c *fa.Conversation) fa.Reply {
			first := ""
			responses := 0
			for _, m := range c.Messages {
				if m.Role != "user" {
					continue
				}
				t := m.Text()
				if first == "" && t != "" {
					first = t
				}
				if strings.HasPrefix(strings.TrimSpace(t), "CHECKPOINT_RESPONSE:") { // the team prompt itself mentions the word
					responses++
				}
			}
			team := strings.Contains(first, "<team_protocol>")
			from, fresh := 1, true
			if m := resumeTaskRe.FindStringSubmatch(first); m != nil {
				fmt.Sscan(m[1], &from)
				from++ // the answer resolves the checkpoint task
			}
			if responses > 0 {
				from, fresh = tokenCheckpoints[min(responses, len(tokenCheckpoints))-1]+1, false
			}
			steps := tokenSegment(planPath, from, fresh, team)
			_, k := c.LastPrompt()
			return steps[min(k, len(steps)-1)]
		},
	}
}

// tokenSegment is the replies of one turn starting at task from.
func tokenSegment(planPath string, from int, fresh, team bool) []fa.Reply {
	var steps []fa.Reply
	if fresh {
		steps = append(steps, fa.Bash("cat "+planPath))
	}
	var progress []string
	n := from
	for ; n <= tokenTasks && !isTokenCheckpoint(n); n++ {
		steps = append(steps, fa.Bash("git log --oneline -3"))
		progress = append(progress, fmt.Sprintf("PROGRESS: Task %d/%d complete: feat(01-0001): step %d", n, tokenTasks, n))
	}
	id := "01-0001"
	var text string
	if n > tokenTasks {
		text = fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s\n\n**Commits:**\n- 0000000 docs(%s): complete plan",
			id, tokenTasks, tokenTasks, strings.TrimSuffix(planPath, "-PLAN.md")+"-SUMMARY.md", id)
	} else {
		text = fmt.Sprintf("CHECKPOINT: human-verify\nPLAN: %s\nPROGRESS: %d/%d\n\n", id, n-1, tokenTasks)
		if !team {
			text += fmt.Sprintf("## CHECKPOINT REACHED\n\n**Type:** human-verify\n**Plan:** %s\n**Progress:** %d/%d tasks complete\n\n", id, n-1, tokenTasks)
		}
		text += fmt.Sprintf("### Checkpoint Details\nStep %d of the sign-in flow is built.\n\n### Awaiting\nType \"approved\" or describe issues", n)
	}
	if len(progress) > 0 {
		text = strings.Join(progress, "\n") + "\n\n" + text
	}
	return append(steps, fa.Text(text))
}
