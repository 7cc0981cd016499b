package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/pipeline"
)

// runBranch is the branch the run works on: the one its spec recorded,
// hive/run/N for a run from before branches were named, or a new
// hive/WORKFLOW/SLUG for a run starting now.
func (s *shell) runBranch(ctx context.Context) string {
	if s.m.Started() {
		if b := s.m.Snapshot().Spec.Branch; b != "" {
			return b
		}
		return Branch(s.run.ID)
	}
	return NewBranch(ctx, s.o.Repo, s.o.Workflow.Name, s.o.Objective, s.run.ID)
}

// NewBranch names the branch of a run starting now: hive/WORKFLOW/SLUG,
// the slug made of the objective's first words (run-N when it has none
// in ASCII), with -2, -3... added when a branch of that name, or one that
// git could not keep beside it (hive/full/x beside hive/full/x/y), exists.
func NewBranch(ctx context.Context, repo *gitx.Repo, workflow, objective string, run int64) string {
	wf := refWords(workflow, 40)
	if wf == "" {
		wf = "custom"
	}
	sl := BranchSlug(objective)
	if sl == "" {
		sl = fmt.Sprintf("run-%d", run)
	}
	var refs []string
	if out, err := repo.Git(ctx, "for-each-ref", "--format=%(refname)", "refs/heads/"); err == nil {
		for _, r := range strings.Split(out, "\n") {
			if r = strings.TrimPrefix(strings.TrimSpace(r), "refs/heads/"); r != "" {
				refs = append(refs, r)
			}
		}
	}
	taken := func(name string) bool {
		for _, r := range refs {
			if r == name || strings.HasPrefix(r, name+"/") || strings.HasPrefix(name, r+"/") {
				return true
			}
		}
		return gitx.CheckBranchName(ctx, name) != nil
	}
	base := "hive/" + wf + "/" + sl
	for n := 1; n <= 100; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		if !taken(name) {
			return name
		}
	}
	// A hundred runs of one objective, or a branch hive/WORKFLOW in the
	// way: the run's number is free.
	return Branch(run)
}

// BranchSlug is the objective's first words as a branch name's last part:
// lowercase ASCII letters and digits, joined by -, at most 40 characters;
// "" when the objective has no such word.
func BranchSlug(objective string) string { return refWords(objective, 40) }

// refWords joins the ASCII words of s, lowercased (common accented
// letters as their plain ones), with -, as many as fit in limit.
func refWords(s string, limit int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if f, ok := unaccent[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
	}
	words := strings.FieldsFunc(b.String(), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
	out := ""
	for _, w := range words {
		switch {
		case out == "" && len(w) > limit:
			return w[:limit]
		case out == "":
			out = w
		case len(out)+1+len(w) > limit:
			return out
		default:
			out += "-" + w
		}
	}
	return out
}

// unaccent spells the accented letters of the Latin alphabets in ASCII,
// so that "vérifier" is "verifier", not "v-rifier".
var unaccent = func() map[rune]string {
	m := map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'þ': "th", 'ð': "d"}
	for plain, accented := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "e": "èéêëēĕėęě", "g": "ĝğġģ", "i": "ìíîïĩīĭįı",
		"n": "ñńņňŉ", "o": "òóôõöōŏő", "s": "śŝşš", "t": "ţťŧ", "u": "ùúûüũūŭůűų", "y": "ýÿŷ", "z": "źżž",
	} {
		for _, r := range accented {
			m[r] = plain
		}
	}
	return m
}()

// leftBranch is the branch of a run stopped before its spec was journaled:
// the one checked out in its worktree at dir.
func leftBranch(ctx context.Context, repo *gitx.Repo, dir string, run int64) string {
	if wts, err := repo.Worktrees(ctx); err == nil {
		for _, wt := range wts {
			if sameDir(wt.Path, dir) && wt.Branch != "" {
				return wt.Branch
			}
		}
	}
	return Branch(run)
}

func sameDir(a, b string) bool {
	ca, err1 := filepath.EvalSymlinks(a)
	cb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ca == cb
}

// deliver hands the finished run's work to the user and journals how.
func (s *shell) deliver(ctx context.Context, res *Result) {
	tip, _ := s.o.Repo.At(s.dir).Head(ctx)
	res.Merged, res.Notes = s.merge(ctx, res.Snapshot)
	s.record(Delivery{Tip: tip, Merged: res.Merged, Notes: res.Notes})
}

// merge merges a completed run's branch into the user's branch, fast
// forward when it can, and removes the worktree; otherwise the work stays
// on the branch and the notes say how to take it.
func (s *shell) merge(ctx context.Context, snap pipeline.Snapshot) (bool, []string) {
	var notes []string
	remove := func(branch string) {
		if err := s.o.Repo.RemoveWorktree(ctx, s.dir, branch); err != nil && !errors.Is(err, os.ErrNotExist) {
			notes = append(notes, "remove the run's worktree "+s.dir+": "+err.Error())
		}
		if s.o.WorktreeRoot == "" {
			// A finished run leaves nothing in the cache: hive's folders
			// for the repository above the worktree go once empty
			// (<cache>/hive/worktrees/<repo>-<hash>, worktrees, hive).
			dir := filepath.Dir(s.dir)
			for range 3 {
				if os.Remove(dir) != nil {
					break
				}
				dir = filepath.Dir(dir)
			}
		}
	}
	if snap.Outcome != pipeline.OutcomeComplete || s.o.NoMerge {
		why := "the run did not complete (" + snap.Outcome + ")"
		if s.o.NoMerge {
			why = "--no-merge"
		}
		remove("")
		return false, append(notes, fmt.Sprintf("%s: the work is on branch %s; look at it with git log %s, take it with git merge %s",
			why, s.branch, s.branch, s.branch))
	}
	// Untracked files do not stop a merge (git refuses one that would
	// overwrite them); changes to tracked files do.
	if changed, err := s.o.Repo.Git(ctx, "status", "--porcelain", "--untracked-files=no"); err == nil && strings.TrimSpace(changed) != "" {
		remove("")
		return false, append(notes, fmt.Sprintf("your working tree has uncommitted changes, so hive did not merge: the work is on branch %s; merge it with git merge %s", s.branch, s.branch))
	}
	err := s.o.Repo.Locked(ctx, func() error {
		if _, err := s.o.Repo.Git(ctx, "merge", "--ff-only", "-q", s.branch); err == nil {
			return nil
		}
		_, err := s.o.Repo.Git(ctx, "merge", "--no-edit", "-q", s.branch)
		if err != nil {
			s.o.Repo.AbortMerge(ctx)
		}
		return err
	})
	if err != nil {
		remove("")
		return false, append(notes, fmt.Sprintf("could not merge %s into your branch (%v): merge it yourself with git merge %s", s.branch, err, s.branch))
	}
	remove(s.branch)
	where := s.o.Repo.CurrentBranch(ctx)
	return true, append(notes, fmt.Sprintf("the run's work is merged into %s", where))
}

// Delivery is what became of a finished run's work, journaled after the
// machine's last event: the branch's last commit, whether it was merged.
type Delivery struct {
	Tip    string   `json:"tip"`
	Merged bool     `json:"merged"`
	Notes  []string `json:"notes,omitempty"`
}

// deliveredEvent is the journal type of a Delivery; the machine never
// steps it.
const deliveredEvent = "pipeline-delivered"

func (s *shell) record(d Delivery) {
	payload, _ := json.Marshal(d)
	if _, err := s.o.Journal.Append(s.run.ID, deliveredEvent, s.o.Now().UTC(), payload); err != nil {
		s.o.Observer.Note("", "journal the delivery: "+err.Error())
	}
}

// publish is how a new run is to publish its work: "pr", "push" or "".
func (o Options) publish() string {
	switch {
	case o.PR:
		return "pr"
	case o.Push:
		return "push"
	}
	return ""
}
