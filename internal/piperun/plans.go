package piperun

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/runner"
)

// The architect's phase is the run's, not the project's: its plans are
// written on the run's branch, where the implementers' phase needs them
// (its plans' worktrees and their SUMMARYs are made from commits), and
// taken off the branch before the work is delivered, kept under
// .hive/runs/N/phase, with what the phase recorded in STATE.md and
// ROADMAP.md. The user's .planning never receives them.

// nextPhase is the phase the architect writes: one past the highest
// phase number under .planning/phases of dir, named after the objective.
func nextPhase(dir, objective string) string {
	n := 0
	entries, _ := os.ReadDir(filepath.Join(dir, ".planning", "phases"))
	for _, e := range entries {
		var k int
		if _, err := fmt.Sscanf(e.Name(), "%d-", &k); err == nil && k > n {
			n = k
		}
	}
	return fmt.Sprintf(".planning/phases/%02d-%s", n+1, phaseSlug(objective))
}

// phaseSlug is the phase folder's name after its number: the objective's
// first words, whole, as the run's branch names them.
func phaseSlug(objective string) string {
	if s := refWords(objective, 40); s != "" {
		return s
	}
	return "objective"
}

// PlansPath is where a finished run's plans are kept, relative to the
// repository: in hive's folder, which git ignores.
func PlansPath(run int64) string { return filepath.Join(".hive", "runs", fmt.Sprint(run), "phase") }

// keepPlans takes the architect's phase off the finished run's branch,
// and puts STATE.md and ROADMAP.md, where the phase recorded its
// progress, back as they were when the run started, in hive's own commit,
// once the phase is copied to PlansPath; before the delivery, so that
// neither a merge, a push, nor a branch taken by hand brings it into the
// project. A delivery cut short and done again finds what it did: the
// copy only ever adds files (the worktree may hold part of the phase, or
// none, after a removal cut short), and the branch is set right from what
// its last commit holds. It returns notes for the user.
func (s *executor) keepPlans(ctx context.Context, snap pipeline.Snapshot) []string {
	phase := snap.Spec.PhaseDir
	if phase == "" || s.dir == "" {
		return nil
	}
	src := filepath.Join(s.dir, filepath.FromSlash(phase))
	dst := filepath.Join(s.o.Repo.Root, PlansPath(s.run.ID))
	if _, err := os.Stat(src); err == nil {
		if err := copyTree(src, dst); err != nil {
			return []string{fmt.Sprintf("could not keep the run's plans in %s (%v): they stay on its branch, in %s", PlansPath(s.run.ID), err, phase)}
		}
	}
	if _, err := os.Stat(dst); err != nil {
		// The run wrote no plans (a workflow without an architect): its
		// branch holds no phase, and STATE.md and ROADMAP.md are its
		// roles' to change.
		return nil
	}
	msg := fmt.Sprintf("chore(hive): run %d's plans are the run's, kept in %s", s.run.ID, filepath.ToSlash(PlansPath(s.run.ID)))
	base, paths := snap.Spec.Base, append([]string{phase}, runner.TrackingFiles...)
	if base == "" {
		// A run from before its base was recorded: its plans go, and
		// the files it cannot tell from the user's stay.
		base, paths = gitx.EmptyTree, paths[:1]
	}
	if err := s.o.Repo.At(s.dir).Restore(ctx, msg, base, paths...); err != nil {
		return []string{fmt.Sprintf("could not take the run's plans off its branch (%s): they stay there, in %s", oneLine(err.Error()), phase)}
	}
	os.RemoveAll(src) // what no commit held (a SUMMARY never committed) is in the copy
	return []string{fmt.Sprintf("the architect's plans are kept in %s, not in your .planning/phases", filepath.ToSlash(PlansPath(s.run.ID)))}
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
