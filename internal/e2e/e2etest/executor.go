package e2etest

import (
	"fmt"
	"os/exec"
	"path"
	"strings"
	"testing"
	"time"
)

// The shell commands of a fake executor that runs its steps through an
// agent CLI's shell tool (codex's exec_command, Claude Code's Bash): write
// a task's file and commit it with hive's trailers (CommitCmd), write the
// SUMMARY and commit it, then say the report.

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// WriteCmd writes body to file (relative to the agent's working directory).
func WriteCmd(file, body string) string {
	return fmt.Sprintf("mkdir -p %s && printf '%%s' %s > %s", ShellQuote(path.Dir(file)), ShellQuote(body), ShellQuote(file))
}

// TaskCmd does task n of plan id: writes its file and commits it.
func TaskCmd(id string, n int, tk Task) string {
	return WriteCmd(tk.File, tk.Body) + " && " + CommitCmd(id, n, fmt.Sprintf("feat(%s): %s", id, tk.Name), "", tk.File, false)
}

// SummaryPath is the SUMMARY of plan id in phaseDir.
func SummaryPath(phaseDir, id string) string { return phaseDir + "/" + id + "-SUMMARY.md" }

// SummaryCmd writes and commits the SUMMARY of plan id ("01-02") of the
// phase in phaseDir (".planning/phases/01-core").
func SummaryCmd(phaseDir, id string, tasks []Task) string {
	var created []string
	for _, tk := range tasks {
		created = append(created, tk.File)
	}
	phase, num := path.Base(phaseDir), id[strings.Index(id, "-")+1:]
	body := fmt.Sprintf(`---
phase: %s
plan: %s
subsystem: core
tags: [e2e]
key-files:
  created: [%s]
  modified: []
key-decisions: []
duration: 1min
completed: 2026-01-01
---

# Phase %s Plan %s: Summary

All %d task(s) done.

## Self-Check: PASSED
`, phase, num, strings.Join(created, ", "), phase[:strings.Index(phase+"-", "-")], num, len(tasks))
	file := SummaryPath(phaseDir, id)
	return WriteCmd(file, body) + " && " + CommitCmd(id, 0, fmt.Sprintf("docs(%s): complete plan", id), "", file, false)
}

// FinalText is the report of plan id once its tasks and SUMMARY are done.
func FinalText(phaseDir, id string, tasks []Task) string {
	var b strings.Builder
	for i, tk := range tasks {
		fmt.Fprintf(&b, "PROGRESS: Task %d/%d complete: feat(%s): %s\n", i+1, len(tasks), id, tk.Name)
	}
	fmt.Fprintf(&b, "\nPLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s\n", id, len(tasks), len(tasks), SummaryPath(phaseDir, id))
	return b.String()
}

// NextStep plays the executor of plan id from what the repository at root
// holds: the command of the first of its tasks with no commit on any
// branch, else the command of its SUMMARY, else (cmd "") its report. So a session
// cut off anywhere (by a limit, by a kill of hive) is taken up by the next
// one with no script of where it was cut. It runs in a fake server's
// handler, which may hold the server's lock: where git fails it reports
// the plan failed rather than stop the goroutine (t.Fatal would).
func NextStep(t testing.TB, root, phaseDir, id string, tasks []Task) (cmd, report string) {
	// The branches, not --all: --all reads each worktree's HEAD, which a
	// worktree hive removes meanwhile may leave naming nothing ("bad
	// object worktrees/01-04/HEAD"). A ref deleted while git reads it fails
	// the same way: try again.
	var out []byte
	var err error
	for try := 0; try < 5; try++ {
		git := exec.Command("git", "log", "--branches", "--format=%s%n%b")
		git.Dir = root
		if out, err = git.CombinedOutput(); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Errorf("plan %s: git log: %v\n%s", id, err, out)
		return "", fmt.Sprintf("PLAN FAILED\n\n**Plan:** %s\n**Error:** git log: %v", id, err)
	}
	log := string(out)
	done := map[string]bool{}
	for _, m := range taskRe.FindAllStringSubmatch(log, -1) {
		done[m[1]] = true
	}
	for i, tk := range tasks {
		if !done[fmt.Sprintf("%s/%d", id, i+1)] {
			return TaskCmd(id, i+1, tk), ""
		}
	}
	if !strings.Contains(log, "docs("+id+"): complete plan") {
		return SummaryCmd(phaseDir, id, tasks), ""
	}
	return "", FinalText(phaseDir, id, tasks)
}
