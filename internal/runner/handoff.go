package runner

import (
	"time"

	"github.com/hivectl/hive/internal/runner/planning"
)

// PausedError ends a run that `hive pause` paused: every agent committed
// its work in progress and stopped, and Handoff (seed 001's handoff file, a
// view of the journal) says where the team stands. The run resumes with
// the same command.
type PausedError struct {
	Handoff string // the handoff file, repository-relative; "" if it could not be written
	At      time.Time
}

func (e *PausedError) Error() string {
	s := "the run is paused"
	if e.Handoff != "" {
		s += "; the team's handoff: " + e.Handoff
	}
	return s + "\nrun the same command again to resume"
}

// dropHandoff removes the handoff file of a paused run being resumed: it
// was a view of the journal at the pause, and would now mislead.
func (r *runner) dropHandoff() {
	if rel, removed := planning.DropHandoff(r.o.Repo.Root, r.o.Phase); removed {
		r.o.Observer.Note("", "removed "+rel+": the run goes on from its journal")
	}
}
