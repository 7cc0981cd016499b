package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/plan/planpath"
)

// SpotCheck says whether a plan was finished before a run: its SUMMARY
// exists and does not say Self-Check: FAILED, as GSD itself decides. Its
// key files are not looked for: later phases move and delete files, and a
// finished plan must never run again (and overwrite its SUMMARY) for it.
// The reason says what failed.
func SpotCheck(ctx context.Context, repo *gitx.Repo, p *plan.Plan) (bool, string) {
	return Claim(ctx, repo, p, false, nil)
}

// Claim is SpotCheck; committed reads the files from the commit checked
// out instead of the folder, as a plan worktree's merge will see them: a
// SUMMARY an agent wrote but never committed (it was killed) does not count.
// With a run's scope (the commit the plan's work started after, see
// phase.PlanSpec.Since, and where its commits are looked up) it checks an
// agent's claim to have finished (seed 000 §2.2 step 4): the first two key
// files the SUMMARY says it created exist, and a commit of the plan made in
// that run exists: a commit an earlier milestone made for the same plan id
// never vouches for this plan's work.
func Claim(ctx context.Context, repo *gitx.Repo, p *plan.Plan, committed bool, scope *Scope) (bool, string) {
	read := func(rels ...string) (map[string][]byte, error) {
		files := map[string][]byte{}
		for _, rel := range rels {
			data, err := os.ReadFile(filepath.Join(repo.Root, filepath.FromSlash(rel)))
			if err == nil {
				files[rel] = data
			} else if !os.IsNotExist(err) {
				return files, err
			}
		}
		return files, nil
	}
	if committed {
		read = func(rels ...string) (map[string][]byte, error) {
			// One git process for all of them: the SUMMARY, then its key
			// files, each a process of its own before.
			files, err := repo.FilesAt(ctx, "HEAD", rels)
			if err != nil {
				return nil, err
			}
			for _, rel := range rels {
				if _, ok := files[rel]; ok {
					continue
				}
				if _, statErr := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(rel))); statErr != nil {
					continue // in neither: missing
				}
				// On disk and not a file of the commit: a folder the commit
				// holds (a key file may name one), or not committed.
				if _, err := repo.Git(ctx, "cat-file", "-e", "HEAD:"+rel); err != nil {
					return files, fmt.Errorf("%s is not committed", rel)
				}
				files[rel] = nil
			}
			return files, nil
		}
	}
	return ClaimFrom(ctx, p, read, scope)
}

// FileReader reads the files rels name that exist: the map holds those
// found, a missing one is left out. The error is a failure to read one (or
// all), or, reading a commit, a file that exists but is not committed.
type FileReader func(rels ...string) (map[string][]byte, error)

// ClaimFrom is Claim on files read.
func ClaimFrom(ctx context.Context, p *plan.Plan, read FileReader, scope *Scope) (bool, string) {
	rel := p.SummaryPath()
	files, err := read(rel)
	if err != nil {
		return false, fmt.Sprintf("read %s: %v", rel, err)
	}
	data, ok := files[rel]
	if !ok {
		return false, "no SUMMARY at " + rel
	}
	s, _ := parse.Summary(rel, data) // never nil; a damaged file still shows its Self-Check line
	if s.SelfCheck == "FAILED" {
		return false, rel + " says Self-Check: FAILED"
	}
	if scope == nil {
		return true, ""
	}
	// The first two key files the SUMMARY says it created, read at once; a
	// name that is no safe path is told after those listed before it.
	var keys []string
	var badKey string
	for i, f := range s.KeyFilesCreated {
		if i == 2 {
			break
		}
		clean, err := planpath.SafeRelPath(f)
		if err != nil {
			badKey = fmt.Sprintf("%s lists key file %q: %v", rel, f, err)
			break
		}
		keys = append(keys, clean)
	}
	if len(keys) > 0 {
		found, _ := read(keys...) // a key file that cannot be read does not exist for the claim
		for _, k := range keys {
			if _, ok := found[k]; !ok {
				return false, fmt.Sprintf("%s lists key file %s as created, but it does not exist", rel, k)
			}
		}
	}
	if badKey != "" {
		return false, badKey
	}
	found, err := scope.Commits.HasPlanCommit(ctx, p.ID, scope.Since)
	if err != nil {
		return false, "look for commits: " + err.Error()
	}
	if !found {
		return false, "no commit of this run names plan " + p.ID
	}
	return true, ""
}

// Scope is where an agent's claim to have finished a plan is checked:
// its commits since the commit the plan's work started after.
type Scope struct {
	Since   string
	Commits Commits
}

// Commits looks up a plan's commits in the tree it works in.
type Commits interface {
	// HasPlanCommit reports whether a commit after since names plan id.
	HasPlanCommit(ctx context.Context, id, since string) (bool, error)
}
