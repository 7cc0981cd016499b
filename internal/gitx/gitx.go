package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Repo is a git working tree.
type Repo struct {
	Root string // absolute path of the top-level folder
}

// Open finds the repository that holds dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository (run `git init` there first): %w", abs, err)
	}
	return &Repo{Root: strings.TrimSpace(out)}, nil
}

// Git runs git with args in the repository and returns its stdout.
func (r *Repo) Git(ctx context.Context, args ...string) (string, error) {
	return run(ctx, r.Root, args...)
}

func run(ctx context.Context, dir string, args ...string) (string, error) {
	return runInput(ctx, dir, nil, args...)
}

// runInput is run with stdin read from input (nil: none).
func runInput(ctx context.Context, dir string, input []byte, args ...string) (string, error) {
	defer afterCommand()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	if input != nil {
		cmd.Stdin = bytes.NewReader(input)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return stdout.String(), nil
}

// Commit is one commit found by a look-up.
type Commit struct {
	Hash    string
	Subject string
	Body    string
	Time    time.Time // committer date
	Parents []string  // none for a root commit, two or more for a merge
}

// PlanCommits returns plan id's commits, newest first: those reachable
// from ref (HEAD when "") and not from since, that carry a Hive-Plan or
// Hive-Task trailer for id or the conventional subject scope "(id)". Merge
// commits are left out.
//
// since scopes the look-up to one run's work: real projects reuse plan ids
// (a new milestone restarts phase numbers), so a commit made for "01-01"
// before the run began is another plan's, whatever it says. "" searches the
// whole history of ref. Matching whole tokens keeps "01-01" from matching a
// date like 2025-01-01 or plan 101-01.
func (r *Repo) PlanCommits(ctx context.Context, id, since, ref string) ([]Commit, error) {
	if ref == "" {
		ref = "HEAD"
	}
	return r.log(ctx, since, ref, planFilter(id)...)
}

// HasPlanCommit says whether PlanCommits would find any commit: the walk
// stops at the first, usually the newest few commits of a run.
func (r *Repo) HasPlanCommit(ctx context.Context, id, since, ref string) (bool, error) {
	cs, err := r.log(ctx, since, ref, append(planFilter(id), "--max-count=1")...)
	return len(cs) > 0, err
}

// planFilter is git log's filter of plan id's commits (see Commit.ForPlan).
func planFilter(id string) []string {
	q := regexp.QuoteMeta(id)
	return []string{"-E",
		"--grep", `\(` + q + `\)`,
		"--grep", `^Hive-(Plan|Task): ` + q + `(/[0-9a-z]+)?$`}
}

// log lists the non-merge commits reachable from ref and not from since
// that the filters let through, newest first; a branch with no commits,
// or none of that name, has none.
func (r *Repo) log(ctx context.Context, since, ref string, filters ...string) ([]Commit, error) {
	rng := ref
	if since != "" {
		rng = since + ".." + ref
	}
	args := append([]string{"log", rng, "--no-merges"}, filters...)
	out, err := r.Git(ctx, append(args, logFormat, "--")...)
	if err != nil {
		if strings.Contains(err.Error(), "does not have any commits") || strings.Contains(err.Error(), "unknown revision") {
			return nil, nil
		}
		return nil, err
	}
	return parseLog(out), nil
}

// logFormat is what parseLog reads: fields split by 0x1f, records by 0x1e;
// the message last, where a stray 0x1f can only be part of it.
const logFormat = "--format=%H%x1f%ct%x1f%P%x1f%s%x1f%b%x1e"

func parseLog(out string) []Commit {
	var cs []Commit
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x1f", 5)
		if len(f) < 5 {
			continue
		}
		secs, _ := strconv.ParseInt(f[1], 10, 64)
		cs = append(cs, Commit{Hash: f[0], Time: time.Unix(secs, 0), Parents: strings.Fields(f[2]), Subject: f[3], Body: strings.TrimSpace(f[4])})
	}
	return cs
}

// RangeCommits returns every commit reachable from ref and not from since,
// newest first, merges left out: one git command where counting many plans'
// commits with PlanCommits would take one each.
func (r *Repo) RangeCommits(ctx context.Context, since, ref string) ([]Commit, error) {
	return r.log(ctx, since, ref)
}

// ForPlan says whether c is plan id's commit by PlanCommits' rules: the
// subject scope "(id)" anywhere in its message, or a line that is exactly a
// Hive-Plan or Hive-Task trailer for id.
func (c Commit) ForPlan(id string) bool {
	if strings.Contains(c.Subject, "("+id+")") || strings.Contains(c.Body, "("+id+")") {
		return true
	}
	for _, line := range append([]string{c.Subject}, strings.Split(c.Body, "\n")...) {
		rest, ok := strings.CutPrefix(line, "Hive-Plan: "+id)
		if !ok {
			rest, ok = strings.CutPrefix(line, "Hive-Task: "+id)
		}
		if !ok {
			continue
		}
		if rest == "" {
			return true
		}
		task, ok := strings.CutPrefix(rest, "/")
		if ok && task != "" && strings.Trim(task, "0123456789abcdefghijklmnopqrstuvwxyz") == "" {
			return true
		}
	}
	return false
}

// TaskNumbers reads the tasks a commit was made for from its Hive-Task
// trailers ("Hive-Task: 01-02/3"). Several commits may carry one task: a
// TDD task's RED, GREEN and REFACTOR commits are one task's work.
func (c Commit) TaskNumbers(id string) []int {
	var ns []int
	for _, line := range strings.Split(c.Body, "\n") {
		ref, ok := strings.CutPrefix(strings.TrimSpace(line), "Hive-Task: "+id+"/")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(ref)); err == nil && n >= 1 {
			ns = append(ns, n)
		}
	}
	return ns
}

// Exclude adds pattern to .git/info/exclude unless it is there, so hive's
// files stay out of git without editing the user's .gitignore.
func (r *Repo) Exclude(ctx context.Context, pattern string) error {
	p, err := r.Git(ctx, "rev-parse", "--git-path", "info/exclude")
	if err != nil {
		return err
	}
	path := strings.TrimSpace(p)
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.Root, path)
	}
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == pattern {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		pattern = "\n" + pattern
	}
	_, err = f.WriteString(pattern + "\n")
	return err
}

// CommittedSince reports whether plan id has a commit on HEAD after the
// run's base (since) newer than t: the sign of life of an agent that works
// without talking.
func (r *Repo) CommittedSince(ctx context.Context, id, since string, t time.Time) (bool, error) {
	cs, err := r.PlanCommits(ctx, id, since, "")
	if err != nil {
		return false, err
	}
	return anyAfter(cs, t), nil
}

// anyAfter says whether one of cs was committed after t.
func anyAfter(cs []Commit, t time.Time) bool {
	for _, c := range cs {
		if c.Time.After(t) {
			return true
		}
	}
	return false
}
