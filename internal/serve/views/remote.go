package views

import (
	"context"
	"errors"
	"hash/fnv"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
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
	Snap     phase.Snapshot
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

// RemoteError is a failure to read the remote runs: told, not fatal, since
// the server or its workers may come back.
type RemoteError struct{ err error }

func (e *RemoteError) Error() string { return "read the Temporal runs: " + e.err.Error() }
func (e *RemoteError) Unwrap() error { return e.err }

// fetchRemote reads the remote runs when remotePoll has passed since the
// last read (ok true), without holding s.mu: a slow server must not stall
// the pages. An error is returned once, not every second while the server
// is away.
func (s *Store) fetchRemote(now time.Time) (runs []RemoteRun, ok bool, err error) {
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
		return nil, false, &RemoteError{err}
	}
}

// RemoteNow makes the next Refresh read the remote runs.
func (s *Store) RemoteNow() {
	s.remoteMu.Lock()
	s.remoteRead = time.Time{}
	s.remoteMu.Unlock()
}

// Remote is the remote run whose view has key, as last read.
func (s *Store) Remote(key string) (RemoteRun, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.remotes[key]
	return r, ok
}

// applyRemote renews the remote runs' views; true when one changed. The
// caller holds s.mu.
func (s *Store) applyRemote(runs []RemoteRun) bool {
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

// ErrNotOpen is what a Remote's Answer says when the checkpoint is no
// longer open in the workflow's state.
var ErrNotOpen = errors.New("the checkpoint is no longer open")
