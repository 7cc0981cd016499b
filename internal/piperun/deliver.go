package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/github"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
)

// runBranch is the branch the run being resumed works on: the one its
// spec recorded, hive/run/N for a run from before branches were named,
// or a new hive/WORKFLOW/SLUG for a run killed before its start.
func (s *driver) runBranch(ctx context.Context) string {
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
			if gitx.SameDir(wt.Path, dir) && wt.Branch != "" {
				return wt.Branch
			}
		}
	}
	return Branch(run)
}

// deliver hands the finished run's work to the user and journals how.
func (s *executor) deliver(ctx context.Context, res *Result) {
	s.score(ctx, res.Snapshot)
	learned := append(s.learn(ctx, res.Snapshot), s.keepPlans(ctx, res.Snapshot)...)
	learned = append(learned, s.keepLeftovers(ctx)...)
	tip, _ := s.o.Repo.At(s.dir).Head(ctx)
	d := s.handOver(ctx, res.Snapshot)
	d.Tip, d.Branch, d.Notes = tip, s.branch, append(learned, d.Notes...)
	res.Merged, res.Pushed, res.PullRequest, res.Undelivered, res.Notes = d.Merged, d.Pushed, d.PullRequest, d.Undelivered, d.Notes
	s.record(d)
}

// handOver merges a completed run's branch into the user's branch (fast
// forward when it can) when that touches nothing of the user's, or
// publishes it (--push, --pr); otherwise the work stays on the branch and
// the notes say how to take it. The run's worktree goes in every case.
func (s *executor) handOver(ctx context.Context, snap pipeline.Snapshot) Delivery {
	var d Delivery
	mode := s.o.publish()
	if mode == "" {
		mode = snap.Spec.Publish // as the run was started
	}
	// The user's branch: what the work merges into, or the pull
	// request's base.
	base := s.o.Repo.CurrentBranch(ctx)
	leave := func(why string) Delivery {
		s.removeWorktree(ctx, "", &d)
		d.Notes = append(d.Notes, why+": the work is on branch "+s.branch+"; "+s.takeIt(ctx, snap, base))
		return d
	}
	switch {
	case s.o.Elsewhere != "":
		s.removeWorktree(ctx, "", &d)
		d.Notes = append(d.Notes, s.o.Elsewhere)
		return d
	case snap.Follow != nil && (snap.Follow.PR != nil || len(snap.Follow.Notes) > 0):
		// The machine delivered it, and followed the pull request
		// (FollowJob); its notes say how.
		s.removeWorktree(ctx, "", &d)
		f := snap.Follow
		d.Notes = append(d.Notes, f.Notes...)
		if f.PR != nil {
			d.Pushed, d.PullRequest = true, f.PR.URL
			d.Notes = append(d.Notes, followed(f))
		}
		return d
	case snap.Outcome != pipeline.OutcomeComplete:
		s.removeWorktree(ctx, "", &d)
		note := fmt.Sprintf("the run did not complete (%s): the work is on branch %s; look at it with git log %s, take it with git merge %s",
			snap.Outcome, s.branch, s.branch, s.branch)
		if mode != "" {
			note += "; nothing was pushed"
		}
		d.Notes = append(d.Notes, note)
		return d
	case mode != "":
		s.removeWorktree(ctx, "", &d)
		s.publishWork(ctx, snap, mode, base, &d)
		return d
	case s.o.NoMerge || snap.Spec.NoMerge:
		return leave("--no-merge")
	}
	if why := s.unsafeMerge(ctx); why != "" {
		d.Undelivered = why
		return leave(why + ", so hive did not merge")
	}
	err := s.o.Repo.Locked(ctx, func() error {
		if _, err := s.o.Repo.Git(ctx, "merge", "--ff-only", "-q", s.branch); err == nil {
			return nil
		}
		_, err := s.o.Repo.Git(ctx, "merge", "--no-edit", "-q", s.branch)
		if err != nil && s.o.Repo.MergeInProgress(ctx) {
			// The tree was clean before the merge: its abort restores it
			// as it was, where a reset could take an edit made meanwhile.
			s.o.Repo.Git(ctx, "merge", "--abort")
		}
		return err
	})
	if err != nil {
		d.Undelivered = fmt.Sprintf("could not merge %s into your branch (%s)", s.branch, oneLine(err.Error()))
		return leave(d.Undelivered)
	}
	s.removeWorktree(ctx, s.branch, &d)
	d.Merged = true
	d.Notes = append(d.Notes, fmt.Sprintf("the run's work is merged into %s", base))
	return d
}

// keepLeftovers sets aside what the roles left uncommitted in the run's
// worktree, which delivery removes: a role ends its turn with its work
// committed, but a real agent may forget a file, and only commits are
// merged or pushed. The changes go to a ref of their own, off every
// branch (gitx.KeepChanges), and the notes say where. A hive killed
// after the setting aside finds the ref and names it again. When they
// cannot be kept, the worktree stays (keepWorktree) and the notes say so.
func (s *executor) keepLeftovers(ctx context.Context) []string {
	if _, err := os.Stat(s.dir); err != nil {
		return nil
	}
	ref := fmt.Sprintf("refs/hive/left/run-%d/end", s.run.ID)
	wt := s.o.Repo.At(s.dir)
	kept, err := wt.KeepChanges(ctx, ref, fmt.Sprintf("hive: what run %d's roles left uncommitted at its end", s.run.ID))
	switch {
	case err != nil:
		s.keepWorktree = true
		return []string{fmt.Sprintf("the roles left uncommitted changes in the run's worktree, and hive could not set them aside (%s): the worktree %s stays, with them; take what you want from it, then remove it with git worktree remove --force %s",
			oneLine(err.Error()), s.dir, s.dir)}
	case kept || wt.RefHash(ctx, ref) != "":
		return []string{fmt.Sprintf("the roles left uncommitted changes, which are not in the run's commits: kept at %s (git diff %s~ %s shows them, git cherry-pick --no-commit %s takes them, git update-ref -d %s drops them)",
			ref, ref, ref, ref, ref)}
	}
	return nil
}

// removeWorktree removes the run's worktree, and branch unless "".
func (s *executor) removeWorktree(ctx context.Context, branch string, d *Delivery) {
	if s.keepWorktree {
		return
	}
	if err := s.o.Repo.RemoveWorktree(ctx, s.dir, branch); err != nil && !errors.Is(err, os.ErrNotExist) {
		d.Notes = append(d.Notes, "remove the run's worktree "+s.dir+": "+err.Error())
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

// unsafeMerge says why merging the run's branch into the user's could
// touch what the user has not committed, or stop half done; "" when it
// cannot. hive never stashes: it leaves the work on its branch instead.
func (s *executor) unsafeMerge(ctx context.Context) string {
	r := s.o.Repo
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
	if out, err := r.Git(ctx, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=A", "HEAD..."+s.branch, "--"); err == nil {
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
	if r.IsAncestor(ctx, "HEAD", s.branch) {
		return "" // a fast forward
	}
	// A merge that would conflict is not started: aborting one in the
	// user's tree is what could lose an edit.
	cmd := exec.CommandContext(ctx, "git", "merge-tree", "--write-tree", "--quiet", "HEAD", s.branch)
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
func (s *executor) takeIt(ctx context.Context, snap pipeline.Snapshot, base string) string {
	into := "your branch"
	if base != "" {
		into = base
	}
	return fmt.Sprintf("take it into %s with:\n  git merge %s\nor publish it with:\n  %s\n  %s",
		into, s.branch, commandLine(s.pushArgs()), commandLine(s.prArgs(base, snap.Spec.Objective, s.bodyFile(ctx, snap))))
}

// publishTimeout bounds git push and gh, which may wait on the network.
const publishTimeout = 3 * time.Minute

// publishWork pushes the branch to origin and, for "pr", opens a pull
// request for it with gh. A failure leaves the run complete, its work on
// its branch, and a note with the commands to finish by hand.
func (s *executor) publishWork(ctx context.Context, snap pipeline.Snapshot, mode, base string, d *Delivery) {
	body := s.bodyFile(ctx, snap)
	pr := commandLine(s.prArgs(base, snap.Spec.Objective, body))
	pushCtx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	if _, err := s.o.Repo.Git(pushCtx, s.pushArgs()[1:]...); err != nil {
		d.Undelivered = fmt.Sprintf("could not push %s to origin (%s)", s.branch, oneLine(err.Error()))
		note := fmt.Sprintf("could not push %s to origin (%s): the run is complete and its work is on branch %s; push it with:\n  %s",
			s.branch, oneLine(err.Error()), s.branch, commandLine(s.pushArgs()))
		if mode == "pr" {
			note += "\nthen open the pull request with:\n  " + pr
		}
		d.Notes = append(d.Notes, note)
		return
	}
	d.Pushed = true
	d.Notes = append(d.Notes, fmt.Sprintf("pushed %s to origin", s.branch))
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
	if _, err := github.Run(ghCtx, gh, s.o.Repo.Root, "auth", "status"); err != nil {
		d.Notes = append(d.Notes, "gh is not logged in (gh auth status failed), so hive opened no pull request: log in with gh auth login, then run:\n  "+pr)
		return
	}
	if body == "" {
		d.Notes = append(d.Notes, "could not write the pull request's description, so hive opened no pull request: write it to a file, then run:\n  "+pr)
		return
	}
	if open, ok, err := github.OpenPullRequestFor(ghCtx, gh, s.o.Repo.Root, s.branch); err == nil && ok {
		// Opened by this run before (it was resumed): never a second one;
		// its description is the run's report as it stands now.
		d.PullRequest = open.URL
		if err := github.EditBody(ghCtx, gh, s.o.Repo.Root, open.Number, body); err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("pull request %s is open already; its description was not updated (%s)", open.URL, oneLine(err.Error())))
			return
		}
		d.Notes = append(d.Notes, "updated pull request "+open.URL+" (it was open already)")
		return
	}
	out, err := github.Run(ghCtx, gh, s.o.Repo.Root, s.prArgs(base, snap.Spec.Objective, body)[1:]...)
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
func (s *executor) pushArgs() []string { return []string{"git", "push", "-u", "origin", s.branch} }

// prArgs is the command that opens the pull request; base "" (a detached
// HEAD) leaves gh to pick the repository's default branch.
func (s *executor) prArgs(base, objective, body string) []string {
	args := []string{"gh", "pr", "create"}
	if base != "" {
		args = append(args, "--base", base)
	}
	if body == "" {
		body = "FILE"
	}
	return append(args, "--head", s.branch, "--title", PRTitle(objective), "--body-file", body)
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
func (s *executor) bodyFile(ctx context.Context, snap pipeline.Snapshot) string {
	rep, err := BuildReport(ctx, s.o.Journal, s.o.Repo, s.run)
	if err != nil {
		return ""
	}
	rep.Outcome = snap.Outcome // the run is finished after its delivery
	path := filepath.Join(s.o.Repo.Root, ".hive", "pr", fmt.Sprintf("run-%d.md", s.run.ID))
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil || os.WriteFile(path, []byte(PRBody(rep)), 0o644) != nil {
		return ""
	}
	return path
}

// PRBody is a run's report as a pull request's description, in Markdown.
func PRBody(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nhive run %d, workflow %s: %s.\n", mdLine(r.Objective), r.Run, r.Workflow, r.Outcome)
	if c := r.Snapshot.Spec.Closes; c != "" {
		fmt.Fprintf(&b, "\n%s\n", mdLine(c))
	}
	if len(r.Roles) > 0 {
		b.WriteString("\n| Role | State | Attempts | Time | Cost | Reported |\n|---|---|---|---|---|---|\n")
		for _, role := range r.Roles {
			reported := role.Status
			if role.Summary != "" {
				reported += ": " + role.Summary
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | $%.2f | %s |\n", role.Job, role.State, role.Attempts,
				roundDuration(role.Duration), role.Spend.CostUSD, mdCell(reported))
		}
		fmt.Fprintf(&b, "\nTotal: %d/%d tokens, $%.2f.\n", r.Spend.InputTokens, r.Spend.OutputTokens, r.Spend.CostUSD)
	}
	if t := r.Tests; t != nil {
		fmt.Fprintf(&b, "\nTests: `%s`: exit %d, %d passed, %d failed.\n", strings.ReplaceAll(t.Command, "`", "'"), t.ExitCode, t.Passed, t.Failed)
	}
	if len(r.Challenges) > 0 {
		b.WriteString("\n### Challenges\n\n")
		for _, c := range r.Challenges {
			fmt.Fprintf(&b, "- %s → %s (round %d): %s\n", c.From, c.To, c.Round, mdLine(c.Issue))
		}
	}
	if len(r.Decisions) > 0 {
		b.WriteString("\n### Decisions\n\n")
		for _, d := range r.Decisions {
			fmt.Fprintf(&b, "- %s (%s): %s → %s\n", d.Job, d.By, mdLine(d.Question), mdLine(d.Choice))
		}
	}
	if fs := r.Snapshot.Findings; len(fs) > 0 {
		// What the reviewing roles found, and what became of it: a
		// reviewer of the pull request starts from there.
		b.WriteString("\n### Findings\n\n")
		for _, f := range fs {
			where := ""
			if f.File != "" {
				where = " `" + strings.ReplaceAll(f.File, "`", "'") + "`"
				if f.Line > 0 {
					where = fmt.Sprintf(" `%s:%d`", strings.ReplaceAll(f.File, "`", "'"), f.Line)
				}
			}
			status := f.Status
			if f.Reason != "" {
				status += ": " + mdLine(f.Reason)
			}
			fmt.Fprintf(&b, "- **%s** %s%s %s (%s, %s)\n", f.Severity, f.ID, where, mdLine(f.Title), f.Job, status)
		}
	}
	if r.FixLoops > 0 {
		fmt.Fprintf(&b, "\nFix loops: %d.\n", r.FixLoops)
	}
	if len(r.Commits) > 0 {
		b.WriteString("\n### Commits\n\n")
		for _, c := range r.Commits {
			fmt.Fprintf(&b, "- %s\n", mdLine(c))
		}
	}
	fmt.Fprintf(&b, "\n---\nOpened by hive run; `hive report %d` gives the whole account.\n", r.Run)
	return b.String()
}

// roundDuration keeps tenths of a second under ten seconds, as hive
// report does.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// mdLine is text on one Markdown line.
func mdLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdCell is text in one Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(mdLine(s), "|", "\\|") }

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

func oneLine(s string) string {
	s = mdLine(s)
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

// Delivery is what became of a finished run's work, journaled after the
// machine's last event: the branch and its last commit, whether it was
// merged, pushed, and the pull request opened for it.
type Delivery struct {
	Tip         string `json:"tip"`
	Branch      string `json:"branch,omitempty"`
	Merged      bool   `json:"merged"`
	Pushed      bool   `json:"pushed,omitempty"`
	PullRequest string `json:"pull_request,omitempty"`
	// Undelivered: why the completed work is on its branch although it
	// was to be merged or pushed (Result.Undelivered).
	Undelivered string   `json:"undelivered,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// DeliveredEvent is the journal type of a Delivery; the machine never
// steps it.
const DeliveredEvent = "pipeline-delivered"

func (s *executor) record(d Delivery) {
	payload, _ := json.Marshal(d)
	if _, err := s.o.Journal.Append(s.run.ID, DeliveredEvent, s.o.Now().UTC(), payload); err != nil {
		s.o.Observer.Note("", "journal the delivery: "+err.Error())
	}
}

// publish is how a new run is to publish its work: "pr", "push" or "".
func (o Options) publish() string {
	switch {
	case o.PR || o.Follow:
		return "pr"
	case o.Push:
		return "push"
	}
	return ""
}

// RunBranch is the branch of a run, as its journal records it.
func RunBranch(j journal.Journal, run journal.Run) string {
	if m, err := Replay(j, run); err == nil {
		if b := m.Snapshot().Spec.Branch; b != "" {
			return b
		}
	}
	return Branch(run.ID)
}
