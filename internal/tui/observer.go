package tui

import (
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
)

// Observer is a runner.Observer that forwards to a bubbletea program. The
// runner calls it from its own goroutine and must never wait for the
// screen: messages are queued (snapshots coalesced to the latest) and one
// goroutine hands them to the program.
type Observer struct {
	send func(tea.Msg)

	mu      sync.Mutex
	pending []any
	snap    *phase.Snapshot
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
}

// NewObserver forwards to send (usually Program.Send) until Close.
func NewObserver(send func(tea.Msg)) *Observer {
	o := &Observer{send: send, wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go o.forward()
	return o
}

func (o *Observer) forward() {
	defer close(o.stopped)
	for {
		select {
		case <-o.stop:
			o.flush()
			return
		case <-o.wake:
			o.flush()
		}
	}
}

func (o *Observer) flush() {
	o.mu.Lock()
	batch := o.pending
	if o.snap != nil {
		batch = append(batch, SnapshotMsg{Snap: *o.snap})
	}
	o.pending, o.snap = nil, nil
	o.mu.Unlock()
	if len(batch) > 0 {
		o.send(batchMsg(batch))
	}
}

// Close forwards what is queued and stops.
func (o *Observer) Close() {
	close(o.stop)
	<-o.stopped
}

// Push queues any message for the program (BellMsg, FinishedMsg, ...).
func (o *Observer) Push(msg any) { o.push(msg, nil) }

func (o *Observer) push(msg any, s *phase.Snapshot) {
	o.mu.Lock()
	if msg != nil {
		o.pending = append(o.pending, msg)
	}
	if s != nil {
		o.snap = s
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Resumed implements runner.Observer.
func (o *Observer) Resumed(run journal.Run, s phase.Snapshot) {
	// The clock shows hive's working time: the time it was down before
	// this resume does not count.
	o.push(StartedMsg{Time: time.Now().Add(-s.Active)}, nil)
	o.push(LogMsg{Time: time.Now(), Text: ResumedText(run, s)}, &s)
}

// Event implements runner.Observer.
func (o *Observer) Event(ev phase.Event, s phase.Snapshot) {
	if ev.Type == phase.EvRunStarted {
		o.push(StartedMsg{Time: ev.Time}, nil)
	}
	var msg any
	if l, ok := EventLine(ev); ok {
		msg = LogMsg(l)
	}
	o.push(msg, &s)
}

// Command implements runner.Observer.
func (o *Observer) Command(c phase.Command, s phase.Snapshot) {
	var msg any
	if l, ok := CommandLine(c, time.Now()); ok {
		msg = LogMsg(l)
	}
	o.push(msg, &s)
}

// Note implements runner.Observer.
func (o *Observer) Note(plan, text string) {
	o.push(LogMsg{Time: time.Now(), Plan: plan, Text: "note: " + text}, nil)
}
