package temporal

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// liveWorker plays the executors of one worker process whose agents stop
// at a decision and wait, alive, for its answer (team mode): an answer
// that reaches another process is lost to the agent.
type liveWorker struct {
	name      string
	mu        sync.Mutex
	sessions  map[string]chan string // plan → where its answer goes
	misrouted *[]string
}

func (l *liveWorker) Execute(ctx context.Context, c phase.Command, _ string, _ phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	ev := func(t phase.EventType) phase.Event { return phase.Event{Type: t, Plan: c.Plan, Attempt: c.Attempt} }
	switch c.Type {
	case phase.CmdStartAgent:
		answer := make(chan string, 1)
		l.mu.Lock()
		l.sessions[c.Plan] = answer
		l.mu.Unlock()
		emit(phase.Event{Type: phase.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: 100})
		cp := ev(phase.EvCheckpoint)
		cp.Checkpoint = &phase.Checkpoint{Type: "decision", Done: 0, Total: 1, Options: []string{"json", "sqlite"}}
		emit(cp)
		select {
		case <-answer:
			return []phase.Event{ev(phase.EvPlanComplete), ev(phase.EvAgentExited)}, nil
		case <-time.After(20 * time.Second):
			exit := ev(phase.EvAgentExited)
			exit.ExitCode, exit.Reason = 1, "no answer reached the agent on "+l.name
			return []phase.Event{exit}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case phase.CmdSend:
		l.mu.Lock()
		answer, ok := l.sessions[c.Plan]
		if !ok {
			*l.misrouted = append(*l.misrouted, fmt.Sprintf("%s's answer reached %s", c.Plan, l.name))
		}
		l.mu.Unlock()
		if ok {
			answer <- c.Text
		}
	case phase.CmdSpotCheck:
		check := ev(phase.EvSpotChecked)
		check.OK = true
		return []phase.Event{check}, nil
	}
	return nil, nil
}

// TestDispatchSendsAnswersToTheSessionsWorker, on a real Temporal server
// with two worker processes' workers (NewWorkers): four agents stop at a
// decision, alive; --yes answers each at once, and every answer reaches the
// worker that holds its agent, whichever worker took the session.
func TestDispatchSendsAnswersToTheSessionsWorker(t *testing.T) {
	_, c := temporaltest.Start(t)
	queue := "hive-test-route"
	var mu sync.Mutex
	var misrouted []string
	workers := []*liveWorker{}
	for _, name := range []string{"a", "b"} {
		lw := &liveWorker{name: name, sessions: map[string]chan string{}, misrouted: &misrouted}
		workers = append(workers, lw)
		ws := NewWorkers(c, queue, lockedExec{&mu, lw}, worker.Options{})
		if err := ws.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ws.Stop)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := &phase.RunSpec{Phase: "01", MaxConcurrent: 4, Team: true, AutoAnswer: true}
	for _, id := range []string{"01-01", "01-02", "01-03", "01-04"} {
		spec.Plans = append(spec.Plans, phase.PlanSpec{ID: id, Tasks: 1, Stops: []phase.Stop{{Task: 1, Type: "decision", Options: []string{"json", "sqlite"}}}})
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, snap := dispatchRun(ctx, t, c, queue, "hive-run-route", 10*time.Second, phase.Event{Type: phase.EvRunStarted, Time: start, Spec: spec})
	for _, p := range snap.Plans {
		if p.State != phase.Complete || p.Attempt != 1 {
			t.Errorf("%s: %s after %d attempts; want complete at once", p.Spec.ID, p.State, p.Attempt)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(misrouted) > 0 {
		t.Errorf("answers went to a worker without the session: %v", misrouted)
	}
	for _, w := range workers {
		if len(w.sessions) == 0 {
			t.Logf("worker %s held no session (the other took all four)", w.name)
		}
	}
}

// lockedExec guards the misrouted list the two workers share.
type lockedExec struct {
	mu *sync.Mutex
	lw *liveWorker
}

func (l lockedExec) Execute(ctx context.Context, c phase.Command, since string, snap phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	if c.Type == phase.CmdSend {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	return l.lw.Execute(ctx, c, since, snap, emit)
}

// heldSessions plays a worker whose agents report PLAN COMPLETE and then
// live on until they are stopped, as a CLI waits for its input to close.
// It notes whether each session's stop reached it: a cancelled activity
// context reaches a session only with its next heartbeat, seconds later.
type heldSessions struct {
	mu    sync.Mutex
	stops map[string]chan struct{} // plan/attempt → closed by the session's stop
	got   map[string]bool          // plan/attempt → its stop reached this worker
}

func (h *heldSessions) Execute(ctx context.Context, c phase.Command, _ string, _ phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	key := fmt.Sprintf("%s/%d", c.Plan, c.Attempt)
	ev := func(t phase.EventType) phase.Event { return phase.Event{Type: t, Plan: c.Plan, Attempt: c.Attempt} }
	switch c.Type {
	case phase.CmdStartAgent:
		stop := make(chan struct{})
		h.mu.Lock()
		h.stops[key] = stop
		h.mu.Unlock()
		emit(phase.Event{Type: phase.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: 100})
		emit(ev(phase.EvPlanComplete))
		select {
		case <-stop:
		case <-time.After(30 * time.Second): // the run's end does not wait for a stop that never comes
		}
		return []phase.Event{ev(phase.EvAgentExited)}, nil
	case phase.CmdStopAgent:
		h.mu.Lock()
		if stop, ok := h.stops[key]; ok && !h.got[key] {
			h.got[key] = true
			close(stop)
		}
		h.mu.Unlock()
	case phase.CmdSpotCheck:
		check := ev(phase.EvSpotChecked)
		check.OK = true
		return []phase.Event{check}, nil
	}
	return nil, nil
}

// TestDispatchStopsASessionOnItsWorker, on a real Temporal server: the
// engine stops each agent once its plan is complete, and the stop reaches
// the worker that holds the session (its own task queue), not only the
// session's activity context.
func TestDispatchStopsASessionOnItsWorker(t *testing.T) {
	_, c := temporaltest.Start(t)
	queue := "hive-test-stop"
	h := &heldSessions{stops: map[string]chan struct{}{}, got: map[string]bool{}}
	ws := NewWorkers(c, queue, h, worker.Options{})
	if err := ws.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := &phase.RunSpec{Phase: "01", MaxConcurrent: 2}
	for _, id := range []string{"01-01", "01-02"} {
		spec.Plans = append(spec.Plans, phase.PlanSpec{ID: id, Tasks: 1})
	}
	_, snap := dispatchRun(ctx, t, c, queue, "hive-run-stop", 10*time.Second, phase.Event{Type: phase.EvRunStarted, Time: time.Now(), Spec: spec})
	if snap.Outcome != phase.OutcomeComplete {
		t.Fatalf("the run ended %q", snap.Outcome)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, key := range []string{"01-01/1", "01-02/1"} {
		if !h.got[key] {
			t.Errorf("the stop of %s's session did not reach its worker (stops seen: %v)", key, h.got)
		}
	}
}
