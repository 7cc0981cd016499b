package project

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/sim/benchagent"
)

// benchPhaseDir is the phase folder of a generated project.
const benchPhaseDir = ".planning/phases/01-bench"

// Project is a generated repository whose phase holds the plans of a DAG.
type Project struct {
	Root  string
	Repo  *gitx.Repo
	Phase *plan.Phase
	// Base is the commit before the prepared results: the runs start there,
	// so the prepared commits count as their agents' work.
	Base string
}

// NewProject writes d's plans into a new git repository under dir, each
// plan owning one file so that plans can run side by side in the shared
// tree. With checkpoint, every plan's second task is a human-verify
// checkpoint.
//
// The agents of a bench run do no work, so the project is prepared as if
// they had: every plan's SUMMARY and a commit naming the plan already exist
// when the run starts. The phase is read before that, as a run that has not
// started yet would see it, so no plan counts as done; the runner's
// spot-checks then find the SUMMARY and the commit on disk as usual, the
// run starting from the commit before them (Project.Base).
func NewProject(ctx context.Context, dir string, d DAG, checkpoint bool) (*Project, error) {
	deps := make(map[string]phase.PlanSpec, len(d.Plans))
	for _, p := range d.Plans {
		deps[p.ID] = p
	}
	return NewProjectWith(ctx, dir, d, func(id string) []byte {
		return planFile(id, deps[id].DependsOn, deps[id].Tasks, checkpoint)
	})
}

// TempProject is NewProject in a new temporary folder (named after
// prefix), and what removes it.
func TempProject(ctx context.Context, prefix string, d DAG) (*Project, func(), error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	proj, err := NewProject(ctx, dir, d, false)
	if err != nil {
		remove()
		return nil, nil, err
	}
	return proj, remove, nil
}

// NewProjectWith is NewProject with the plan files written by planText.
func NewProjectWith(ctx context.Context, dir string, d DAG, planText func(id string) []byte) (*Project, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	phaseDir := filepath.Join(root, filepath.FromSlash(benchPhaseDir))
	if err := os.MkdirAll(phaseDir, 0o755); err != nil {
		return nil, fmt.Errorf("bench project: %w", err)
	}
	for _, p := range d.Plans {
		if err := os.WriteFile(filepath.Join(phaseDir, p.ID+"-PLAN.md"), planText(p.ID), 0o644); err != nil {
			return nil, fmt.Errorf("bench project: %w", err)
		}
	}
	if err := CommitAll(ctx, root, "bench: plans"); err != nil {
		return nil, err
	}
	ph, err := load.Phase(root, benchPhaseDir)
	if err != nil {
		return nil, err
	}
	if len(ph.Plans) != len(d.Plans) || plan.HasErrors(ph.Diagnostics) {
		return nil, fmt.Errorf("bench project: read %d of %d plans back: %v", len(ph.Plans), len(d.Plans), ph.Diagnostics)
	}
	repo := &gitx.Repo{Root: root}
	base, err := repo.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("bench project: %w", err)
	}
	if err := prepareResults(ctx, root, d); err != nil {
		return nil, err
	}
	return &Project{Root: root, Repo: repo, Phase: ph, Base: base}, nil
}

// planFile is a small GSD plan: an auto task on the plan's own file, then
// either a human-verify checkpoint or a second auto task.
func planFile(id string, deps []string, tasks int, checkpoint bool) []byte {
	quoted := make([]string, len(deps))
	for i, d := range deps {
		quoted[i] = `"` + d + `"`
	}
	_, num, _ := strings.Cut(id, "-")
	var b strings.Builder
	fmt.Fprintf(&b, "---\nphase: 01-bench\nplan: %s\ntype: execute\nwave: 1\ndepends_on: [%s]\nfiles_modified: [src/%s.txt]\nautonomous: %t\n---\n\n",
		num, strings.Join(quoted, ", "), id, !checkpoint)
	fmt.Fprintf(&b, "<objective>\nBench plan %s.\n</objective>\n\n<tasks>\n", id)
	fmt.Fprintf(&b, "<task type=\"auto\">\n  <name>Task 1: Write src/%s.txt</name>\n  <files>src/%s.txt</files>\n  <action>Write it.</action>\n  <done>It exists.</done>\n</task>\n", id, id)
	second := fmt.Sprintf("<task type=\"auto\">\n  <name>Task 2: Check src/%s.txt</name>\n  <files>src/%s.txt</files>\n  <action>Check it.</action>\n  <done>It is right.</done>\n</task>\n", id, id)
	if checkpoint {
		second = "<task type=\"checkpoint:human-verify\">\n  <what-built>The bench page</what-built>\n  <how-to-verify>Look at it.</how-to-verify>\n  <resume-signal>Type \"approved\" or describe issues</resume-signal>\n</task>\n"
	}
	b.WriteString(second)
	for t := 3; t <= tasks; t++ {
		fmt.Fprintf(&b, "<task type=\"auto\">\n  <name>Task %d: Polish src/%s.txt</name>\n  <files>src/%s.txt</files>\n  <action>Polish it.</action>\n  <done>It shines.</done>\n</task>\n", t, id, id)
	}
	b.WriteString("</tasks>\n")
	return []byte(b.String())
}

// prepareResults writes every plan's SUMMARY and commits each on its own,
// with the plan's trailer, in one git fast-import (a thousand `git commit`s
// would take longer than the run being measured).
func prepareResults(ctx context.Context, root string, d DAG) error {
	var stream bytes.Buffer
	for i, p := range d.Plans {
		rel := benchPhaseDir + "/" + p.ID + "-SUMMARY.md"
		summary := fmt.Sprintf("---\nphase: 01-bench\nplan: %s\nsubsystem: bench\n---\n\n# Plan %s: done\n\n## Self-Check: PASSED\n", p.ID, p.ID)
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(summary), 0o644); err != nil {
			return fmt.Errorf("bench project: %w", err)
		}
		msg := fmt.Sprintf("docs(%s): complete plan\n\nHive-Plan: %s\n", p.ID, p.ID)
		fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\ncommitter hive bench <bench@hive.invalid> %d +0000\ndata %d\n%s", i+1, 1767225600+i, len(msg), msg)
		if i == 0 {
			stream.WriteString("from refs/heads/main^0\n")
		}
		fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", rel, len(summary), summary)
	}
	marks := filepath.Join(root, ".hive", "bench-marks")
	if err := os.MkdirAll(filepath.Dir(marks), 0o755); err != nil {
		return fmt.Errorf("bench project: %w", err)
	}
	if err := git(ctx, root, &stream, "fast-import", "--quiet", "--export-marks="+marks); err != nil {
		return fmt.Errorf("bench project: commit the prepared SUMMARYs: %w", err)
	}
	// The instant sim names each plan's real commit in its PLAN COMPLETE, as
	// a real agent does, so the spot-checks look at that commit only.
	data, err := os.ReadFile(marks)
	if err != nil {
		return fmt.Errorf("bench project: %w", err)
	}
	var commits strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var n int
		var hash string
		if _, err := fmt.Sscanf(line, ":%d %s", &n, &hash); err == nil && n >= 1 && n <= len(d.Plans) {
			fmt.Fprintf(&commits, "%s %s\n", d.Plans[n-1].ID, hash)
		}
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(benchagent.CommitsFile)), []byte(commits.String()), 0o644); err != nil {
		return fmt.Errorf("bench project: %w", err)
	}
	// fast-import moved the branch, not the index: make the index agree.
	if err := git(ctx, root, nil, "reset", "-q"); err != nil {
		return fmt.Errorf("bench project: %w", err)
	}
	return nil
}

// CommitAll makes root a git repository on main whose one commit, message,
// holds every file in it.
func CommitAll(ctx context.Context, root, message string) error {
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "hive bench"},
		{"config", "user.email", "bench@hive.invalid"},
		{"config", "commit.gpgsign", "false"},
		{"add", "-A"},
		{"commit", "-q", "--no-verify", "-m", message},
	} {
		if err := git(ctx, root, nil, args...); err != nil {
			return fmt.Errorf("bench project: %w", err)
		}
	}
	return nil
}

func git(ctx context.Context, dir string, stdin *bytes.Buffer, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
