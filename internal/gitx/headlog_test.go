package gitx

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHeadLogAgreesWithGitLog walks a repository through what agents and
// users do to HEAD during a run (commits for plans, merges of side
// branches, amends, resets back, switching branches, a pack-refs) and after
// every step asks the HeadLog and git log the same questions, for two
// scopes: they must agree every time.
func TestHeadLogAgreesWithGitLog(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := newTestRepo(t)
			git := func(args ...string) string { t.Helper(); return mustGit(t, r, args...) }
			early := git("rev-parse", "HEAD")
			git("commit", "-q", "--allow-empty", "-m", "feat(01-01): before the run")
			base := git("rev-parse", "HEAD")
			l := r.NewHeadLog()
			defer l.Close()
			ids := []string{"01-01", "01-02", "02-01"}
			rng := rand.New(rand.NewPCG(seed, 7))
			var steps []string
			for step := range 60 {
				var what string
				switch k := rng.IntN(10); {
				case k < 5:
					id := ids[rng.IntN(len(ids))]
					msg := fmt.Sprintf("feat(%s): step %d", id, step)
					if rng.IntN(2) == 0 {
						msg = fmt.Sprintf("wip %d\n\nHive-Task: %s/%d", step, id, rng.IntN(3)+1)
					}
					git("commit", "-q", "--allow-empty", "-m", msg)
					what = "commit " + msg
				case k == 5:
					git("commit", "-q", "--amend", "--allow-empty", "-m", fmt.Sprintf("fix(01-02): amended at %d", step))
					what = "amend"
				case k == 6:
					back := rng.IntN(3) + 1
					if _, err := r.Git(ctx, "reset", "-q", "--hard", fmt.Sprintf("HEAD~%d", back)); err != nil {
						git("reset", "-q", "--hard", base)
					}
					what = fmt.Sprint("reset back ", back)
				case k == 7:
					side := fmt.Sprint("side", step)
					if _, err := r.Git(ctx, "branch", side, "HEAD~1"); err != nil {
						git("branch", side, "HEAD") // HEAD is the root
					}
					git("switch", "-q", side)
					git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("feat(02-01): on %s", side))
					git("switch", "-q", "-")
					git("merge", "-q", "--no-ff", "--no-edit", "-m", "merge (01-01) work", side)
					what = "merge " + side
				case k == 8:
					git("switch", "-q", "-c", fmt.Sprint("other", step), base)
					what = "switch to a new branch at the base"
				default:
					git("pack-refs", "--all")
					what = "pack-refs"
				}
				steps = append(steps, what)
				for _, since := range []string{base, early} {
					for _, id := range ids {
						want, err := r.PlanCommits(ctx, id, since, "HEAD")
						if err != nil {
							t.Fatal(err)
						}
						got, err := l.PlanCommits(ctx, id, since)
						if err != nil {
							t.Fatal(err)
						}
						// The same commits; git orders a merged branch's by
						// date, and these share their second.
						if !slices.Equal(sorted(hashes(got)), sorted(hashes(want))) {
							t.Fatalf("after %s: plan %s since %.7s: HeadLog %v, git log %v", strings.Join(steps, "; "), id, since, hashes(got), hashes(want))
						}
						recent, err := l.CommittedSince(ctx, id, since, time.Unix(0, 0))
						if err != nil || recent != (len(want) > 0) {
							t.Fatalf("after %s: CommittedSince(%s) = %v, %v; git log finds %d", what, id, recent, err, len(want))
						}
					}
				}
			}
		})
	}
}

// TestHeadLogOnAnUnbornBranchAndAfterClose: no commits yet means none
// found, and a closed HeadLog still answers, from git.
func TestHeadLogOnAnUnbornBranchAndAfterClose(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	base, _ := r.Git(ctx, "rev-parse", "HEAD")
	base = strings.TrimSpace(base)
	if _, err := r.Git(ctx, "switch", "-q", "--orphan", "fresh"); err != nil {
		t.Fatal(err)
	}
	l := r.NewHeadLog()
	if found, err := l.HasPlanCommit(ctx, "01-01", base); err != nil || found {
		t.Fatalf("unborn branch: found %v, %v", found, err)
	}
	if _, err := r.Git(ctx, "commit", "-q", "--allow-empty", "-m", "feat(01-01): first"); err != nil {
		t.Fatal(err)
	}
	if found, err := l.HasPlanCommit(ctx, "01-01", base); err != nil || !found {
		t.Fatalf("after the first commit: found %v, %v", found, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if found, err := l.HasPlanCommit(ctx, "01-01", base); err != nil || !found {
		t.Fatalf("after Close: found %v, %v", found, err)
	}
}

func hashes(cs []Commit) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Hash)
	}
	return out
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
