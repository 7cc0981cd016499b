package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
)

// CleanReport says what Clean did.
type CleanReport struct {
	Removed []string // worktrees removed
	Live    []string // worktrees left alone: a live run uses them
	Deleted []string // branches deleted: their work is on the current branch
	Kept    []string // branches kept, with why: they hold work not merged yet
}

// Clean removes what killed runs left behind: the worktrees of phases no
// live hive process runs (a live run holds its phase's lock, which Clean
// takes while it works), and the hive/ branches whose work is already on
// the current branch. A branch with unmerged commits is kept, since a
// resumed run continues from it; `git worktree prune` runs first.
func Clean(ctx context.Context, repo *gitx.Repo, worktreeRoot string) (CleanReport, error) {
	var rep CleanReport
	if worktreeRoot == "" {
		var err error
		if worktreeRoot, err = gitx.DefaultWorktreeRoot(repo.Root); err != nil {
			return rep, err
		}
	}
	if err := repo.PruneWorktrees(ctx); err != nil {
		return rep, err
	}
	wts, err := repo.Worktrees(ctx)
	if err != nil {
		return rep, err
	}
	main := ""
	if len(wts) > 0 {
		main = wts[0].Path // git lists the main worktree first
	}
	locks := map[string]func(){} // phase number → release; "" when live
	defer func() {
		for _, release := range locks {
			if release != nil {
				release()
			}
		}
	}()
	checkedOut := map[string]bool{}
	for _, wt := range wts {
		if wt.Path == main || wt.Bare {
			continue
		}
		phase, ours := phaseOfWorktree(worktreeRoot, wt)
		if !ours {
			checkedOut[wt.Branch] = true
			continue // the user's own worktree
		}
		release, seen := locks[phase]
		if !seen {
			release = lockPhaseNumber(repo.Root, phase)
			locks[phase] = release
		}
		if release == nil {
			rep.Live = append(rep.Live, wt.Path)
			checkedOut[wt.Branch] = true
			continue
		}
		if err := repo.RemoveWorktree(ctx, wt.Path, ""); err != nil {
			return rep, fmt.Errorf("remove worktree %s: %w", wt.Path, err)
		}
		rep.Removed = append(rep.Removed, wt.Path)
	}
	out, err := repo.Git(ctx, "for-each-ref", "--format=%(refname:short)", "refs/heads/hive/")
	if err != nil {
		return rep, err
	}
	for _, b := range strings.Fields(out) {
		if checkedOut[b] {
			continue
		}
		if !repo.IsAncestor(ctx, b, "HEAD") {
			rep.Kept = append(rep.Kept, b+": has commits not on the current branch (a resumed run continues from it; delete it with git branch -D if you do not want them)")
			continue
		}
		if err := repo.DeleteBranch(ctx, b); err != nil {
			return rep, err
		}
		rep.Deleted = append(rep.Deleted, b)
	}
	return rep, nil
}

// phaseOfWorktree says which phase a worktree belongs to, if hive made it:
// hive's worktrees live at <root>/<phase>/<plan or integration>.
func phaseOfWorktree(root string, wt gitx.Worktree) (string, bool) {
	for _, base := range []string{root, canonicalDir(root)} {
		rel, err := filepath.Rel(base, wt.Path)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) == 2 {
			return parts[0], true
		}
	}
	return "", false
}

func canonicalDir(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// lockPhaseNumber takes the lock of the phase folder numbered phase, if any
// run could hold it; nil means a live run holds it.
func lockPhaseNumber(root, phase string) func() {
	matches, _ := filepath.Glob(filepath.Join(root, ".planning", "phases", phase+"-*"))
	if len(matches) == 0 {
		matches = []string{filepath.Join(root, ".planning", "phases", phase)}
	}
	var releases []func()
	for _, m := range matches {
		rel, _ := filepath.Rel(root, m)
		release, err := lockPhase(root, filepath.ToSlash(rel))
		if errors.Is(err, ErrLocked) {
			for _, r := range releases {
				r()
			}
			return nil
		}
		if err == nil {
			releases = append(releases, release)
		}
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}
