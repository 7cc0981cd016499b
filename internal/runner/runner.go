package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/plan"
)

// Options is what a run needs. The CLI fills it from flags and config.
// Options is what a run needs: where (Repo, Phase, Journal), who watches
// (Observer), and how its agents, its human and its git work are set up.
type Options struct {
	Repo     *gitx.Repo
	Phase    *plan.Phase
	Journal  journal.Journal
	Observer Observer
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	Schedule Schedule
	Agents   Agents
	Human    Human
	Git      Git
}

// Schedule says which run to make and how many plans run at once.
type Schedule struct {
	MaxConcurrent int
	Dynamic       bool
	// Fresh abandons the phase's unfinished run, if any, and starts a new one.
	Fresh bool
	// Rerun starts a new run of a phase whose plans are all complete, to
	// verify it again; without it such a phase is nothing to do.
	Rerun bool
	// Verify verifies the phase once every plan is complete (workflow.verifier).
	Verify bool
	// Since is the commit a new run's work starts after; "" means the tip
	// it starts from. Only `hive bench`, whose projects hold the agents'
	// commits before the run, sets it.
	Since string
}

// Agents are the agent programs of a run and how they are watched.
type Agents struct {
	Launcher agent.Launcher
	// Roles are the agents of the other roles: "comb" resolves merge
	// conflicts, "verifier" verifies the phase. A missing role is skipped
	// (a conflict goes straight to a human; verification is mechanical only).
	Roles map[string]agent.Launcher
	// Team: live sessions, whose executor prompt carries <team_protocol>.
	Team bool
	// Retries is how many continuations replace a crashed or hung agent
	// before the human is asked (retries.agent).
	Retries int
	// Stall is how long an agent may print nothing before it is judged hung
	// and killed with its process group (timeouts.stall). Zero means 5 min.
	Stall time.Duration
	// StopGrace is how long an agent whose input was closed may take to exit
	// before its process group is killed. Zero means 5 s.
	StopGrace time.Duration
}

// Human says who answers checkpoints, and how.
type Human struct {
	// AutoAnswer answers what an unattended run may answer (--yes).
	AutoAnswer bool
	// Interactive says a human watches this process and can answer in it
	// (Answers). Without one, an unattended run stops with NeedsHumanError
	// at a checkpoint only a human may answer; an attended run without a
	// terminal waits for `hive answer` from another terminal.
	Interactive bool
	// Answers carries answers typed in this process's terminal.
	Answers <-chan Answer
	// Wait bounds how long a run that no human watches here (not
	// Interactive) waits for `hive answer` once nothing else can progress:
	// then it keeps the open checkpoints, ends its agents and stops with
	// NeedsHumanError, to be resumed later. Zero stops at once; a negative
	// value waits for ever (checkpoint_wait).
	Wait time.Duration
	// PollInterval is how often the journal is read for answers given with
	// `hive answer` from another process. Zero means 100 ms.
	PollInterval time.Duration
}

// Git says where plans work and how their work is merged.
type Git struct {
	// Worktrees gives each plan a git worktree and branch of its own, merged
	// into the integration branch when the plan completes
	// (workflow.use_worktrees).
	Worktrees bool
	// WorktreeRoot is where worktrees go (git.worktree_dir); "" means the
	// user's cache folder, keyed by repository.
	WorktreeRoot string
	// Branching is git.branching_strategy: BranchingNone or BranchingPhase.
	Branching string
	// AllowDirty runs even though the user's working tree has uncommitted
	// changes (which the agents, working from commits, do not see).
	AllowDirty bool
	// Setup prepares each new plan worktree (workflow.worktree_setup).
	Setup Setup
	// GateCommand runs after each merge (gates.post_merge_command); "" for none.
	GateCommand string
}

// Observer is told everything that happens, for display. It is called from
// the runner's goroutine only.
type Observer interface {
	// Resumed: a run is taken over from a journal; snap is the replayed state.
	Resumed(run journal.Run, snap engine.Snapshot)
	// Event: an input event, already journaled, and the state after it.
	Event(ev engine.Event, snap engine.Snapshot)
	// Command: an engine command, and the state after the event that caused it.
	Command(c engine.Command, snap engine.Snapshot)
	// Note: something worth saying that is not an event (unparseable agent output, ...).
	Note(plan, text string)
}

// Result is how a run ended.
type Result struct {
	Run      journal.Run
	Resumed  bool
	Snapshot engine.Snapshot
	// Commits counts each plan's commits made in this run (across its
	// resumes), never those of earlier work that reused the plan's id.
	Commits map[string]int
	// NothingToDo: every plan of the phase was already complete, so no run
	// was started (Options.Rerun starts one anyway).
	NothingToDo bool
}

// Answer is a human's answer to a plan's open checkpoint.
type Answer = engine.Answer

// NeedsHumanError stops an unattended run without a terminal at a
// checkpoint that only a human may answer. The run can be resumed after
// `hive answer`.
type NeedsHumanError struct {
	Checkpoints []engine.Checkpoint
}

func (e *NeedsHumanError) Error() string {
	var b strings.Builder
	b.WriteString("a human must answer before this run can go on:")
	for _, cp := range e.Checkpoints {
		fmt.Fprintf(&b, "\n  plan %s, %s %s: %s", cp.Plan, cp.Kind, cp.Type, oneLine(cp.Awaiting))
		fmt.Fprintf(&b, "\n    hive answer %s \"...\"", cp.Plan)
	}
	b.WriteString("\nthen run the same command again to resume")
	return b.String()
}

// ErrInterrupted is returned when the context ended the run before every
// plan was final; the run can be resumed.
var ErrInterrupted = errors.New("run interrupted")

type sessionKey struct {
	plan    string
	attempt int
}

type runner struct {
	o        Options
	run      journal.Run
	eng      *engine.Engine
	plans    map[string]*plan.Plan
	inputs   chan engine.Event
	queue    []engine.Event
	sessions map[sessionKey]agent.Session
	done     chan struct{} // closed when the loop ends, so producers never block forever
	doneOnce sync.Once
	finished bool
	integ    *integration // worktree mode: the integration branch and the plans' worktrees
	// scope maps each plan to the commit its work in this run starts after
	// (engine.PlanSpec.Since): only later commits are the plan's.
	scope map[string]string

	mu   sync.Mutex                   // guards held
	held map[sessionKey]*engine.Event // PLAN COMPLETE waiting for the end of its turn

	tmpl      *template.Template // the executor prompt
	lastSeq   int64              // the last journal sequence number stepped
	stopHuman bool               // the engine stopped the run for a human (CmdStopForHuman)
	// silentAt holds the sessions whose silence was reported: when it may
	// be reported again, as the engine said (CmdWatch); zero until it says.
	silentAt  map[sessionKey]time.Time
	trackedAt time.Time // shared tree: when STATE.md and ROADMAP.md were last written
}

// Run executes a phase, or resumes its unfinished run, until every plan is
// final or ctx ends.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Agents.StopGrace == 0 {
		o.Agents.StopGrace = 5 * time.Second
	}
	if o.Agents.Stall == 0 {
		o.Agents.Stall = 5 * time.Minute
	}
	if o.Human.PollInterval == 0 {
		o.Human.PollInterval = 100 * time.Millisecond
	}
	r := &runner{
		o:        o,
		eng:      engine.New(),
		plans:    map[string]*plan.Plan{},
		inputs:   make(chan engine.Event, 256),
		sessions: map[sessionKey]agent.Session{},
		done:     make(chan struct{}),
		held:     map[sessionKey]*engine.Event{},
		silentAt: map[sessionKey]time.Time{},
	}
	defer r.stopProducers()
	for _, p := range o.Phase.Plans {
		r.plans[p.ID] = p
	}
	tmpl, err := loadPromptTemplate(o.Repo.Root)
	if err != nil {
		return Result{}, err
	}
	r.tmpl = tmpl
	release, err := lockPhase(o.Repo.Root, o.Phase.Dir)
	if err != nil {
		return Result{}, err
	}
	defer release()
	removeLeftovers(o.Repo.Root, o.Phase.Dir, func(text string) { o.Observer.Note("", text) })
	for _, pattern := range []string{"/.hive/", ".pending-checkpoint-*.json"} {
		if err := o.Repo.Exclude(ctx, pattern); err != nil {
			return Result{}, fmt.Errorf("keep hive's files out of git: %w", err)
		}
	}
	res, err := r.begin(ctx)
	if err == nil && res.NothingToDo {
		return res, nil
	}
	if err == nil && res.Resumed {
		err = r.keepMode(ctx)
	}
	if err == nil {
		err = r.loop(ctx)
	}
	res.Snapshot = r.eng.Snapshot()
	r.stopProducers()
	if r.integ != nil {
		r.integ.close()
	}
	res.Commits = r.commitCounts(ctx, res.Snapshot)
	switch {
	case r.integ != nil:
		if r.finished {
			for _, n := range r.integ.finish(ctx, res.Snapshot, r.scope) {
				r.o.Observer.Note("", n)
			}
		}
	case r.finished:
		r.commitTracking(ctx, res.Snapshot)
	}
	if r.finished {
		crashPoint("finished") // delivered, the end not yet recorded
		if ferr := r.o.Journal.FinishRun(r.run.ID, r.o.Now(), res.Snapshot.Outcome); ferr != nil {
			r.o.Observer.Note("", fmt.Sprintf("could not mark run %d finished: %v", r.run.ID, ferr))
		}
	}
	return res, err
}

// commitCounts counts each plan's commits of this run: on the integration
// branch for a merged plan, on its own branch for one that was not merged,
// in the tree's history without worktrees.
func (r *runner) commitCounts(ctx context.Context, snap engine.Snapshot) map[string]int {
	out := map[string]int{}
	logs := map[[2]string][]gitx.Commit{} // one log per scope and branch, however many plans share it
	for _, p := range snap.Plans {
		if p.Spec.Done || r.scope == nil {
			continue
		}
		ref := "HEAD"
		if r.integ != nil {
			ref = r.integ.branch
			if b := r.integ.planBranch(p.Spec.ID); p.State != engine.Complete && r.o.Repo.BranchExists(ctx, b) {
				ref = b
			}
		}
		key := [2]string{r.scope[p.Spec.ID], ref}
		cs, ok := logs[key]
		if !ok {
			var err error
			if cs, err = r.o.Repo.RangeCommits(ctx, key[0], ref); err != nil {
				continue
			}
			logs[key] = cs
		}
		n := 0
		for _, c := range cs {
			if c.ForPlan(p.Spec.ID) {
				n++
			}
		}
		out[p.Spec.ID] = n
	}
	return out
}

// keepMode runs a resumed run the way it started, with or without
// worktrees, whatever the configuration says now: a run begun in the
// shared tree (or by an older hive) must not have its plans' work left on
// branches nothing merges, and a worktree run must merge to the end.
func (r *runner) keepMode(ctx context.Context) error {
	want := r.eng.Snapshot().Worktrees
	switch {
	case want && r.integ == nil:
		if !r.o.Git.Worktrees {
			r.o.Observer.Note("", "this run started with worktrees: it goes on with them")
		}
		return r.openWorktrees(ctx)
	case !want && r.o.Git.Worktrees:
		r.o.Observer.Note("", "this run started in the shared working tree: it goes on there")
	}
	return nil
}

// openWorktrees readies worktree mode: the user's tree must hold no
// uncommitted change (the agents would not see it) unless AllowDirty, and
// the integration branch and its worktree are opened.
func (r *runner) openWorktrees(ctx context.Context) error {
	if r.integ != nil {
		return nil
	}
	if err := checkClean(ctx, r.o.Repo); err != nil && !r.o.Git.AllowDirty {
		return err
	} else if err != nil {
		r.o.Observer.Note("", "running with uncommitted changes (--allow-dirty): the agents work from your last commit and do not see them")
	}
	in, err := openIntegration(r.gitNotes(ctx, ""), r.o)
	if err != nil {
		return err
	}
	r.integ = in
	return nil
}

// stopProducers ends the goroutines' sends to the loop.
func (r *runner) stopProducers() { r.doneOnce.Do(func() { close(r.done) }) }

// checkClean refuses a working tree with uncommitted changes: plans run in
// worktrees made from commits, so an agent would not see them.
func checkClean(ctx context.Context, repo *gitx.Repo) error {
	all, err := repo.Dirty(ctx)
	if err != nil {
		return fmt.Errorf("look for uncommitted changes: %w", err)
	}
	var files []string
	for _, f := range all {
		if !isOwnFile(f) { // hive's own views are never the user's changes
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil
	}
	shown := files[:min(len(files), 8)]
	more := ""
	if len(files) > len(shown) {
		more = fmt.Sprintf("\n  … and %d more", len(files)-len(shown))
	}
	return fmt.Errorf("%w: %s has uncommitted changes:\n  %s%s\nhive runs each plan in a git worktree made from your commits, so the agents would not see them. Commit or stash them, or run again with --allow-dirty",
		ErrDirty, repo.Root, strings.Join(shown, "\n  "), more)
}

// ErrDirty refuses a run in a working tree with uncommitted changes.
var ErrDirty = errors.New("refusing to run")

func (r *runner) loop(ctx context.Context) error {
	watchdog := time.NewTicker(max(min(r.o.Agents.Stall/4, time.Second), 10*time.Millisecond))
	defer watchdog.Stop()
	poll := time.NewTicker(r.o.Human.PollInterval)
	defer poll.Stop()
	for !r.finished {
		for len(r.queue) > 0 {
			r.takeInputs()
			batch := r.queue
			r.queue = nil
			if err := r.handle(ctx, batch); err != nil {
				r.killAll()
				return err
			}
		}
		if r.finished {
			break
		}
		if r.stopHuman {
			r.stopAll()
			return &NeedsHumanError{Checkpoints: r.eng.Snapshot().Queue}
		}
		select {
		case ev := <-r.inputs:
			r.queue = append(r.queue, ev)
		case a := <-r.o.Human.Answers:
			r.queue = append(r.queue, engine.Event{Type: engine.EvAnswer, Plan: a.Plan, Text: a.Text, By: "terminal"})
		case <-poll.C:
			if err := r.pollJournal(ctx); err != nil {
				r.killAll()
				return err
			}
		case <-watchdog.C:
			r.watchSilence()
		case <-ctx.Done():
			r.killAll()
			return ErrInterrupted
		}
	}
	r.waitAgents(r.o.Agents.StopGrace + time.Second)
	return nil
}

// pollJournal steps the events other processes appended to the run: the
// answers given with `hive answer`.
func (r *runner) pollJournal(ctx context.Context) error {
	recs, err := r.o.Journal.Events(r.run.ID, r.lastSeq+1)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, rec := range recs {
		r.stepForeign(ctx, rec)
	}
	return nil
}

// stepForeign steps an event another process journaled. Only answers may
// come from outside; anything else is noted and left alone.
func (r *runner) stepForeign(ctx context.Context, rec journal.Record) {
	r.lastSeq = rec.Seq
	var ev engine.Event
	if err := json.Unmarshal(rec.Payload, &ev); err != nil || ev.Type != engine.EvAnswer {
		r.o.Observer.Note("", fmt.Sprintf("journal event %d (%s) from another process ignored", rec.Seq, rec.Type))
		return
	}
	r.step(ctx, ev)
}

// watchSilence reports agents silent for longer than the stall timeout to
// the engine, which pings them, then judges them by their commits, then has
// them killed. While the silence lasts, the next report waits for the time
// the engine asked for.
func (r *runner) watchSilence() {
	now := r.o.Now()
	for _, k := range r.sortedKeys() {
		s := r.sessions[k]
		select {
		case <-s.Done():
			continue
		default:
		}
		d := s.Silent(now)
		if d <= r.o.Agents.Stall {
			delete(r.silentAt, k)
			continue
		}
		if next, ok := r.silentAt[k]; ok && (next.IsZero() || now.Before(next)) {
			continue
		}
		r.silentAt[k] = time.Time{}
		r.queue = append(r.queue, engine.Event{Type: engine.EvSilent, Plan: k.plan, Attempt: k.attempt, Text: d.Round(time.Second).String()})
	}
}

// takeInputs moves the events the agents' goroutines have sent so far into
// the queue, without waiting, so that they are journaled together.
func (r *runner) takeInputs() {
	for {
		select {
		case ev := <-r.inputs:
			r.queue = append(r.queue, ev)
		default:
			return
		}
	}
}

// handle journals a batch of events in one durable write, then steps the
// engine with each in order and carries out its commands: persist first,
// then act, so a crash never acts on an unrecorded event.
func (r *runner) handle(ctx context.Context, batch []engine.Event) error {
	entries := make([]journal.Entry, 0, len(batch))
	for i := range batch {
		ev := &batch[i]
		if ev.Type == noteEvent {
			continue
		}
		if ev.Type == engine.EvAgentExited {
			delete(r.sessions, sessionKey{ev.Plan, ev.Attempt})
			delete(r.silentAt, sessionKey{ev.Plan, ev.Attempt})
		}
		ev.Time = r.o.Now().UTC()
		if ev.Checkpoint != nil && ev.Checkpoint.Worktree == "" {
			ev.Checkpoint.Worktree, ev.Checkpoint.Branch = r.planPlace(ctx, ev.Plan)
		}
		payload, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode %s event: %w", ev.Type, err)
		}
		entries = append(entries, journal.Entry{Type: string(ev.Type), At: ev.Time, Payload: payload})
	}
	seqs, err := journal.AppendAll(r.o.Journal, r.run.ID, entries)
	if err != nil {
		return fmt.Errorf("journal: %w (the run stops; run the command again to resume once the journal can be written)", err)
	}
	crashPoint("journal") // durable, not yet acted on
	for _, ev := range batch {
		if ev.Type == noteEvent {
			r.o.Observer.Note(ev.Plan, ev.Text)
			continue
		}
		seq := seqs[0]
		seqs = seqs[1:]
		if seq > r.lastSeq+1 {
			// Another process (`hive answer`) appended in between: step its
			// events first, so the live order is the journal's order and a
			// replay rebuilds the same state.
			recs, err := r.o.Journal.Events(r.run.ID, r.lastSeq+1)
			if err != nil {
				return fmt.Errorf("journal: %w", err)
			}
			for _, rec := range recs {
				if rec.Seq < seq {
					r.stepForeign(ctx, rec)
				}
			}
		}
		r.lastSeq = seq
		if ev.Type == engine.EvAgentStarted {
			crashPoint("agent", fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt), ev.Role) // journaled: a resume knows its pid
		}
		if err := r.step(ctx, ev); err != nil && (ev.Type == engine.EvRunStarted || ev.Type == engine.EvResumed) {
			// Without a started run nothing can ever happen: end it rather than wait forever.
			r.o.Journal.FinishRun(r.run.ID, r.o.Now(), "abandoned")
			return fmt.Errorf("run %d cannot start: %w", r.run.ID, err)
		}
	}
	return nil
}

// step applies a journaled event to the engine and carries out its commands.
func (r *runner) step(ctx context.Context, ev engine.Event) error {
	cmds, err := r.eng.Step(ev)
	if err != nil {
		r.o.Observer.Note(ev.Plan, fmt.Sprintf("event %s refused: %v", ev.Type, err))
		return err
	}
	snap := r.eng.Snapshot()
	r.o.Observer.Event(ev, snap)
	for _, c := range cmds {
		r.execute(ctx, c, snap)
	}
	return nil
}

func (r *runner) execute(ctx context.Context, c engine.Command, snap engine.Snapshot) {
	switch c.Type {
	case engine.CmdStartAgent:
		r.startAgent(ctx, c)
	case engine.CmdStopAgent:
		r.stopAgent(c)
	case engine.CmdSpotCheck:
		p := r.plans[c.Plan]
		repo, committed, since := r.planRepo(c.Plan), r.integ != nil, r.scope[c.Plan]
		go func() {
			ok, reason := false, "the plan file is no longer in the phase folder"
			if p != nil {
				ok, reason = spotCheck(ctx, repo, p, committed, &since)
			}
			r.send(engine.Event{Type: engine.EvSpotChecked, Plan: c.Plan, Attempt: c.Attempt, OK: ok, Reason: reason})
		}()
	case engine.CmdSend:
		text := messageText(c)
		if s := r.sessions[sessionKey{c.Plan, c.Attempt}]; s != nil {
			s.Touch() // its silence while it waited does not count
			delete(r.silentAt, sessionKey{c.Plan, c.Attempt})
			if err := s.Send(text); err != nil {
				r.o.Observer.Note(c.Plan, err.Error())
			}
		} else {
			r.o.Observer.Note(c.Plan, "no live agent to send to: "+clip(text, 80))
		}
	case engine.CmdPermission:
		s := r.sessions[sessionKey{c.Plan, c.Attempt}]
		switch {
		case c.Checkpoint == nil:
		case s == nil:
			r.o.Observer.Note(c.Plan, "no live agent to answer the permission request of "+c.Checkpoint.Tool)
		default:
			s.Touch() // its silence while it waited does not count
			delete(r.silentAt, sessionKey{c.Plan, c.Attempt})
			if err := s.AnswerPermission(c.Checkpoint.RequestID, c.Text == "allow", c.Checkpoint.Input, c.Reason); err != nil {
				r.o.Observer.Note(c.Plan, err.Error())
			}
		}
	case engine.CmdCheckpointOpened:
		if err := writePending(r.o.Repo.Root, r.o.Phase, c.Checkpoint); err != nil {
			r.o.Observer.Note(c.Plan, err.Error())
		}
	case engine.CmdCheckpointClosed:
		removePending(r.o.Repo.Root, r.o.Phase, c.Plan)
	case engine.CmdStopForHuman:
		r.stopHuman = true
	case engine.CmdWake:
		time.AfterFunc(max(c.At.Sub(r.o.Now()), 0), func() { r.send(engine.Event{Type: engine.EvWake}) })
	case engine.CmdWatch:
		if _, reported := r.silentAt[sessionKey{c.Plan, c.Attempt}]; reported {
			r.silentAt[sessionKey{c.Plan, c.Attempt}] = c.At
		}
	case engine.CmdCheckCommits:
		repo, since := r.planRepo(c.Plan), r.scope[c.Plan]
		go func() {
			recent, err := repo.CommittedSince(ctx, c.Plan, since, c.Since)
			if err != nil {
				r.note(c.Plan, "look for recent commits: "+err.Error())
			}
			r.send(engine.Event{Type: engine.EvCommitsChecked, Plan: c.Plan, Attempt: c.Attempt, OK: recent})
		}()
	case engine.CmdMerge, engine.CmdGate, engine.CmdVerify:
		r.integrate(ctx, c, snap)
	case engine.CmdPlanState:
		r.planSettled(ctx, c, snap)
	case engine.CmdRunFinished:
		// The run's end is recorded once its work is delivered (Run's
		// finish): a kill before that resumes the finished run to deliver it.
		r.finished = true
	}
	r.o.Observer.Command(c, snap)
}

// startAgent starts the agent a job asked for: a plan's executor, a
// resolver (role comb) of its merge conflict, or the phase's verifier. A
// start that fails is reported as the agent's exit, for the engine to judge.
func (r *runner) startAgent(ctx context.Context, c engine.Command) {
	failed := func(err error) {
		r.queue = append(r.queue, engine.Event{Type: engine.EvAgentExited, Plan: c.Plan, Attempt: c.Attempt, ExitCode: -1, Reason: err.Error()})
	}
	spec, launcher, err := r.agentSpec(ctx, c)
	if err != nil {
		failed(err)
		return
	}
	s, err := launcher.Start(ctx, spec, r.sink)
	if err != nil {
		failed(err)
		return
	}
	r.sessions[sessionKey{c.Plan, c.Attempt}] = s
	r.queue = append(r.queue, engine.Event{Type: engine.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: s.PID(), Role: c.Role})
}

func (r *runner) stopAgent(c engine.Command) {
	if s := r.sessions[sessionKey{c.Plan, c.Attempt}]; s != nil {
		if c.Kill {
			go s.KillStalled(c.Reason) // it may wait for an interrupt to land
			return
		}
		go s.Stop(r.o.Agents.StopGrace)
		return
	}
	// Not ours: an agent a previous hive process started. End it if it is
	// still there and still that plan's agent.
	if c.PID > 0 && agent.IsAgentOf(c.PID, c.Plan) {
		agent.KillGroup(c.PID)
		r.o.Observer.Note(c.Plan, fmt.Sprintf("ended agent pid %d left by an earlier hive process", c.PID))
	}
}

// stopAll ends every agent cleanly (its input closed, a grace period to
// exit), as when a run stops to wait for a human: a live agent at a
// checkpoint gives way to a continuation agent that gets the answer.
func (r *runner) stopAll() {
	for _, s := range r.sortedSessions() {
		go s.Stop(r.o.Agents.StopGrace)
	}
	r.waitAgents(r.o.Agents.StopGrace + time.Second)
}

func (r *runner) killAll() {
	for _, s := range r.sortedSessions() {
		select {
		case <-s.Done(): // gone: its PID may already belong to another process
		default:
			s.Kill()
		}
	}
	r.waitAgents(2 * time.Second)
}

// waitAgents waits up to limit in all for the agents to end, then kills the rest.
func (r *runner) waitAgents(limit time.Duration) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	expired := false
	for _, s := range r.sortedSessions() {
		if !expired {
			select {
			case <-s.Done():
				continue
			case <-deadline.C:
				expired = true
			}
		}
		select {
		case <-s.Done():
		default:
			s.Kill()
		}
	}
}

// sortedKeys lists the live sessions in plan and attempt order, so that
// what the runner does to them happens in the same order every time.
func (r *runner) sortedKeys() []sessionKey {
	keys := make([]sessionKey, 0, len(r.sessions))
	for k := range r.sessions {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].plan != keys[j].plan {
			return keys[i].plan < keys[j].plan
		}
		return keys[i].attempt < keys[j].attempt
	})
	return keys
}

func (r *runner) sortedSessions() []agent.Session {
	keys := r.sortedKeys()
	out := make([]agent.Session, len(keys))
	for i, k := range keys {
		out[i] = r.sessions[k]
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// agentSpec is how to start the agent of c, and with which launcher.
func (r *runner) agentSpec(ctx context.Context, c engine.Command) (agent.Spec, agent.Launcher, error) {
	role := c.Role
	if role == "" {
		role = "executor"
	}
	spec := agent.Spec{
		Plan:    c.Plan,
		Attempt: c.Attempt,
		Env:     []string{"HIVE_AGENT_ROLE=" + role},
		LogPath: filepath.Join(r.o.Repo.Root, ".hive", "logs", fmt.Sprintf("%s.attempt-%d.log", c.Plan, c.Attempt)),
	}
	launcher := r.o.Agents.Launcher
	if l := r.o.Agents.Roles[c.Role]; c.Role != "" && l != nil {
		launcher = l
	}
	var err error
	if c.Role == "verifier" {
		if r.o.Agents.Roles["verifier"] == nil {
			return spec, nil, fmt.Errorf("no verifier role is configured now (models.verifier)")
		}
		spec.Dir = r.workDir()
		spec.Env = append(spec.Env, "HIVE_PHASE_DIR="+r.o.Phase.Dir, "HIVE_PHASE="+r.o.Phase.Number)
		spec.Prompt, err = r.verifierPrompt()
		return spec, launcher, err
	}
	p := r.plans[c.Plan]
	if p == nil {
		// The journal's plan is gone from disk.
		return spec, nil, fmt.Errorf("the plan file is no longer in the phase folder")
	}
	if spec.Dir, err = r.agentDir(ctx, p, c); err != nil {
		return spec, nil, err
	}
	if c.Role != "" {
		spec.Prompt, err = r.combPrompt(ctx, p, c.Continuation)
	} else {
		spec.Prompt, err = r.prompt(ctx, p, c.Continuation)
	}
	return spec, launcher, err
}
