package evaluation

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/roleplan"
)

// Scores are each role's computed confidence, from the checks hive runs
// itself in the run's worktree, as the run ends (before its worktree
// goes): one score per role that worked.
func (x *Evaluator) Scores(snap roleplan.Snapshot) []confidence.Score {
	ev := x.evidence(snap.Spec.Base)
	var scores []confidence.Score
	seen := map[string]bool{}
	for _, j := range snap.Jobs {
		if j.Attempts == 0 || seen[j.Role] {
			continue
		}
		seen[j.Role] = true
		if sc, _ := x.checkRole(j.Role, snap, ev); sc != nil {
			scores = append(scores, *sc)
		}
	}
	return scores
}

// confidencePlan is what the architect's checks read of a plan.
func confidencePlan(p *plan.Plan) confidence.Plan {
	out := confidence.Plan{Text: p.Context + "\n" + p.Objective}
	for _, t := range p.Tasks {
		out.Tasks = append(out.Tasks, confidence.Task{Action: t.Action, ReadFirst: t.ReadFirst, Verify: t.Verify, Done: t.Done + t.AcceptanceCriteria})
	}
	return out
}

func (x *Evaluator) roleOf(snap roleplan.Snapshot, job string) string {
	for _, j := range snap.Jobs {
		if j.ID == job {
			return j.Role
		}
	}
	return ""
}

// lineCount is a worktree file's number of lines, and whether it is one.
func (x *Evaluator) lineCount(rel string) (int, bool) {
	if !filepath.IsLocal(rel) {
		return 0, false
	}
	data, err := os.ReadFile(filepath.Join(x.Checks.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return 0, false
	}
	return bytes.Count(data, []byte("\n")) + 1, true
}
