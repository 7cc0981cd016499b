package e2etest

import (
	"fmt"
	"path/filepath"
	"strings"

	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// HealthRoles is the fake model's rule that plays every role of hive run's
// Classic workflow on HealthObjective, as the real Claude Code CLI asks it:
// the architect writes the two plans of HealthPlan and commits them; each
// implementer writes its plan's files, commits each task and its SUMMARY,
// and says PLAN COMPLETE; the other roles report (RoleReport). root is the
// repository, for a conversation that names no folder; errorf is told of a
// turn the script has no reply for.
func HealthRoles(root string, errorf func(format string, args ...any)) fa.Rule {
	return fa.Rule{
		Name: "roles",
		Match: func(c *fa.Conversation) bool {
			first := FirstUserText(c)
			return RoleHeading.MatchString(first) || PlanToRun.MatchString(first)
		},
		Reply: func(c *fa.Conversation) fa.Reply {
			first := FirstUserText(c)
			_, k := c.LastPrompt()
			var steps []fa.Reply
			if m := PlanToRun.FindStringSubmatch(first); m != nil {
				dir, id := m[1], m[2]
				_, num, _ := strings.Cut(id, "-")
				tasks := HealthTasks[num]
				for n, tk := range tasks {
					steps = append(steps, fa.Write(InCwd(c, root, tk.File), tk.Body),
						fa.Bash(CommitCmd(id, n+1, fmt.Sprintf("feat(%s): %s", id, tk.File), "", tk.File, false)))
				}
				summary := HealthSummaryPath(dir, id)
				steps = append(steps,
					fa.Write(InCwd(c, root, summary), HealthSummary(dir, id)),
					fa.Bash(CommitCmd(id, 0, fmt.Sprintf("docs(%s): complete plan", id), "", summary, false)),
					fa.Text(PlanComplete(dir, id, len(tasks))))
			} else {
				role := RoleHeading.FindStringSubmatch(first)[1]
				if role == "architect" {
					dir := PlanFolder.FindStringSubmatch(first)[1]
					paths := HealthPlanPaths(dir)
					for i, rel := range paths {
						steps = append(steps, fa.Write(InCwd(c, root, rel), HealthPlan(filepath.Base(dir), fmt.Sprintf("%02d", i+1))))
					}
					steps = append(steps, fa.Bash(CommitPaths("docs: plans for the health check", paths...)))
				}
				steps = append(steps, fa.Text(RoleReport(role)))
			}
			if k >= len(steps) {
				errorf("no scripted reply %d for %q", k, clip(first, 60))
				return fa.Text("the script ran out")
			}
			return steps[k]
		},
	}
}

// FirstUserText is the text of the conversation's first user message: the
// prompt hive sent.
func FirstUserText(c *fa.Conversation) string {
	for _, m := range c.Messages {
		if m.Role == "user" {
			if s := m.Text(); s != "" {
				return s
			}
		}
	}
	return ""
}

// InCwd is the absolute path of rel in the folder Claude Code runs in (a
// plan's worktree, in worktree mode), else under root.
func InCwd(c *fa.Conversation, root, rel string) string {
	dir := c.Cwd()
	if dir == "" {
		dir = root
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// CommitCmd is the Bash command of a task commit. Executors may share the
// repository, so it commits only its own path (`git commit -- PATH`: a
// bare `git commit` would sweep up what another executor has just staged,
// and an --allow-empty commit names the plan file, which is unchanged) and
// retries while another git process holds .git/index.lock (Claude Code
// itself runs `git status` at start-up).
func CommitCmd(id string, n int, subject, body, path string, allowEmpty bool) string {
	cmd := "git add -- " + ShellQuote(path) + " && git commit "
	if allowEmpty {
		cmd = "git commit --allow-empty "
	}
	cmd += "-m " + ShellQuote(subject)
	if body != "" {
		cmd += " -m " + ShellQuote(body)
	}
	cmd += " -m " + ShellQuote("Hive-Plan: "+id)
	if n > 0 {
		cmd += " -m " + ShellQuote(fmt.Sprintf("Hive-Task: %s/%d", id, n))
	}
	return Retry(cmd + " -- " + ShellQuote(path))
}

// CommitPaths is the Bash command that commits paths alone with msg.
func CommitPaths(msg string, paths ...string) string {
	return Retry("git add -- " + strings.Join(paths, " ") + " && git commit -q -m " + fmt.Sprintf("%q", msg) + " -- " + strings.Join(paths, " "))
}

// Retry is cmd in a shell loop that tries it again, 25 times at most,
// while it fails (on a git lock another process holds).
func Retry(cmd string) string {
	return "n=0; until " + cmd + "; do n=$((n+1)); if [ $n -ge 25 ]; then exit 1; fi; sleep 0.2; done"
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
