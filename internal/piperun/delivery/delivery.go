package delivery

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/github"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/roleplan"
)

// Work is a run's work in the user's repository: the run's branch and
// its worktree, and how the work is to be delivered once the run has
// finished.
type Work struct {
	Repo *gitx.Repo // the user's repository
	// Journal is the project's journal of hive run: the run's report is
	// its pull request's description.
	Journal journal.Journal
	Run     journal.Run
	Dir     string // the run's worktree
	Branch  string
	// WorktreeRoot is where the run's worktrees go; "" means the user's
	// cache folder, where hive's folders for the repository go once
	// empty.
	WorktreeRoot string
	// Elsewhere, when set, says where the finished run's work is for a
	// run driven away from the user's folder (a clone of it): the work is
	// left on its branch, which the driver hands on, and this is the
	// user's note.
	Elsewhere string
	// PRPoll is how often a followed pull request is looked at (0: every
	// 30 s).
	PRPoll time.Duration
	// Note is told what a followed pull request meets worth telling of
	// job.
	Note func(job, text string)
	// keepWorktree: delivery leaves the run's worktree, which holds
	// changes hive could not set aside (KeepLeftovers).
	keepWorktree bool
}

func (w *Work) note(job, text string) {
	if w.Note != nil {
		w.Note(job, text)
	}
}

// HandOver hands the ended run's work over as its machine decided
// (snap.Handover): merges a completed run's branch into the user's branch
// (fast forward when it can) when that touches nothing of the user's, or
// publishes it (--push, --pr); otherwise the work stays on the branch and
// the notes say how to take it. The run's worktree goes in every case.
func (w *Work) HandOver(ctx context.Context, snap roleplan.Snapshot) runjournal.Delivery {
	var d runjournal.Delivery
	h := roleplan.Handover{How: roleplan.HandoverUnfinished}
	if snap.Handover != nil {
		h = *snap.Handover
	}
	// The user's branch: what the work merges into, or the pull
	// request's base.
	base := w.Repo.CurrentBranch(ctx)
	leave := func(why string) runjournal.Delivery {
		w.removeWorktree(ctx, "", &d)
		d.Notes = append(d.Notes, why+": the work is on branch "+w.Branch+"; "+w.takeIt(ctx, snap, base))
		return d
	}
	switch {
	case w.Elsewhere != "":
		w.removeWorktree(ctx, "", &d)
		d.Notes = append(d.Notes, w.Elsewhere)
		return d
	case h.How == roleplan.HandoverFollowed:
		// The machine delivered it, and followed the pull request
		// (FollowJob); its notes say how.
		w.removeWorktree(ctx, "", &d)
		f := snap.Follow
		d.Notes = append(d.Notes, f.Notes...)
		if f.PR != nil {
			d.Pushed, d.PullRequest = true, f.PR.URL
			d.Notes = append(d.Notes, followed(f))
		}
		return d
	case h.How == roleplan.HandoverUnfinished:
		w.removeWorktree(ctx, "", &d)
		note := fmt.Sprintf("the run did not complete (%s): the work is on branch %s; look at it with git log %s, take it with git merge %s",
			snap.Outcome, w.Branch, w.Branch, w.Branch)
		if h.Publish != "" {
			note += "; nothing was pushed"
		}
		d.Notes = append(d.Notes, note)
		return d
	case h.How == roleplan.HandoverPR, h.How == roleplan.HandoverPush:
		w.removeWorktree(ctx, "", &d)
		w.publishWork(ctx, snap, h.How, base, &d)
		return d
	case h.How == roleplan.HandoverLeave:
		return leave("--no-merge")
	}
	if why := w.unsafeMerge(ctx); why != "" {
		d.Undelivered = why
		return leave(why + ", so hive did not merge")
	}
	err := w.Repo.Locked(ctx, func() error {
		if _, err := w.Repo.Git(ctx, "merge", "--ff-only", "-q", w.Branch); err == nil {
			return nil
		}
		_, err := w.Repo.Git(ctx, "merge", "--no-edit", "-q", w.Branch)
		if err != nil && w.Repo.MergeInProgress(ctx) {
			// The tree was clean before the merge: its abort restores it
			// as it was, where a reset could take an edit made meanwhile.
			w.Repo.Git(ctx, "merge", "--abort")
		}
		return err
	})
	if err != nil {
		d.Undelivered = fmt.Sprintf("could not merge %s into your branch (%s)", w.Branch, oneLine(err.Error()))
		return leave(d.Undelivered)
	}
	w.removeWorktree(ctx, w.Branch, &d)
	d.Merged = true
	d.Notes = append(d.Notes, fmt.Sprintf("the run's work is merged into %s", base))
	return d
}

// KeepLeftovers sets aside what the roles left uncommitted in the run's
// worktree, which delivery removes: a role ends its turn with its work
// committed, but a real agent may forget a file, and only commits are
// merged or pushed. The changes go to a ref of their own, off every
// branch (gitx.KeepChanges), and the notes say where. A hive killed
// after the setting aside finds the ref and names it again. When they
// cannot be kept, the worktree stays (keepWorktree) and the notes say so.
func (w *Work) KeepLeftovers(ctx context.Context) []string {
	if _, err := os.Stat(w.Dir); err != nil {
		return nil
	}
	ref := fmt.Sprintf("refs/hive/left/run-%d/end", w.Run.ID)
	wt := w.Repo.At(w.Dir)
	kept, err := wt.KeepChanges(ctx, ref, fmt.Sprintf("hive: what run %d's roles left uncommitted at its end", w.Run.ID))
	switch {
	case err != nil:
		w.keepWorktree = true
		return []string{fmt.Sprintf("the roles left uncommitted changes in the run's worktree, and hive could not set them aside (%s): the worktree %s stays, with them; take what you want from it, then remove it with git worktree remove --force %s",
			oneLine(err.Error()), w.Dir, w.Dir)}
	case kept || wt.RefHash(ctx, ref) != "":
		return []string{fmt.Sprintf("the roles left uncommitted changes, which are not in the run's commits: kept at %s (git diff %s~ %s shows them, git cherry-pick --no-commit %s takes them, git update-ref -d %s drops them)",
			ref, ref, ref, ref, ref)}
	}
	return nil
}

// removeWorktree removes the run's worktree, and branch unless "".
func (w *Work) removeWorktree(ctx context.Context, branch string, d *runjournal.Delivery) {
	if w.keepWorktree {
		return
	}
	if err := worktrees.Remove(ctx, w.Repo, w.Dir, branch); err != nil && !errors.Is(err, os.ErrNotExist) {
		d.Notes = append(d.Notes, "remove the run's worktree "+w.Dir+": "+err.Error())
	}
	if w.WorktreeRoot == "" {
		// A finished run leaves nothing in the cache: hive's folders
		// for the repository above the worktree go once empty
		// (<cache>/hive/worktrees/<repo>-<hash>, worktrees, hive).
		dir := filepath.Dir(w.Dir)
		for range 3 {
			if os.Remove(dir) != nil {
				break
			}
			dir = filepath.Dir(dir)
		}
	}
}

// unsafeMerge says why merging the run's branch into the user's could
// touch what the user has not committed, or stop half done; "" when it
// cannot. hive never stashes: it leaves the work on its branch instead.
func (w *Work) unsafeMerge(ctx context.Context) string {
	r := w.Repo
	changed, err := r.Git(ctx, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return "git status failed (" + oneLine(err.Error()) + ")"
	}
	if strings.TrimSpace(changed) != "" {
		return "your working tree has uncommitted changes"
	}
	// git refuses to overwrite an untracked file, but an ignored one (a
	// local .env) it overwrites without a word: no file the work adds may
	// be there already.
	if out, err := r.Git(ctx, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=A", "HEAD..."+w.Branch, "--"); err == nil {
		var there []string
		for _, f := range strings.Split(out, "\x00") {
			if _, err := os.Lstat(filepath.Join(r.Root, f)); f != "" && err == nil {
				there = append(there, f)
			}
		}
		if len(there) > 0 {
			return fmt.Sprintf("your working tree has files of its own where the run's work adds them (%s)", clipList(there, 3))
		}
	}
	if r.IsAncestor(ctx, "HEAD", w.Branch) {
		return "" // a fast forward
	}
	// A merge that would conflict is not started: aborting one in the
	// user's tree is what could lose an edit.
	cmd := exec.CommandContext(ctx, "git", "merge-tree", "--write-tree", "--quiet", "HEAD", w.Branch)
	cmd.Dir = r.Root
	var exit *exec.ExitError
	if err := cmd.Run(); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "the run's work conflicts with commits made on your branch since it started"
	}
	// Other failures (a git older than 2.38 has no --write-tree) leave
	// it to the merge, which is aborted if it stops.
	return ""
}

// takeIt says how to take work left on the run's branch: merge it, or
// publish it.
func (w *Work) takeIt(ctx context.Context, snap roleplan.Snapshot, base string) string {
	into := "your branch"
	if base != "" {
		into = base
	}
	return fmt.Sprintf("take it into %s with:\n  git merge %s\nor publish it with:\n  %s\n  %s",
		into, w.Branch, commandLine(w.pushArgs()), commandLine(w.prArgs(base, snap.Spec.Objective, w.bodyFile(ctx, snap))))
}

// publishTimeout bounds git push and gh, which may wait on the network.
const publishTimeout = 3 * time.Minute

// publishWork pushes the branch to origin and, for "pr", opens a pull
// request for it with gh. A failure leaves the run complete, its work on
// its branch, and a note with the commands to finish by hand.
func (w *Work) publishWork(ctx context.Context, snap roleplan.Snapshot, mode, base string, d *runjournal.Delivery) {
	body := w.bodyFile(ctx, snap)
	pr := commandLine(w.prArgs(base, snap.Spec.Objective, body))
	pushCtx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	if _, err := w.Repo.Git(pushCtx, w.pushArgs()[1:]...); err != nil {
		d.Undelivered = fmt.Sprintf("could not push %s to origin (%s)", w.Branch, oneLine(err.Error()))
		note := fmt.Sprintf("could not push %s to origin (%s): the run is complete and its work is on branch %s; push it with:\n  %s",
			w.Branch, oneLine(err.Error()), w.Branch, commandLine(w.pushArgs()))
		if mode == "pr" {
			note += "\nthen open the pull request with:\n  " + pr
		}
		d.Notes = append(d.Notes, note)
		return
	}
	d.Pushed = true
	d.Notes = append(d.Notes, fmt.Sprintf("pushed %s to origin", w.Branch))
	if mode != "pr" {
		d.Notes = append(d.Notes, "open a pull request with:\n  "+pr)
		return
	}
	gh, err := github.Gh()
	if err != nil {
		d.Notes = append(d.Notes, "gh is not installed, so hive opened no pull request: install it (https://cli.github.com), log in with gh auth login, then run:\n  "+pr)
		return
	}
	ghCtx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	if _, err := github.Run(ghCtx, gh, w.Repo.Root, "auth", "status"); err != nil {
		d.Notes = append(d.Notes, "gh is not logged in (gh auth status failed), so hive opened no pull request: log in with gh auth login, then run:\n  "+pr)
		return
	}
	if body == "" {
		d.Notes = append(d.Notes, "could not write the pull request's description, so hive opened no pull request: write it to a file, then run:\n  "+pr)
		return
	}
	if open, ok, err := github.OpenPullRequestFor(ghCtx, gh, w.Repo.Root, w.Branch); err == nil && ok {
		// Opened by this run before (it was resumed): never a second one;
		// its description is the run's report as it stands now.
		d.PullRequest = open.URL
		if err := github.EditBody(ghCtx, gh, w.Repo.Root, open.Number, body); err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("pull request %s is open already; its description was not updated (%s)", open.URL, oneLine(err.Error())))
			return
		}
		d.Notes = append(d.Notes, "updated pull request "+open.URL+" (it was open already)")
		return
	}
	out, err := github.Run(ghCtx, gh, w.Repo.Root, w.prArgs(base, snap.Spec.Objective, body)[1:]...)
	if err != nil {
		d.Notes = append(d.Notes, fmt.Sprintf("gh pr create failed (%s): open the pull request with:\n  %s", oneLine(err.Error()), pr))
		return
	}
	// gh prints the pull request's address last.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	d.PullRequest = strings.TrimSpace(lines[len(lines)-1])
	d.Notes = append(d.Notes, "opened pull request "+d.PullRequest)
}

// pushArgs is the command that publishes the branch.
func (w *Work) pushArgs() []string { return []string{"git", "push", "-u", "origin", w.Branch} }

// prArgs is the command that opens the pull request; base "" (a detached
// HEAD) leaves gh to pick the repository's default branch.
func (w *Work) prArgs(base, objective, body string) []string {
	args := []string{"gh", "pr", "create"}
	if base != "" {
		args = append(args, "--base", base)
	}
	if body == "" {
		body = "FILE"
	}
	return append(args, "--head", w.Branch, "--title", PRTitle(objective), "--body-file", body)
}

// PRTitle is a pull request's title made from the objective: one line of
// at most 72 characters.
func PRTitle(objective string) string {
	t := strings.Join(strings.Fields(objective), " ")
	if r := []rune(t); len(r) > 72 {
		t = strings.TrimRight(string(r[:71]), " ") + "…"
	}
	return t
}

// bodyFile writes the pull request's description, the run's report, to
// .hive/pr/run-N.md (hive's folder, which git ignores), and returns its
// path; "" when it could not.
func (w *Work) bodyFile(ctx context.Context, snap roleplan.Snapshot) string {
	rep, err := runreport.Build(ctx, w.Journal, w.Repo, w.Run)
	if err != nil {
		return ""
	}
	rep.Outcome = snap.Outcome // the run is finished after its delivery
	path := filepath.Join(w.Repo.Root, ".hive", "pr", fmt.Sprintf("run-%d.md", w.Run.ID))
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil || os.WriteFile(path, []byte(runreport.PRBody(rep)), 0o644) != nil {
		return ""
	}
	return path
}

// commandLine spells args as a shell command line for the user to copy:
// hive shows it and runs nothing through a shell.
func commandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// oneLine is s on one line, cut to 200 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// clipList names the first n of list, and how many more.
func clipList(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:n], ", "), len(list)-n)
}
