package journalfirst

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/journal"
)

// Config is what a host tells its loop about its machine's events E.
type Config[E any] struct {
	Journal journal.Journal
	// Prepare readies an event about to be journaled (stamps its time,
	// fills in what only the host knows) and says how to journal it: the
	// entry's Type and At (the loop encodes the payload). ok false marks
	// a pseudo-event of the host (a note for whoever watches), which is
	// never journaled and goes to Aside in its turn.
	Prepare func(ctx context.Context, ev *E) (entry journal.Entry, ok bool)
	// Aside handles a pseudo-event, in the batch's order.
	Aside func(ev E)
	// Share, if set, runs before a batch that holds events is journaled:
	// what those events follow must be where a later reader finds it.
	Share func(ctx context.Context, events []E) error
	// Appended, if set, runs once a batch is durable, before anything acts
	// on it.
	Appended func()
	// Step steps the machine with a journaled event and carries out its
	// commands. An error ends the loop.
	Step func(ctx context.Context, ev E) error
	// Foreign reads a record that another process appended; ok false
	// leaves it alone (only answers and the like may come from outside).
	Foreign func(rec journal.Record) (ev E, ok bool)
	// Unwritable tells the user what to do when the journal cannot be
	// written (the run stops).
	Unwritable string
}

// Loop queues a host's events, journals them and steps them. Post, Drain,
// Poll and Settle belong to the host's loop goroutine; Send may be called
// from any goroutine.
type Loop[E any] struct {
	c      Config[E]
	run    int64
	seen   int64 // the last journal record stepped
	queue  []E
	inputs chan E
	done   chan struct{}
	close  sync.Once
}

// New makes a loop whose Send buffers up to buffer events before it waits.
func New[E any](c Config[E], buffer int) *Loop[E] {
	return &Loop[E]{c: c, inputs: make(chan E, buffer), done: make(chan struct{})}
}

// Attach journals into run, whose records up to seen the machine has
// stepped already (0 for a new run).
func (l *Loop[E]) Attach(run, seen int64) { l.run, l.seen = run, seen }

// Post queues events, on the loop's goroutine.
func (l *Loop[E]) Post(evs ...E) { l.queue = append(l.queue, evs...) }

// Send hands ev to the loop from any goroutine; after Close it is dropped.
func (l *Loop[E]) Send(ev E) {
	select {
	case l.inputs <- ev:
	case <-l.done:
	}
}

// Inputs are the events sent, for the host's select: Post what it takes.
func (l *Loop[E]) Inputs() <-chan E { return l.inputs }

// Done is closed by Close.
func (l *Loop[E]) Done() <-chan struct{} { return l.done }

// Close ends the sends: producers never block on a loop that is gone.
func (l *Loop[E]) Close() { l.close.Do(func() { close(l.done) }) }

// Posted takes the events posted so far, for a host that carries commands
// out without journaling them (a distributed backend's worker).
func (l *Loop[E]) Posted() []E {
	q := l.queue
	l.queue = nil
	return q
}

// take moves the events sent so far into the queue, without waiting, so
// that they are journaled together.
func (l *Loop[E]) take() {
	for {
		select {
		case ev := <-l.inputs:
			l.queue = append(l.queue, ev)
		default:
			return
		}
	}
}

// Drain handles the queued events and those sent meanwhile, until none
// is left.
func (l *Loop[E]) Drain(ctx context.Context) error {
	for len(l.queue) > 0 {
		l.take()
		batch := l.Posted()
		if err := l.handle(ctx, batch); err != nil {
			return err
		}
	}
	return nil
}

// handle journals a batch in one durable write, then steps each event in
// order: persist first, then act, so a crash never acts on an unrecorded
// event.
func (l *Loop[E]) handle(ctx context.Context, batch []E) error {
	var entries []journal.Entry
	var events []E
	journaled := make([]bool, len(batch))
	for i := range batch {
		entry, ok := l.c.Prepare(ctx, &batch[i])
		if !ok {
			continue
		}
		payload, err := json.Marshal(batch[i])
		if err != nil {
			return fmt.Errorf("encode %s event: %w", entry.Type, err)
		}
		entry.Payload = payload
		entries = append(entries, entry)
		events = append(events, batch[i])
		journaled[i] = true
	}
	if l.c.Share != nil && len(events) > 0 {
		if err := l.c.Share(ctx, events); err != nil {
			return err
		}
	}
	seqs, err := journal.AppendAll(l.c.Journal, l.run, entries)
	if err != nil {
		return fmt.Errorf("journal: %w (%s)", err, l.c.Unwritable)
	}
	if l.c.Appended != nil {
		l.c.Appended()
	}
	for i, ev := range batch {
		if !journaled[i] {
			l.c.Aside(ev)
			continue
		}
		seq := seqs[0]
		seqs = seqs[1:]
		if seq > l.seen+1 {
			// Another process appended in between: its records are
			// stepped first, so the live order is the journal's and a
			// replay rebuilds the same state.
			if err := l.stepForeign(ctx, seq-1); err != nil {
				return err
			}
		}
		l.seen = seq
		if err := l.c.Step(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// Poll steps the records other processes appended since the last one seen.
func (l *Loop[E]) Poll(ctx context.Context) error { return l.stepForeign(ctx, -1) }

// stepForeign steps the records appended after the last one seen, up to
// and including upTo (all of them when upTo < 0).
func (l *Loop[E]) stepForeign(ctx context.Context, upTo int64) error {
	recs, err := l.c.Journal.Events(l.run, l.seen+1)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, rec := range recs {
		if upTo >= 0 && rec.Seq > upTo {
			break
		}
		l.seen = rec.Seq
		ev, ok := l.c.Foreign(rec)
		if !ok {
			continue
		}
		if err := l.c.Step(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// Settle journals and steps what the host's ending agents still say until
// each of ending is closed (an agent's last output is sent by then):
// above all the usage of the turns a stop interrupted, which their CLIs
// report as those turns end. After wait, overdue is asked how much longer
// to wait (it may kill what is left); 0 stops waiting.
func (l *Loop[E]) Settle(ctx context.Context, ending []<-chan struct{}, wait time.Duration, overdue func() time.Duration) error {
	gone := make(chan struct{})
	go func() {
		for _, c := range ending {
			<-c
		}
		close(gone)
	}()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		select {
		case ev := <-l.inputs:
			l.queue = append(l.queue, ev)
		case <-gone:
			l.take()
			return l.Drain(ctx)
		case <-deadline.C:
			more := overdue()
			if more <= 0 {
				return l.Drain(ctx)
			}
			deadline.Reset(more)
			continue
		}
		if err := l.Drain(ctx); err != nil {
			return err
		}
	}
}
