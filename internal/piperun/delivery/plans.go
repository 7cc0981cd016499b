package delivery

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/planning"
)

// PlansPath is where a finished run's plans are kept, relative to the
// repository: in hive's folder, which git ignores.
func PlansPath(run int64) string { return filepath.Join(".hive", "runs", fmt.Sprint(run), "phase") }

// KeepPlans takes the architect's phase off the finished run's branch,
// and puts STATE.md and ROADMAP.md, where the phase recorded its
// progress, back as they were when the run started, in hive's own commit,
// once the phase is copied to PlansPath; before the delivery, so that
// neither a merge, a push, nor a branch taken by hand brings it into the
// project. A delivery cut short and done again finds what it did: the
// copy only ever adds files (the worktree may hold part of the phase, or
// none, after a removal cut short), and the branch is set right from what
// its last commit holds. It returns notes for the user.
func (w *Work) KeepPlans(ctx context.Context, snap roleplan.Snapshot) []string {
	phase := snap.Spec.PhaseDir
	if phase == "" || w.Dir == "" {
		return nil
	}
	src := filepath.Join(w.Dir, filepath.FromSlash(phase))
	dst := filepath.Join(w.Repo.Root, PlansPath(w.Run.ID))
	if _, err := os.Stat(src); err == nil {
		if err := copyTree(src, dst); err != nil {
			return []string{fmt.Sprintf("could not keep the run's plans in %s (%v): they stay on its branch, in %s", PlansPath(w.Run.ID), err, phase)}
		}
	}
	if _, err := os.Stat(dst); err != nil {
		// The run wrote no plans (a workflow without an architect): its
		// branch holds no phase, and STATE.md and ROADMAP.md are its
		// roles' to change.
		return nil
	}
	msg := fmt.Sprintf("chore(hive): run %d's plans are the run's, kept in %s", w.Run.ID, filepath.ToSlash(PlansPath(w.Run.ID)))
	base, paths := snap.Spec.Base, append([]string{phase}, planning.TrackingFiles...)
	if base == "" {
		// A run from before its base was recorded: its plans go, and
		// the files it cannot tell from the user's stay.
		base, paths = gitx.EmptyTree, paths[:1]
	}
	if err := w.Repo.At(w.Dir).Restore(ctx, msg, base, paths...); err != nil {
		return []string{fmt.Sprintf("could not take the run's plans off its branch (%s): they stay there, in %s", oneLine(err.Error()), phase)}
	}
	os.RemoveAll(src) // what no commit held (a SUMMARY never committed) is in the copy
	return []string{fmt.Sprintf("the architect's plans are kept in %s, not in your .planning/phases", filepath.ToSlash(PlansPath(w.Run.ID)))}
}

// copyTree copies the regular files under src to dst, over those of the
// same name (a copy cut short), keeping the others.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case !d.Type().IsRegular():
			return nil // a link or a device is no plan
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}
