package runnertest

import (
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// Inbox records what an executor of the runner reports (runner.Inbox), as
// the loop would take it: Posted on the loop's goroutine, Next what was
// sent from another, Notes what it said.
type Inbox struct {
	mu     sync.Mutex
	Posted []phase.Event
	sent   chan phase.Event
	Notes  []string
}

// NewInbox is an empty Inbox.
func NewInbox() *Inbox { return &Inbox{sent: make(chan phase.Event, 16)} }

func (b *Inbox) Post(ev phase.Event) { b.Posted = append(b.Posted, ev) }
func (b *Inbox) Send(ev phase.Event) { b.sent <- ev }
func (b *Inbox) Note(plan, text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.Notes = append(b.Notes, plan+": "+text)
}

// Next is the next event sent; the test fails when none comes in 10 s.
func (b *Inbox) Next(t *testing.T) phase.Event {
	t.Helper()
	select {
	case ev := <-b.sent:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event sent")
		return phase.Event{}
	}
}
