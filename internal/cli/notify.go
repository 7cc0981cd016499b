package cli

import (
	"fmt"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/notify"
	"github.com/hivectl/hive/internal/tui"
)

// notifyObserver calls the human (bell, desktop, webhook) when a checkpoint
// waits for one and when the run ends, then passes everything on to the
// observer that displays the run.
type notifyObserver struct {
	runnerObserver
	n     *notify.Notifier
	phase string
	seen  map[int]bool // checkpoints already notified
}

func newNotifyObserver(next runnerObserver, n *notify.Notifier, phase string) *notifyObserver {
	return &notifyObserver{runnerObserver: next, n: n, phase: phase, seen: map[int]bool{}}
}

func (o *notifyObserver) Command(c engine.Command, s engine.Snapshot) {
	o.runnerObserver.Command(c, s)
	switch c.Type {
	case engine.CmdCheckpointOpened, engine.CmdNeedHuman:
		cp := c.Checkpoint
		if cp == nil || o.seen[cp.ID] || !queued(s, cp.ID) {
			return // answered in the same step (--yes), or told already
		}
		o.seen[cp.ID] = true
		o.n.Send(notify.Message{
			Kind: notify.KindCheckpoint, Phase: s.Phase, Plan: cp.Plan,
			Title: fmt.Sprintf("hive: plan %s — %s", cp.Plan, tui.Title(*cp)),
			Text:  tui.YourAction(*cp),
		})
	case engine.CmdRunFinished:
		o.n.Send(notify.Message{
			Kind: notify.KindRunFinished, Phase: s.Phase, Outcome: c.Reason,
			Title: fmt.Sprintf("hive: phase %s finished: %s", s.Phase, c.Reason),
			Text: fmt.Sprintf("%d complete, %d failed, %d skipped", s.Count(engine.Complete),
				s.Count(engine.Failed), s.Count(engine.Skipped)),
		})
	}
}

func queued(s engine.Snapshot, id int) bool {
	for _, q := range s.Queue {
		if q.ID == id {
			return true
		}
	}
	return false
}
