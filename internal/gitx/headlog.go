package gitx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// HeadLog answers a run's commit look-ups (PlanCommits, HasPlanCommit,
// CommittedSince with ref HEAD) from one list per scope of the commits
// since..HEAD, kept up to date as HEAD moves, instead of one git log per
// look-up: a spot-check of plan N of a run would otherwise walk and grep
// every commit the run has made, a process and milliseconds each.
//
// HEAD is resolved on every look-up by one long-lived `git cat-file
// --batch-check` process (git reads the ref again for each line, loose or
// packed), so a look-up that finds HEAD where it was costs a pipe round
// trip. When HEAD has moved, only the commits since the old head are
// logged, and added to the list when the old head is among their parents,
// that is, when HEAD moved forward; any other move (a reset, a rebase)
// logs the whole range again. Answers hold the commits the git log they
// replace would list at the moment HEAD was read (in the order HEAD's
// history was walked, newest first: after a merge git's log may order
// commits of one second differently).
//
// A HeadLog is safe for concurrent use; Close ends its git process. A
// whole-history look-up (since "") is not cached: it goes to the repository.
type HeadLog struct {
	repo *Repo

	mu     sync.Mutex
	revs   *revReader
	ranges map[string]*headRange // by since
	closed bool
}

// headRange is since..head: every commit, merges included, newest first,
// and the plans' commits among them.
type headRange struct {
	head    string
	commits []Commit
	plans   *PlanIndex // of the commits that are not merges
}

func newHeadRange(head string, cs []Commit) *headRange {
	return &headRange{head: head, commits: cs, plans: IndexPlans(noMerges(cs))}
}

// extend moves the range's head forward to head, fresh being the commits
// between the two, newest first.
func (rg *headRange) extend(head string, fresh []Commit) {
	rg.head = head
	rg.commits = append(fresh, rg.commits...)
	rg.plans.Prepend(noMerges(fresh))
}

func noMerges(cs []Commit) []Commit {
	out := make([]Commit, 0, len(cs))
	for _, c := range cs {
		if len(c.Parents) <= 1 {
			out = append(out, c)
		}
	}
	return out
}

// NewHeadLog returns a HeadLog of r; its git process starts on first use.
func (r *Repo) NewHeadLog() *HeadLog {
	return &HeadLog{repo: r, ranges: map[string]*headRange{}}
}

// Close ends the HeadLog's git process; later look-ups go to the
// repository directly.
func (l *HeadLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.revs == nil {
		return nil
	}
	err := l.revs.close()
	l.revs = nil
	return err
}

// PlanCommits is Repo.PlanCommits of ref HEAD.
func (l *HeadLog) PlanCommits(ctx context.Context, id, since string) ([]Commit, error) {
	if cs, ok := l.cached(ctx, id, since); ok {
		return cs, nil
	}
	return l.repo.PlanCommits(ctx, id, since, "HEAD")
}

// cached is PlanCommits from the cache; false when the cache cannot answer
// (whole history, a closed log, git refusing to start the reader or to
// log), and git is asked.
func (l *HeadLog) cached(ctx context.Context, id, since string) ([]Commit, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ix, err := l.current(ctx, since)
	if err != nil || ix == nil {
		return nil, false
	}
	return ix.For(id), true
}

// HasPlanCommit is Repo.HasPlanCommit of ref HEAD.
func (l *HeadLog) HasPlanCommit(ctx context.Context, id, since string) (bool, error) {
	cs, err := l.PlanCommits(ctx, id, since)
	return len(cs) > 0, err
}

// CommittedSince is Repo.CommittedSince.
func (l *HeadLog) CommittedSince(ctx context.Context, id, since string, t time.Time) (bool, error) {
	cs, err := l.PlanCommits(ctx, id, since)
	if err != nil {
		return false, err
	}
	return anyAfter(cs, t), nil
}

// current returns the plans' commits of since..HEAD, brought up to date;
// nil when the cache does not answer. l.mu is held.
func (l *HeadLog) current(ctx context.Context, since string) (*PlanIndex, error) {
	if since == "" || l.closed {
		return nil, nil
	}
	if l.revs == nil {
		var err error
		if l.revs, err = startRevReader(l.repo.Root); err != nil {
			return nil, nil
		}
	}
	head, found, err := l.revs.resolve("HEAD")
	if err != nil {
		l.revs.close()
		l.revs = nil
		return nil, nil
	}
	if !found { // an unborn branch: nothing since anything
		return IndexPlans(nil), nil
	}
	rg := l.ranges[since]
	switch {
	case rg != nil && rg.head == head:
		return rg.plans, nil
	case rg != nil:
		// HEAD moved: log what is new since the old head; it is an
		// extension of the old range when one of the new commits has the
		// old head as a parent (or the old range was empty: then ^since
		// already excludes everything ^old head does).
		fresh, err := l.repo.logAll(ctx, head, "^"+since, "^"+rg.head)
		if err != nil {
			return nil, err
		}
		if len(rg.commits) == 0 || hasParent(fresh, rg.head) {
			rg.extend(head, fresh)
			return rg.plans, nil
		}
	}
	all, err := l.repo.logAll(ctx, head, "^"+since)
	if err != nil {
		return nil, err
	}
	rg = newHeadRange(head, all)
	l.ranges[since] = rg
	return rg.plans, nil
}

// logAll lists the commits the revisions select, merges included, with
// their parents, newest first.
func (r *Repo) logAll(ctx context.Context, revs ...string) ([]Commit, error) {
	args := append([]string{"log", logFormat}, revs...)
	out, err := r.Git(ctx, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	return parseLog(out), nil
}

func hasParent(cs []Commit, hash string) bool {
	for _, c := range cs {
		for _, p := range c.Parents {
			if p == hash {
				return true
			}
		}
	}
	return false
}

// revReader is a `git cat-file --batch-check` process: one revision in,
// its object name out.
type revReader struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRevReader(dir string) (*revReader, error) {
	cmd := exec.Command("git", "cat-file", "--batch-check")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &revReader{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// resolve returns the object name of rev; found is false when git says it
// is missing (HEAD of a branch with no commits yet).
func (r *revReader) resolve(rev string) (hash string, found bool, err error) {
	if strings.ContainsAny(rev, "\n\r") {
		return "", false, fmt.Errorf("revision %q has a line break", rev)
	}
	if _, err := io.WriteString(r.in, rev+"\n"); err != nil {
		return "", false, err
	}
	line, err := r.out.ReadString('\n')
	if err != nil {
		return "", false, err
	}
	f := strings.Fields(line)
	switch {
	case len(f) == 2 && f[1] == "missing":
		return "", false, nil
	case len(f) == 3:
		return f[0], true, nil
	}
	return "", false, errors.New("git cat-file: unexpected answer " + strings.TrimSpace(line))
}

func (r *revReader) close() error {
	r.in.Close()
	return r.cmd.Wait()
}
