package views

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/tui"
	"github.com/hivectl/hive/internal/work"
)

// Kinds of run.
const (
	KindPhase    = "phase"    // hive execute-phase: .hive/journal.db
	KindPipeline = "pipeline" // hive run: .hive/runs.db
	// KindTemporal (remote.go): a Temporal workflow's phase run.
)

// RunView is one run as the dashboard and the API show it.
type RunView struct {
	Key   string `json:"key"` // KIND-ID: the two journals number their runs apart
	Kind  string `json:"kind"`
	ID    int64  `json:"id"`
	Title string `json:"title"` // the phase, or hive run's objective
	// Workflow is the Temporal workflow of a temporal run.
	Workflow string     `json:"workflow,omitempty"`
	Phase    string     `json:"phase,omitempty"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished,omitempty"`
	Outcome  string     `json:"outcome,omitempty"`
	// State is "running" (a hive process drives it), "stopped" (resume it),
	// "waiting" (a question of hive run is open) or "finished".
	State   string  `json:"state"`
	Events  int64   `json:"events"`
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"cost_usd"`
	// Items are the run's plans (a phase run) or roles (hive run).
	Items       []ItemView       `json:"items"`
	Checkpoints []CheckpointView `json:"checkpoints"`
	// Limit is the run's wait for its provider's limit to pass (nil:
	// none); Fallback says a usage limit switched the run to the
	// fallback agent.
	Limit    *work.LimitWait `json:"limit,omitempty"`
	Fallback bool            `json:"fallback,omitempty"`
}

// ItemView is a plan or a role.
type ItemView struct {
	ID       string  `json:"id"`
	Name     string  `json:"name,omitempty"` // a plan's name, as hive plans shows it
	State    string  `json:"state"`
	Attempt  int     `json:"attempt"`
	Tasks    string  `json:"tasks,omitempty"`
	Detail   string  `json:"detail,omitempty"`
	Tokens   int64   `json:"tokens"`
	CostUSD  float64 `json:"cost_usd"`
	Finished bool    `json:"finished"`
}

// CheckpointView is an open checkpoint, with what its form offers.
type CheckpointView struct {
	Run    string `json:"run"` // the RunView's Key
	RunID  int64  `json:"run_id"`
	ID     int    `json:"id"`
	Plan   string `json:"plan"` // a plan, "verify", or a role of hive run
	Type   string `json:"type"`
	Title  string `json:"title"`
	Action string `json:"action"` // what the human is asked to do
	// Form is the form the page shows: verify (approve / report issues),
	// choice (one button per option), done (human-action), permission
	// (allow / deny / always) or text (free text).
	Form     string    `json:"form"`
	Options  []string  `json:"options,omitempty"`
	Details  string    `json:"details,omitempty"`
	Tool     string    `json:"tool,omitempty"`
	Input    string    `json:"input,omitempty"`
	Worktree string    `json:"worktree,omitempty"`
	Raised   time.Time `json:"raised,omitzero"`
}

// Event is what the event stream carries: a run's new view ("run"), or an
// answer the engine accepted ("answered"). ID orders them; a client that
// reconnects with Last-Event-ID is sent those it missed.
type Event struct {
	ID   int64           `json:"id"`
	Type string          `json:"type"`
	Run  string          `json:"run"`
	Data json.RawMessage `json:"data"`
}

// Answered is the data of an "answered" event.
type Answered struct {
	Run        string `json:"run"`
	Plan       string `json:"plan"`
	Checkpoint int    `json:"checkpoint"`
	Answer     string `json:"answer"`
	By         string `json:"by,omitempty"`
	Seq        int64  `json:"seq"`
}

// historySize is how many events a reconnecting client can catch up on.
const historySize = 8192

// Store follows the repository's journals, written by other processes, and
// keeps each run's view. Runs are replayed once, then only their new
// events are stepped.
type Store struct {
	root string
	mu   sync.Mutex
	// journals: nil until the file exists (serve never creates one).
	phaseJ, pipeJ journal.Journal
	phases        map[int64]*phaseRun
	pipes         map[int64]*pipeRun
	views         map[string]RunView
	maxCP         map[string]int // the highest checkpoint id each run has shown
	order         []string       // keys, newest run first

	nextID  int64
	history []Event // the last historySize events, oldest first
	subs    map[chan struct{}]struct{}

	// remote holds the runs of another backend (nil: none): remotes and
	// remoteKeys are their latest read (under mu).
	remote     Remote
	remotes    map[string]RemoteRun // by view key
	remoteKeys []string
	// remoteMu serializes the reads of the remote, every remotePoll, at
	// remoteRead last; remoteFailed is the last read's error, told once.
	remoteMu     sync.Mutex
	remoteRead   time.Time
	remoteFailed string
}

type phaseRun struct {
	eng     *engine.Engine
	lastSeq int64
	run     journal.Run
	live    bool
}

type pipeRun struct {
	m       *pipeline.Machine
	lastSeq int64
	run     journal.Run
}

// New returns a Store of the repository at root, with the runs of remote
// (nil: none).
func New(root string, remote Remote) *Store {
	return &Store{root: root, phases: map[int64]*phaseRun{}, pipes: map[int64]*pipeRun{},
		views: map[string]RunView{}, maxCP: map[string]int{}, subs: map[chan struct{}]struct{}{},
		remote: remote, remotes: map[string]RemoteRun{}}
}

func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range []journal.Journal{s.phaseJ, s.pipeJ} {
		if j != nil {
			j.Close()
		}
	}
	s.phaseJ, s.pipeJ = nil, nil
}

// openJournals opens the journals that exist now.
func (s *Store) openJournals() error {
	open := func(name string, to *journal.Journal) error {
		if *to != nil {
			return nil
		}
		path := filepath.Join(s.root, ".hive", name)
		if _, err := os.Stat(path); err != nil {
			return nil // nothing has run here yet
		}
		j, err := journal.Open(path)
		if err != nil {
			return fmt.Errorf("open journal %s: %w", path, err)
		}
		*to = j
		return nil
	}
	return errors.Join(open("journal.db", &s.phaseJ), open("runs.db", &s.pipeJ))
}

// Refresh reads what the journals and the remote backend gained since the
// last call, updates the views and tells the subscribers. An error of the
// remote backend is a *RemoteError, returned once the journals are read.
func (s *Store) Refresh() error {
	runs, fetched, remoteErr := s.fetchRemote(time.Now())
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.openJournals(); err != nil {
		return err
	}
	changed := fetched && s.applyRemote(runs)
	keys := slices.Clone(s.remoteKeys)
	if s.phaseJ != nil {
		runs, err := s.phaseJ.Runs()
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		for _, run := range runs {
			c, err := s.phaseRun(run)
			if err != nil {
				return err
			}
			changed = changed || c
			keys = append(keys, runKey(KindPhase, run.ID))
		}
	}
	if s.pipeJ != nil {
		runs, err := s.pipeJ.Runs()
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		for _, run := range runs {
			c, err := s.pipeRun(run)
			if err != nil {
				return err
			}
			changed = changed || c
			keys = append(keys, runKey(KindPipeline, run.ID))
		}
	}
	slices.SortStableFunc(keys, func(a, b string) int { return s.views[b].Started.Compare(s.views[a].Started) })
	s.order = keys
	if changed {
		for ch := range s.subs {
			select {
			case ch <- struct{}{}:
			default: // it has a wake-up pending already
			}
		}
	}
	return remoteErr
}

// phaseRun steps run's new events and renews its view; true when it
// changed.
func (s *Store) phaseRun(run journal.Run) (bool, error) {
	pr := s.phases[run.ID]
	if pr == nil {
		pr = &phaseRun{eng: engine.New()}
		s.phases[run.ID] = pr
	}
	live := false
	if run.Finished.IsZero() {
		_, live = lock.PhaseHolder(s.root, run.Phase)
	}
	if pr.run == run && pr.live == live && pr.lastSeq > 0 {
		return false, nil
	}
	pr.run, pr.live = run, live
	key := runKey(KindPhase, run.ID)
	recs, err := s.phaseJ.Events(run.ID, pr.lastSeq+1)
	if err != nil {
		return false, fmt.Errorf("journal run %d: %w", run.ID, err)
	}
	for _, rec := range recs {
		pr.lastSeq = rec.Seq
		var ev phase.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return false, fmt.Errorf("journal run %d event %d: %w", run.ID, rec.Seq, err)
		}
		// As a resume replays: a refused event changed nothing when it was
		// first stepped either.
		var open *phase.Checkpoint
		if ev.Type == phase.EvAnswer {
			open = openOf(pr.eng.Snapshot(), ev.Plan)
		}
		if _, err := pr.eng.Step(ev); err != nil || open == nil {
			continue
		}
		s.emit("answered", key, Answered{Run: key, Plan: ev.Plan, Checkpoint: open.ID, Answer: ev.Text, By: ev.By, Seq: rec.Seq})
	}
	v := phaseView(KindPhase, run, pr.eng.Snapshot(), live)
	s.setView(v)
	return true, nil
}

// openOf is the checkpoint plan waits at in snap, nil if none.
func openOf(snap phase.Snapshot, plan string) *phase.Checkpoint {
	for _, cp := range snap.Queue {
		if cp.Plan == plan {
			return &cp
		}
	}
	return nil
}

func (s *Store) pipeRun(run journal.Run) (bool, error) {
	pr := s.pipes[run.ID]
	if pr == nil {
		pr = &pipeRun{m: pipeline.New()}
		s.pipes[run.ID] = pr
	}
	if pr.run == run && pr.lastSeq > 0 {
		return false, nil
	}
	pr.run = run
	key := runKey(KindPipeline, run.ID)
	recs, err := s.pipeJ.Events(run.ID, pr.lastSeq+1)
	if err != nil {
		return false, fmt.Errorf("journal run %d: %w", run.ID, err)
	}
	for _, rec := range recs {
		pr.lastSeq = rec.Seq
		var ev roleplan.Event
		if json.Unmarshal(rec.Payload, &ev) != nil {
			continue // hive run's own records (the delivery) are no events
		}
		open := pr.m.Snapshot().Open
		if _, err := pr.m.Step(ev); err != nil || ev.Type != roleplan.EvAnswer || open == nil {
			continue
		}
		s.emit("answered", key, Answered{Run: key, Plan: open.Job, Checkpoint: open.ID, Answer: ev.Text, Seq: rec.Seq})
	}
	s.setView(pipeView(run, pr.m.Snapshot()))
	return true, nil
}

// setView stores v and tells its new state to the stream when it differs.
func (s *Store) setView(v RunView) {
	for _, c := range v.Checkpoints {
		s.maxCP[v.Key] = max(s.maxCP[v.Key], c.ID)
	}
	old, ok := s.views[v.Key]
	s.views[v.Key] = v
	if ok && sameJSON(old, v) {
		return
	}
	s.emit("run", v.Key, v)
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// emit appends an event to the history that the streams send.
func (s *Store) emit(typ, run string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		return // the views are plain data: this cannot fail
	}
	s.nextID++
	s.history = append(s.history, Event{ID: s.nextID, Type: typ, Run: run, Data: b})
	if len(s.history) > historySize {
		s.history = slices.Delete(s.history, 0, len(s.history)-historySize)
	}
}

// Since returns the events after id, and false when some of them are no
// longer kept (the client must then reload everything).
func (s *Store) Since(id int64) ([]Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.history) == 0 || id >= s.history[len(s.history)-1].ID {
		return nil, true
	}
	first := s.history[0].ID
	if id < first-1 {
		return slices.Clone(s.history), false
	}
	return slices.Clone(s.history[id-first+1:]), true
}

// Last is the id of the newest event.
func (s *Store) Last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextID
}

// Subscribe returns a channel that is signalled when events are added.
func (s *Store) Subscribe() (chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}
}

// Runs returns every run's view, newest first.
func (s *Store) Runs() []RunView {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RunView, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, s.views[k])
	}
	return out
}

// Run returns one run's view.
func (s *Store) Run(key string) (RunView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[key]
	return v, ok
}

// Checkpoints returns every open checkpoint, oldest run first... in the
// order of the runs, newest first, each run's queue in order.
func (s *Store) Checkpoints() []CheckpointView {
	var out []CheckpointView
	for _, v := range s.Runs() {
		out = append(out, v.Checkpoints...)
	}
	return out
}

// Lookup says whether checkpoint cp of plan is open in run, as the views
// stand, and whether the run and the plan are known at all. A checkpoint
// the views showed once and no longer show was answered: ids only grow.
func (s *Store) Lookup(run, plan string, cp int) (open, known, answered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[run]
	if !ok {
		return false, false, false
	}
	for _, c := range v.Checkpoints {
		if c.Plan == plan && c.ID == cp {
			return true, true, false
		}
	}
	for _, it := range v.Items {
		if it.ID == plan {
			return false, true, cp <= s.maxCP[run] || v.Finished != nil
		}
	}
	return false, false, false
}

// Journals are the journals the store reads: nil where none exists yet.
func (s *Store) Journals() (phase, pipe journal.Journal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.phaseJ, s.pipeJ
}

func runKey(kind string, id int64) string { return kind + "-" + strconv.FormatInt(id, 10) }

// ParseRunKey is the inverse of runKey; false for anything else, so that
// no parameter reaches a journal or a path unchecked.
func ParseRunKey(key string) (kind string, id int64, ok bool) {
	kind, num, found := strings.Cut(key, "-")
	if !found || (kind != KindPhase && kind != KindPipeline && kind != KindTemporal) || num == "" || len(num) > 18 {
		return "", 0, false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	id, err := strconv.ParseInt(num, 10, 64)
	return kind, id, err == nil && id > 0
}

// phaseView is a phase run's view; kind says where the run is kept
// (KindPhase, KindTemporal).
func phaseView(kind string, run journal.Run, snap phase.Snapshot, live bool) RunView {
	key := runKey(kind, run.ID)
	v := RunView{Key: key, Kind: kind, ID: run.ID, Title: "Phase " + snap.Phase, Phase: snap.Phase, Started: run.Started, Events: run.Events, Outcome: run.Outcome}
	switch {
	case !run.Finished.IsZero():
		f := run.Finished
		v.Finished, v.State = &f, "finished"
	case live:
		v.State = "running"
	default:
		v.State = "stopped"
	}
	v.Limit, v.Fallback = snap.Limit, snap.Fallback
	for _, p := range snap.Plans {
		it := ItemView{ID: p.Spec.ID, Name: p.Spec.Name, State: string(p.State), Attempt: p.Attempt, Tasks: fmt.Sprintf("%d/%d", p.TasksDone, p.Spec.Tasks),
			Tokens: p.InputTokens + p.OutputTokens, CostUSD: p.CostUSD, Finished: p.State.Final()}
		switch {
		case p.Reason != "":
			it.Detail = p.Reason
		case !p.State.Final():
			// The last PROGRESS line (a task's commit subject) says what
			// the agent does now; once the plan is done its name says it.
			it.Detail = p.Progress
		}
		v.Items = append(v.Items, it)
		v.Tokens += it.Tokens
		v.CostUSD += it.CostUSD
	}
	for _, jb := range snap.Jobs() {
		if jb.Kind != phase.JobVerify {
			continue // the plans are above; a resolver's spend is in its plan's
		}
		it := ItemView{ID: jb.ID, State: jb.State, Attempt: jb.Attempts, Detail: jb.Stage, Tokens: jb.InputTokens + jb.OutputTokens, CostUSD: jb.CostUSD}
		v.Items = append(v.Items, it)
		v.Tokens += it.Tokens
		v.CostUSD += it.CostUSD
	}
	for _, cp := range snap.Queue {
		form, options := formOf(cp)
		v.Checkpoints = append(v.Checkpoints, CheckpointView{Run: key, RunID: run.ID, ID: cp.ID, Plan: cp.Plan, Type: cp.Type,
			Title: tui.Title(cp), Action: tui.YourAction(cp), Form: form, Options: options, Details: cp.Details,
			Tool: cp.Tool, Input: cp.Input, Worktree: cp.Worktree, Raised: cp.Raised})
	}
	return v
}

// formOf picks the form for a checkpoint of a phase run, and its buttons'
// answers when it is a choice.
func formOf(cp phase.Checkpoint) (string, []string) {
	switch {
	case cp.Kind == phase.KindPermission:
		return "permission", nil
	case cp.Kind == phase.KindFailure:
		return "choice", cp.Options
	case cp.Kind == phase.KindMerge:
		return "choice", []string{"done", "abort"}
	case cp.Kind == phase.KindDeviation && len(cp.Options) > 0:
		return "choice", cp.Options
	case cp.Type == "human-verify":
		return "verify", nil
	case cp.Type == "decision" && len(cp.Options) > 0:
		return "choice", cp.Options
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return "done", nil
	}
	return "text", nil
}

func pipeView(run journal.Run, snap roleplan.Snapshot) RunView {
	key := runKey(KindPipeline, run.ID)
	v := RunView{Key: key, Kind: KindPipeline, ID: run.ID, Title: snap.Spec.Objective, Started: run.Started, Events: run.Events, Outcome: run.Outcome}
	switch {
	case !run.Finished.IsZero():
		f := run.Finished
		v.Finished, v.State = &f, "finished"
	case snap.Open != nil:
		v.State = "waiting"
	default:
		v.State = "running"
	}
	v.Limit, v.Fallback = snap.Limit, snap.Fallback
	for _, jb := range snap.Jobs {
		it := ItemView{ID: jb.ID, State: string(jb.State), Attempt: jb.Attempts, Tokens: jb.Spend.InputTokens + jb.Spend.OutputTokens, CostUSD: jb.Spend.CostUSD}
		if jb.Report != nil {
			it.Detail = jb.Report.Summary
		}
		if jb.ID == roleplan.FollowJob {
			it.Detail = snap.Follow.Text() // each round of the followed pull request
		}
		it.Finished = jb.State == roleplan.Done || jb.State == roleplan.Skipped
		v.Items = append(v.Items, it)
		v.Tokens += it.Tokens
		v.CostUSD += it.CostUSD
	}
	if cp := snap.Open; cp != nil {
		form := "choice"
		if cp.Kind == roleplan.KindNeedsInput && len(cp.Options) == 0 {
			form = "text"
		}
		action := "Select: " + strings.Join(cp.Options, ", ")
		if form == "text" {
			action = "Type your answer"
		}
		v.Checkpoints = append(v.Checkpoints, CheckpointView{Run: key, RunID: run.ID, ID: cp.ID, Plan: cp.Job, Type: string(cp.Kind),
			Title: cp.Question, Action: action, Form: form, Options: cp.Options, Details: cp.Details})
	}
	return v
}
