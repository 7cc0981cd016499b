package cleanup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/lock"
)

// Report says what Clean did.
type Report struct {
	Removed []string `json:"removed_worktrees"` // worktrees removed
	// Discarded names the uncommitted changes that went with a removed
	// worktree: "<worktree>: <files>".
	Discarded []string `json:"discarded_changes"`
	Pruned    []string `json:"pruned_worktrees"` // registrations forgotten: their worktree folders were gone
	Folders   []string `json:"stale_folders"`    // stale folders removed from hive's worktree folder
	Live      []string `json:"live_worktrees"`   // worktrees left alone: a live run uses them
	Deleted   []string `json:"deleted_branches"` // branches deleted: their work is on the current branch
	Kept      []string `json:"kept_branches"`    // branches kept, with why: they hold work not merged yet
	Left      []string `json:"left"`             // folders in hive's worktree folder left alone, with why
}

// WithEmptyLists is r with every nil list empty, so that its JSON has []
// where there is nothing, as every other JSON of hive's, never null.
func (r Report) WithEmptyLists() Report {
	for _, l := range []*[]string{&r.Removed, &r.Discarded, &r.Pruned, &r.Folders, &r.Live, &r.Deleted, &r.Kept, &r.Left} {
		if *l == nil {
			*l = []string{}
		}
	}
	return r
}

// Clean removes what killed runs and earlier repositories left behind:
//
//   - git's registrations of worktrees whose folders are gone (git worktree
//     prune);
//   - hive's worktrees of every phase no live hive process runs (a live run
//     holds its phase's lock, which Clean takes while it works), wherever
//     hive's worktree folder was when they were made, with what they hold
//     uncommitted (said in Discarded);
//   - the hive/ branches whose work is already on the current branch; a
//     branch with unmerged commits is kept, since a resumed run continues
//     from it;
//   - in hive's worktree folder (worktreeRoot, by default the user cache
//     folder's hive/worktrees/<repo>-<hash>), folders of worktrees that no
//     repository knows any more (an earlier clone at the same path), and
//     then the folder itself once empty. Anything else there is left and
//     listed.
func Clean(ctx context.Context, repo *gitx.Repo, worktreeRoot string) (Report, error) {
	var rep Report
	if worktreeRoot == "" {
		var err error
		if worktreeRoot, err = worktrees.DefaultRoot(repo.Root); err != nil {
			return rep, err
		}
	}
	wts, err := worktrees.List(ctx, repo)
	if err != nil {
		return rep, err
	}
	for _, wt := range wts {
		if wt.Prunable && !wt.Locked {
			rep.Pruned = append(rep.Pruned, wt.Path)
		}
	}
	if err := worktrees.Prune(ctx, repo); err != nil {
		return rep, err
	}
	if wts, err = worktrees.List(ctx, repo); err != nil {
		return rep, err
	}
	main := ""
	if len(wts) > 0 {
		main = wts[0].Path // git lists the main worktree first
	}
	locks := map[string]func(){} // phase number → release; nil when live
	defer func() {
		for _, release := range locks {
			if release != nil {
				release()
			}
		}
	}()
	checkedOut := map[string]bool{}
	registered := map[string]bool{}
	for _, wt := range wts {
		registered[canonicalDir(wt.Path)] = true
		if wt.Path == main || wt.Bare {
			continue
		}
		phase, ours := hiveWorktree(worktreeRoot, wt)
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
		if wt.Locked {
			rep.Left = append(rep.Left, fmt.Sprintf("%s: git keeps it locked (%s); unlock it with git worktree unlock %s", wt.Path, wt.LockReason, wt.Path))
			checkedOut[wt.Branch] = true
			continue
		}
		if dirty, _ := repo.At(wt.Path).Dirty(ctx); len(dirty) > 0 {
			rep.Discarded = append(rep.Discarded, wt.Path+": "+fileList(dirty))
		}
		if err := worktrees.Remove(ctx, repo, wt.Path, ""); err != nil {
			return rep, fmt.Errorf("remove worktree %s: %w", wt.Path, err)
		}
		rep.Removed = append(rep.Removed, wt.Path)
		registered[canonicalDir(wt.Path)] = false
		removeEmptyParents(wt.Path, worktreeRoot)
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
	err = repo.Locked(ctx, func() error { return cleanWorktreeRoot(ctx, repo, worktreeRoot, registered, &rep) })
	return rep, err
}

// cleanWorktreeRoot removes the stale and empty folders of hive's worktree
// folder (<root>/<phase>/<plan or integration>) and the folder itself once
// empty. Folders of registered worktrees (live runs', the user's) are not
// looked into. Empty folders go without a word: they hold nothing.
func cleanWorktreeRoot(ctx context.Context, repo *gitx.Repo, root string, registered map[string]bool, rep *Report) error {
	phases, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read hive's worktree folder: %w", err)
	}
	for _, ph := range phases {
		phaseDir := filepath.Join(root, ph.Name())
		if !ph.IsDir() || registered[canonicalDir(phaseDir)] {
			rep.Left = append(rep.Left, phaseDir+": not a folder hive made")
			continue
		}
		entries, err := os.ReadDir(phaseDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			dir := filepath.Join(phaseDir, e.Name())
			if registered[canonicalDir(dir)] {
				continue
			}
			empty := emptyDir(dir)
			removed, err := worktrees.RemoveStaleFolder(ctx, repo, dir)
			var inTheWay *worktrees.InTheWayError
			switch {
			case errors.As(err, &inTheWay):
				rep.Left = append(rep.Left, inTheWay.Path+": "+inTheWay.What)
			case err != nil:
				return err
			case removed && !empty:
				rep.Folders = append(rep.Folders, dir)
			}
		}
		os.Remove(phaseDir) // only if empty
	}
	os.Remove(root) // only if empty
	return nil
}

// emptyDir says whether dir is an empty folder (worktrees.RemoveStaleFolder
// removes those too; they are not worth a line).
func emptyDir(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) == 0
}

// removeEmptyParents removes the phase folder of a removed worktree and,
// outside root (hive's worktree folder of another time), the folder above
// it, when they are empty.
func removeEmptyParents(path, root string) {
	phaseDir := filepath.Dir(path)
	if os.Remove(phaseDir) != nil {
		return
	}
	if up := filepath.Dir(phaseDir); canonicalDir(up) != canonicalDir(root) {
		os.Remove(up)
	}
}

// fileList names up to three files and how many more.
func fileList(files []string) string {
	shown := strings.Join(files[:min(3, len(files))], ", ")
	if len(files) > 3 {
		shown += fmt.Sprintf(" and %d more", len(files)-3)
	}
	return shown
}

// hiveWorktree says which phase a worktree belongs to, if hive made it:
// hive's worktrees live at <root>/<phase>/<plan or integration>, on branch
// hive/<phase>/<plan or integration> (hive/phase-<phase> for the
// integration worktree of the phase strategy). A worktree outside root is
// hive's when its branch and its last two folders say so: it was made when
// hive's worktree folder was elsewhere.
func hiveWorktree(root string, wt worktrees.Worktree) (string, bool) {
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
	phase, name := filepath.Base(filepath.Dir(wt.Path)), filepath.Base(wt.Path)
	switch {
	case wt.Branch == gitx.PlanBranch(phase, name):
		return phase, true
	case wt.Branch == integration.BranchName(integration.BranchingPhase, phase) && name == "integration":
		return phase, true
	}
	return "", false
}

func canonicalDir(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
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
		release, err := lock.Phase(root, filepath.ToSlash(rel))
		if errors.Is(err, lock.ErrLocked) {
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
