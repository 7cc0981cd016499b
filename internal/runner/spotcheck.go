package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
)

// SpotCheck says whether a plan was finished before a run: its SUMMARY
// exists and does not say Self-Check: FAILED, as GSD itself decides. Its
// key files are not looked for: later phases move and delete files, and a
// finished plan must never run again (and overwrite its SUMMARY) for it.
// The reason says what failed.
func SpotCheck(ctx context.Context, repo *gitx.Repo, p *plan.Plan) (bool, string) {
	return spotCheck(ctx, repo, p, false, nil)
}

// spotCheck is SpotCheck; committed reads the files from the commit checked
// out instead of the folder, as a plan worktree's merge will see them: a
// SUMMARY an agent wrote but never committed (it was killed) does not count.
// With a run's scope (the commit the plan's work started after, see
// engine.PlanSpec.Since, and where its commits are looked up) it checks an
// agent's claim to have finished (seed 000 §2.2 step 4): the first two key
// files the SUMMARY says it created exist, and a commit of the plan made in
// that run exists: a commit an earlier milestone made for the same plan id
// never vouches for this plan's work.
func spotCheck(ctx context.Context, repo *gitx.Repo, p *plan.Plan, committed bool, scope *claimScope) (bool, string) {
	read := func(rel string) ([]byte, error) {
		if committed {
			out, err := repo.Git(ctx, "show", "HEAD:"+rel)
			if err != nil {
				if _, statErr := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(rel))); statErr == nil {
					return nil, fmt.Errorf("%s is not committed", rel)
				}
				return nil, os.ErrNotExist
			}
			return []byte(out), nil
		}
		return os.ReadFile(filepath.Join(repo.Root, filepath.FromSlash(rel)))
	}
	return checkClaim(ctx, p, read, scope)
}

// mergedSummaries reads, for checkClaim, the SUMMARY of every plan of the
// phase as the integration branch holds it (nil without one), in one git
// process: a run's start checks them all, and each resume starts again.
func (r *runner) mergedSummaries(ctx context.Context) func(rel string) ([]byte, error) {
	if r.work.integ == nil {
		return nil
	}
	var paths []string
	for _, p := range r.o.Phase.Plans {
		paths = append(paths, p.SummaryPath())
	}
	files, err := r.o.Repo.At(r.work.integ.dir).FilesAt(ctx, "HEAD", paths)
	return func(rel string) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		if data, ok := files[rel]; ok {
			return data, nil
		}
		return nil, os.ErrNotExist
	}
}

// checkClaim is spotCheck on files read.
func checkClaim(ctx context.Context, p *plan.Plan, read func(rel string) ([]byte, error), scope *claimScope) (bool, string) {
	rel := p.SummaryPath()
	data, err := read(rel)
	if err != nil {
		if os.IsNotExist(err) {
			return false, "no SUMMARY at " + rel
		}
		return false, fmt.Sprintf("read %s: %v", rel, err)
	}
	s, _ := plan.ParseSummary(rel, data) // never nil; a damaged file still shows its Self-Check line
	if s.SelfCheck == "FAILED" {
		return false, rel + " says Self-Check: FAILED"
	}
	if scope == nil {
		return true, ""
	}
	for i, f := range s.KeyFilesCreated {
		if i == 2 {
			break
		}
		clean, err := plan.SafeRelPath(f)
		if err != nil {
			return false, fmt.Sprintf("%s lists key file %q: %v", rel, f, err)
		}
		if _, err := read(clean); err != nil {
			return false, fmt.Sprintf("%s lists key file %s as created, but it does not exist", rel, clean)
		}
	}
	found, err := scope.commits.HasPlanCommit(ctx, p.ID, scope.since)
	if err != nil {
		return false, "look for commits: " + err.Error()
	}
	if !found {
		return false, "no commit of this run names plan " + p.ID
	}
	return true, ""
}

// claimScope is where an agent's claim to have finished a plan is checked:
// its commits since the commit the plan's work started after.
type claimScope struct {
	since   string
	commits planLog
}
