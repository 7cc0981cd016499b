package executor

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/sim/session"
)

// Agent is a session as GSD's executor: the plan it carries out, once its
// prompt named one (Execute), and its answers after the plan's turn.
type Agent struct {
	*session.Session
	pr *planRun // nil until the first prompt named a plan
}

// New makes the executor of session s, with no plan loaded yet.
func New(s *session.Session) *Agent {
	return &Agent{Session: s}
}

// Answer answers a message that comes once the plan's turn ended (its
// turn started): a rollover request hands the plan over, unless the plan's
// faults ignore it; anything else gets a short reply, keeping the session
// alive until stdin closes.
func (a *Agent) Answer(msg string) {
	if isRollover(msg) && a.pr != nil && !a.ignoresRollover() {
		a.handOver()
		return
	}
	a.Out.Text(a.idleReply(msg))
	a.Out.EndTurn()
}

func (a *Agent) idleReply(msg string) string {
	switch {
	case a.pr == nil:
		return "No plan is loaded in this session."
	case strings.HasPrefix(strings.TrimSpace(msg), "CHECKPOINT_RESPONSE:"):
		return fmt.Sprintf("No checkpoint is pending for plan %s.", a.pr.p.ID)
	case a.pr.complete:
		return fmt.Sprintf("Plan %s is complete; nothing left to do.", a.pr.p.ID)
	case a.pr.rolledOver:
		return fmt.Sprintf("Plan %s was handed over at a context rollover; a fresh session goes on with it.", a.pr.p.ID)
	default:
		return fmt.Sprintf("Plan %s stopped; nothing left to do in this session.", a.pr.p.ID)
	}
}
