package piperun

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/piperun/delivery"
)

// The architect's phase is the run's, not the project's: its plans are
// written on the run's branch, where the implementers' phase needs them
// (its plans' worktrees and their SUMMARYs are made from commits), and
// taken off the branch before the work is delivered, kept under
// .hive/runs/N/phase, with what the phase recorded in STATE.md and
// ROADMAP.md (delivery.KeepPlans). The user's .planning never receives
// them.

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
	if s := delivery.BranchSlug(objective); s != "" {
		return s
	}
	return "objective"
}
