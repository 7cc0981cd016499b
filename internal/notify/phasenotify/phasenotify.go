package phasenotify

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/notify"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/serve"
	"github.com/hivectl/hive/internal/tui"
	"github.com/hivectl/hive/internal/work"
)

// Observer calls the human (bell, desktop, webhook) when a checkpoint
// waits for one, when a usage limit holds the run for hours, and when the
// run ends, then passes everything on to the observer that displays the
// run.
type Observer struct {
	runner.Observer
	n     *notify.Notifier
	phase string
	seen  map[int]bool // checkpoints already notified
	links *Links       // nil: no hive serve to link to
	// waited is the start of the last usage-limit wait told, so that a
	// wait is told once however often its end moves; onLimit is the run's
	// policy then.
	waited  time.Time
	onLimit work.OnLimit
}

// New is the Observer of a run of phase with the usage-limit policy
// onLimit, which tells n and then next; links (nil: none) link its
// checkpoints to hive serve.
func New(next runner.Observer, n *notify.Notifier, phase string, links *Links, onLimit work.OnLimit) *Observer {
	return &Observer{Observer: next, n: n, phase: phase, seen: map[int]bool{}, links: links, onLimit: onLimit}
}

// linkTTL is how long a notification's links work.
const linkTTL = 24 * time.Hour

// Links signs the links of notifications to hive serve's pages,
// with the repository's key (serve.LoadKey), for notifications.public_url.
type Links struct {
	base string
	key  []byte
}

// NewLinks is nil when notifications.public_url is unset; a key
// that cannot be read only costs the links, with a warning.
func NewLinks(cfg *config.Config, root string, warn func(string, ...any)) *Links {
	if cfg.Notifications.PublicURL == "" {
		return nil
	}
	key, err := serve.LoadKey(root)
	if err != nil {
		warn("no links to hive serve in notifications: %v", err)
		return nil
	}
	return &Links{base: strings.TrimRight(cfg.Notifications.PublicURL, "/"), key: key}
}

// add puts the links of checkpoint cp of phase into m: one that opens its
// page, and one per answer a button would give.
func (l *Links) add(m *notify.Message, phaseDir string, cp phase.Checkpoint) {
	exp := time.Now().Add(linkTTL).Unix()
	link := serve.Link{Phase: phaseDir, Plan: cp.Plan, Checkpoint: cp.ID, Expires: exp}
	open := link
	open.Action = serve.LinkOpen
	m.URL = l.base + serve.SignLink(l.key, open)
	var answers []string
	switch {
	case cp.Kind == phase.KindCheckpoint && cp.Type == "human-verify":
		answers = []string{"approved"}
	case cp.Kind == phase.KindCheckpoint && cp.Type == "decision":
		answers = cp.Options
	case cp.Kind == phase.KindCheckpoint && (cp.Type == "human-action" || cp.Type == "auth-gate"):
		answers = []string{"done"}
	}
	for _, a := range answers {
		if m.Answers == nil {
			m.Answers = map[string]string{}
		}
		ans := link
		ans.Action, ans.Answer = serve.LinkAnswer, a
		m.Answers[a] = l.base + serve.SignLink(l.key, ans)
	}
}

func (o *Observer) Command(c phase.Command, s phase.Snapshot) {
	o.Observer.Command(c, s)
	switch c.Type {
	case phase.CmdCheckpointOpened, phase.CmdNeedHuman:
		cp := c.Checkpoint
		if cp == nil || o.seen[cp.ID] || !queued(s, cp.ID) {
			return // answered in the same step (--yes), or told already
		}
		o.seen[cp.ID] = true
		m := notify.Message{
			Kind: notify.KindCheckpoint, Phase: s.Phase, Plan: cp.Plan,
			Title: fmt.Sprintf("hive: plan %s — %s", cp.Plan, tui.Title(*cp)),
			Text:  tui.YourAction(*cp),
		}
		if o.links != nil {
			o.links.add(&m, s.Phase, *cp)
		}
		o.n.Send(m)
	case phase.CmdWake:
		// A usage limit's wait lasts hours: the human may want to know, and
		// to go on sooner. A rate limit's backoff passes within minutes.
		if w := s.Limit; w != nil && w.Kind == work.LimitUsage && !w.Since.Equal(o.waited) {
			o.waited = w.Since
			then := "the run goes on by itself then (hive answer limit resume-now goes on sooner)"
			if o.onLimit == work.OnLimitStop {
				then = "the run stops once the agents at work end their turns; the same command goes on"
			}
			o.n.Send(notify.Message{
				Kind: notify.KindLimit, Phase: s.Phase, Plan: w.Job, Until: w.Until,
				Title: fmt.Sprintf("hive: phase %s meets the usage limit", s.Phase),
				Text:  fmt.Sprintf("%s; %s", strings.TrimPrefix(w.Resets(), "it "), then),
			})
		}
	case phase.CmdRunFinished:
		o.n.Send(notify.Message{
			Kind: notify.KindRunFinished, Phase: s.Phase, Outcome: c.Reason,
			Title: fmt.Sprintf("hive: phase %s finished: %s", s.Phase, c.Reason),
			Text: fmt.Sprintf("%d complete, %d failed, %d skipped", s.Count(phase.Complete),
				s.Count(phase.Failed), s.Count(phase.Skipped)),
		})
	}
}

func queued(s phase.Snapshot, id int) bool {
	for _, q := range s.Queue {
		if q.ID == id {
			return true
		}
	}
	return false
}
