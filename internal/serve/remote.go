package serve

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
)

// KindTemporal is a phase run kept by a Temporal workflow (hive
// execute-phase --backend temporal), which no journal here holds.
const KindTemporal = "temporal"

// Remote is where the runs of another backend live: the Temporal
// workflows of the repository's phases. hive serve shows them beside the
// journals' runs, from the engine state each workflow answers, and sends
// their answers to the workflow; the package that talks to the server
// implements it.
type Remote interface {
	// Runs are the backend's runs of this repository now, with their
	// state. A run whose state could not be read is left out.
	Runs(ctx context.Context) ([]RemoteRun, error)
	// Answer gives text to checkpoint cp of plan, open in run's state.
	Answer(ctx context.Context, run RemoteRun, plan string, cp int, text string) error
}

// RemoteRun is one run of a Remote.
type RemoteRun struct {
	// Workflow names the run on its backend; its view's key is
	// temporal-N, N a number drawn from it.
	Workflow string
	Started  time.Time
	// Finished is zero while the workflow runs.
	Finished time.Time
	Snap     engine.Snapshot
}

// remotePoll is how often the remote runs are read: each read is a round
// trip per phase to the server, and a query a worker answers.
const remotePoll = time.Second

// remoteID is the number of a workflow's view: stable across restarts of
// hive serve, positive.
func remoteID(workflow string) int64 {
	h := fnv.New32a()
	h.Write([]byte(workflow))
	return int64(h.Sum32()) + 1
}

// remoteError is a failure to read the remote runs: told, not fatal, since
// the server or its workers may come back.
type remoteError struct{ err error }

func (e *remoteError) Error() string { return "read the Temporal runs: " + e.err.Error() }
func (e *remoteError) Unwrap() error { return e.err }

// fetchRemote reads the remote runs when remotePoll has passed since the
// last read (ok true), without holding s.mu: a slow server must not stall
// the pages. An error is returned once, not every second while the server
// is away.
func (s *store) fetchRemote(now time.Time) (runs []RemoteRun, ok bool, err error) {
	if s.remote == nil {
		return nil, false, nil
	}
	s.remoteMu.Lock()
	defer s.remoteMu.Unlock()
	if now.Sub(s.remoteRead) < remotePoll {
		return nil, false, nil
	}
	s.remoteRead = now
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	runs, err = s.remote.Runs(ctx)
	switch {
	case err == nil:
		s.remoteFailed = ""
		return runs, true, nil
	case err.Error() == s.remoteFailed:
		return nil, false, nil
	default:
		s.remoteFailed = err.Error()
		return nil, false, &remoteError{err}
	}
}

// remoteNow makes the next refresh read the remote runs.
func (s *store) remoteNow() {
	s.remoteMu.Lock()
	s.remoteRead = time.Time{}
	s.remoteMu.Unlock()
}

// applyRemote renews the remote runs' views; true when one changed. The
// caller holds s.mu.
func (s *store) applyRemote(runs []RemoteRun) bool {
	before := s.nextID
	s.remoteKeys = s.remoteKeys[:0]
	for _, r := range runs {
		id := remoteID(r.Workflow)
		run := journal.Run{ID: id, Phase: r.Snap.Phase, Started: r.Started, Finished: r.Finished, Outcome: string(r.Snap.Outcome)}
		v := phaseView(KindTemporal, run, r.Snap, r.Finished.IsZero())
		v.Workflow = r.Workflow
		s.remotes[v.Key] = r
		s.setView(v)
		s.remoteKeys = append(s.remoteKeys, v.Key)
	}
	return s.nextID != before
}

// answerRemote sends an answer to a remote run's workflow.
func (s *Server) answerRemote(t target, text string) *answerError {
	s.store.mu.Lock()
	r, ok := s.store.remotes[t.run]
	s.store.mu.Unlock()
	if !ok || s.o.Remote == nil {
		return &answerError{http.StatusNotFound, fmt.Sprintf("no run %s here", t.run)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.o.Remote.Answer(ctx, r, t.plan, t.cp, text); err != nil {
		if errors.Is(err, ErrNotOpen) {
			return &answerError{http.StatusConflict, err.Error()}
		}
		s.logf("answer to %s/%s #%d: %v", t.run, t.plan, t.cp, err)
		return &answerError{http.StatusInternalServerError, "the answer could not be sent to the run's workflow (hive serve's log says why)"}
	}
	return nil
}

// ErrNotOpen is what a Remote's Answer says when the checkpoint is no
// longer open in the workflow's state.
var ErrNotOpen = errors.New("the checkpoint is no longer open")
