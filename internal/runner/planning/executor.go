package planning

import (
	"context"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
)

// Files is the executor of the planning files hive writes while a run
// goes: an open checkpoint's .pending-checkpoint file, and, in the shared
// tree, STATE.md and ROADMAP.md as plans complete (in worktree mode they
// are written on the integration branch with each merge, and in both
// modes delivered when the run ends: the workspace's Finish).
type Files struct {
	root   string
	phase  *plan.Phase
	plans  map[string]*plan.Plan
	now    func() time.Time
	say    func(plan, text string)
	shared func() bool // no worktrees: the files are in the user's tree

	trackedAt time.Time // when STATE.md and ROADMAP.md were last written
}

// New makes the executor of the planning files of phase in the tree at
// root; shared says whether the run works in that tree (no worktrees), so
// that STATE.md and ROADMAP.md are written there as plans complete.
func New(root string, phase *plan.Phase, plans map[string]*plan.Plan, now func() time.Time, say func(plan, text string), shared func() bool) *Files {
	return &Files{root: root, phase: phase, plans: plans, now: now, say: say, shared: shared}
}

// Commands are the command types Files carries out.
var Commands = []phase.CommandType{phase.CmdCheckpointOpened, phase.CmdCheckpointClosed, phase.CmdPlanState}

func (f *Files) Execute(_ context.Context, c phase.Command, snap phase.Snapshot) {
	switch c.Type {
	case phase.CmdCheckpointOpened:
		if err := writePending(f.root, f.phase, c.Checkpoint); err != nil {
			f.say(c.Plan, err.Error())
		}
	case phase.CmdCheckpointClosed:
		RemovePending(f.root, f.phase, c.Plan)
	case phase.CmdPlanState:
		// Without worktrees the files are written in the user's tree as
		// plans complete, at most once a second (a thousand-plan roadmap
		// rewritten a thousand times was most of a large run's cost), and
		// committed once when the run ends.
		p := f.plans[c.Plan]
		if c.State != phase.Complete || p == nil || !f.shared() || time.Since(f.trackedAt) < time.Second {
			return
		}
		f.trackedAt = time.Now()
		if err := WriteTracking(f.root, f.phase, snap, nil, "Completed "+baseName(p.Path), f.now()); err != nil {
			f.say(c.Plan, "update STATE.md and ROADMAP.md: "+err.Error())
		}
	}
}

func baseName(path string) string { return path[strings.LastIndex(path, "/")+1:] }
