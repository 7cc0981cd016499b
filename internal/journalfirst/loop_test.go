package journalfirst

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

// event is a machine's event as the tests' host sees it: Note marks a
// pseudo-event, never journaled.
type event struct {
	Name string `json:"name"`
	Note bool   `json:"note,omitempty"`
}

// host records what its loop did, in order.
type host struct {
	j      *journaltest.Memory
	did    []string
	failOn string
}

func newHost(t *testing.T) (*host, *Loop[event], journal.Run) {
	t.Helper()
	h := &host{j: journaltest.NewMemory()}
	run, err := h.j.CreateRun("phase", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	l := New(Config[event]{
		Journal: h.j,
		Prepare: func(_ context.Context, ev *event) (journal.Entry, bool) {
			return journal.Entry{Type: "event", At: time.Unix(0, 0)}, !ev.Note
		},
		Aside: func(ev event) { h.did = append(h.did, "note "+ev.Name) },
		Step: func(_ context.Context, ev event) error {
			h.did = append(h.did, "step "+ev.Name)
			if ev.Name == h.failOn {
				return errors.New("refused")
			}
			return nil
		},
		Foreign: func(rec journal.Record) (event, bool) {
			var ev event
			err := json.Unmarshal(rec.Payload, &ev)
			return ev, err == nil && strings.HasPrefix(ev.Name, "answer")
		},
		Unwritable: "resume later",
	}, 8)
	l.Attach(run.ID, 0)
	return h, l, run
}

func (h *host) journaled(t *testing.T, run journal.Run) []string {
	t.Helper()
	recs, err := h.j.Events(run.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range recs {
		var ev event
		json.Unmarshal(r.Payload, &ev)
		names = append(names, ev.Name)
	}
	return names
}

func (h *host) appendForeign(t *testing.T, run journal.Run, name string) {
	t.Helper()
	payload, _ := json.Marshal(event{Name: name})
	if _, err := h.j.Append(run.ID, "event", time.Unix(0, 0), payload); err != nil {
		t.Fatal(err)
	}
}

// The loop journals events before it steps them, keeps notes out of the
// journal but in their turn, and steps what another process appended in
// the journal's order: what a replay of the journal steps.
func TestDrainStepsInTheJournalsOrder(t *testing.T) {
	h, l, run := newHost(t)
	l.Post(event{Name: "started"})
	l.Send(event{Name: "said", Note: true})
	if err := l.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	// `hive answer` appends while the loop waits; a stranger's record too.
	h.appendForeign(t, run, "answer 1")
	h.appendForeign(t, run, "something else")
	l.Post(event{Name: "progress"})
	if err := l.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.appendForeign(t, run, "answer 2")
	if err := l.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.Poll(context.Background()); err != nil { // nothing new: nothing stepped twice
		t.Fatal(err)
	}
	want := []string{"step started", "note said", "step answer 1", "step progress", "step answer 2"}
	if !slices.Equal(h.did, want) {
		t.Errorf("did %q, want %q", h.did, want)
	}
	if got, want := h.journaled(t, run), []string{"started", "answer 1", "something else", "progress", "answer 2"}; !slices.Equal(got, want) {
		t.Errorf("journal holds %q, want %q", got, want)
	}
}

// A step's error ends the drain with it; a journal that cannot be written
// stops before anything is stepped, and says what to do.
func TestDrainStopsAtAnError(t *testing.T) {
	h, l, _ := newHost(t)
	h.failOn = "bad"
	l.Post(event{Name: "bad"}, event{Name: "after"})
	if err := l.Drain(context.Background()); err == nil || err.Error() != "refused" {
		t.Fatalf("err %v, want the step's", err)
	}
	if !slices.Equal(h.did, []string{"step bad"}) {
		t.Errorf("did %q after the refused step", h.did)
	}

	h2, l2, _ := newHost(t)
	l2.Attach(99, 0) // no such run: the journal refuses the append
	l2.Post(event{Name: "lost"})
	err := l2.Drain(context.Background())
	if err == nil || !strings.Contains(err.Error(), "resume later") {
		t.Fatalf("err %v, want the journal's, with what to do", err)
	}
	if len(h2.did) != 0 {
		t.Errorf("stepped %q without its journal record", h2.did)
	}
}

// Settle takes in what ending agents still send until they are gone; past
// its wait it asks overdue, and stops when overdue says so.
func TestSettle(t *testing.T) {
	h, l, _ := newHost(t)
	ending := make(chan struct{})
	go func() {
		l.Send(event{Name: "last usage"})
		close(ending)
	}()
	if err := l.Settle(context.Background(), []<-chan struct{}{ending}, time.Minute, func() time.Duration {
		t.Error("overdue asked although the agent ended")
		return 0
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.did, []string{"step last usage"}) {
		t.Errorf("did %q", h.did)
	}

	_, l2, _ := newHost(t)
	never := make(chan struct{})
	asked := 0
	if err := l2.Settle(context.Background(), []<-chan struct{}{never}, time.Millisecond, func() time.Duration {
		asked++
		if asked == 1 {
			return time.Millisecond // one more wait, as after a kill
		}
		return 0
	}); err != nil {
		t.Fatal(err)
	}
	if asked != 2 {
		t.Errorf("overdue asked %d times, want 2", asked)
	}
	l2.Close()
	l2.Send(event{Name: "after close"}) // dropped, never blocks
}
