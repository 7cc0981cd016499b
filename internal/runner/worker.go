package runner

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/gitx/stalelocks"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner/prompt"
	"github.com/hivectl/hive/internal/runner/workspace"
)

// Worker carries out a run's engine commands for a distributed backend:
// the executors of Run's loop (agent sessions, spot-checks), without the
// loop, the engine or the journal, which live elsewhere (a Temporal
// workflow sends the commands and steps the events). Workers share either
// one repository's tree (several processes on one machine, or a shared
// file system), or, with Git.Remote, a git remote: each then works in a
// clone of its own, a worktree per plan, and also carries out merges,
// post-merge gates and the phase's verification (see workspace.Remote).
//
// Execute is safe for concurrent use: the executors it drives were made
// for one loop goroutine, so it hands them one command at a time, and
// routes the events they send back to the command they answer.
type Worker struct {
	r    *runner
	ctx  context.Context // the sessions' own: a command's context ending stops its agent gracefully
	stop context.CancelFunc

	mu      sync.Mutex // one command in the executors at a time, as in the loop
	waiting map[waitKey]*waiter

	remote *workspace.Remote // Git.Remote's; nil in a shared tree
}

// waitKey names a command waiting for its end: a session and a spot-check
// of the same attempt wait at once.
type waitKey struct {
	plan    string
	attempt int
	end     phase.EventType
}

// waiter is a command waiting for the event that ends it; a session's
// other events met on the way go to emit.
type waiter struct {
	emit func(phase.Event)
	done chan phase.Event
}

// ends are the events that end a command a worker waits for.
var ends = map[phase.CommandType]phase.EventType{
	phase.CmdStartAgent:   phase.EvAgentExited,
	phase.CmdSpotCheck:    phase.EvSpotChecked,
	phase.CmdCheckCommits: phase.EvCommitsChecked,
	phase.CmdMerge:        phase.EvMerged,
	phase.CmdGate:         phase.EvGateChecked,
	phase.CmdVerify:       phase.EvVerified,
}

// NewWorker readies a worker of the phase in o: in the shared tree, or,
// with o.Git.Remote, in worktrees of its own.
func NewWorker(o Options) (*Worker, error) {
	r, err := prepare(o)
	if err != nil {
		return nil, err
	}
	r.work.Scope = map[string]string{}
	ctx, stop := context.WithCancel(context.Background())
	w := &Worker{r: r, ctx: ctx, stop: stop, waiting: map[waitKey]*waiter{}}
	if o.Git.Remote != "" {
		w.remote = workspace.NewRemote(r.work, o.Git.Remote, w.plansHere)
	}
	go w.route()
	return w, nil
}

// PhaseSpec is the engine's view of the phase in o for a new run whose
// commands workers carry out: its plans, scoped to the commits after the
// tree's tip now, or, with o.Git.Remote, after the remote's integration
// branch (pushed there from HEAD for a new run).
func PhaseSpec(ctx context.Context, o Options) (phase.RunSpec, error) {
	r, err := prepare(o)
	if err != nil {
		return phase.RunSpec{}, err
	}
	defer r.work.Close()
	if o.Git.Remote != "" {
		base, err := workspace.PublishRun(ctx, r.o.Repo, r.o.Phase, r.o.Git)
		if err != nil {
			return phase.RunSpec{}, err
		}
		r.work.SetBase(base)
	}
	return r.spec(ctx, nil)
}

// prepare makes a runner of o for a worker's use: Run's defaults, no loop.
func prepare(o Options) (*runner, error) {
	if o.Git.Worktrees && o.Git.Remote == "" {
		return nil, fmt.Errorf("workers that share one repository folder run plans in its tree: worktrees need a git remote to share work through (backend.temporal.remote, --git-remote)")
	}
	o.Git.Worktrees = o.Git.Remote != ""
	o = withDefaults(o)
	if o.Observer == nil {
		o.Observer = quietObserver{}
	}
	tmpl, err := prompt.Load(o.Repo.Root)
	if err != nil {
		return nil, err
	}
	if err := excludeOwnFiles(context.Background(), o); err != nil {
		return nil, err
	}
	return newRunner(o, tmpl), nil
}

// Close kills what still runs and ends the worker. A worker of a git
// remote leaves no tree behind of a run whose work was delivered.
func (w *Worker) Close() {
	w.mu.Lock()
	w.r.agents.KillAll()
	w.mu.Unlock()
	w.stop()
	w.r.events.Close()
	w.r.work.Close()
	if w.remote != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		w.remote.Tidy(ctx)
	}
}

// Execute carries out c for a plan whose run's work started after commit
// since (phase.PlanSpec.Since: only later commits are the plan's): it
// returns the event that ends it (the agent's exit, the spot-check's
// result), handing the events met on the way to emit. snap is the run's
// state a merge records in STATE.md and ROADMAP.md. When ctx ends
// before, an agent is stopped as the engine stops one (its input closed,
// then its process group killed after the grace) and its exit still
// returned.
func (w *Worker) Execute(ctx context.Context, c phase.Command, since string, snap phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	end, waits := ends[c.Type]
	if !waits && c.Type != phase.CmdSend && c.Type != phase.CmdPermission && c.Type != phase.CmdStopAgent {
		return nil, fmt.Errorf("a worker does not carry out %s commands yet", c.Type)
	}
	if !waits {
		if c.Type == phase.CmdStopAgent {
			// Only a session of this worker's: a pid names a process of
			// whichever machine the session ran on.
			c.PID = 0
		}
		w.execute(c, snap)
		return nil, nil
	}
	if (c.Type == phase.CmdMerge || c.Type == phase.CmdGate) && w.remote == nil {
		return []phase.Event{{Type: end, Plan: c.Plan, Attempt: c.Attempt, Reason: "workers that share one folder have no worktrees to merge"}}, nil
	}
	if w.remote != nil && c.Type == phase.CmdStartAgent {
		// Last, once the session is no longer among this worker's: its
		// plan's tree may be one a sweep spared for it.
		defer w.remote.SweepAfter(context.WithoutCancel(ctx))
		var flush func()
		emit, flush = w.remote.Forward(ctx, c, emit)
		defer flush() // before the exit is returned: the session's events come first
	}
	key := waitKey{c.Plan, c.Attempt, end}
	if c.Type == phase.CmdVerify {
		key.attempt = 0 // the verification's result names no attempt (only one is ever asked for at a time)
	}
	wt := &waiter{emit: emit, done: make(chan phase.Event, 1)}
	w.mu.Lock()
	w.waiting[key] = wt
	w.r.work.Scope[c.Plan] = since
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		if w.waiting[key] == wt {
			delete(w.waiting, key)
		}
		w.mu.Unlock()
	}()
	release := func() {}
	if w.remote != nil {
		var err error
		if release, err = w.remote.Before(ctx, c); err != nil {
			return nil, err
		}
	}
	if c.Type == phase.CmdStartAgent && c.Continuation != nil && w.remote == nil {
		// A retry may follow an agent lost with its worker, killed in
		// the middle of a git command: its lock would stop every git here.
		notes, err := stalelocks.ClearTree(ctx, w.r.o.Repo)
		if err != nil {
			notes = append(notes, err.Error())
		}
		for _, n := range notes {
			w.r.o.Observer.Note(c.Plan, n)
		}
	}
	w.execute(c, snap)
	if c.Type != phase.CmdMerge && c.Type != phase.CmdGate && c.Type != phase.CmdVerify {
		// Only a merge, a gate and a verification keep the trees to
		// themselves until they end.
		release()
		release = func() {}
	}
	defer release()
	if w.remote != nil && c.Type == phase.CmdStartAgent {
		working := make(chan struct{})
		defer close(working)
		go w.remote.PushWhileWorking(ctx, c.Plan, working)
	}
	ev, err := w.wait(ctx, c, wt)
	if err != nil {
		return nil, err
	}
	if w.remote != nil {
		// A stopped session's context has ended; what it left is
		// published all the same.
		ev = w.remote.After(context.WithoutCancel(ctx), c, ev)
	}
	return []phase.Event{ev}, nil
}

// plansHere are the plans whose agent sessions run here, and the commit
// each plan's work in its run started after, as far as this worker knows.
func (w *Worker) plansHere() (live map[string]bool, since map[string]string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	live = map[string]bool{}
	for k := range w.waiting {
		if k.end == phase.EvAgentExited {
			live[k.plan] = true
		}
	}
	return live, maps.Clone(w.r.work.Scope)
}

// wait waits for the event that ends c; a session whose ctx ends first is
// stopped, and its exit still waited for.
func (w *Worker) wait(ctx context.Context, c phase.Command, wt *waiter) (phase.Event, error) {
	select {
	case ev := <-wt.done:
		return ev, nil
	case <-ctx.Done():
	}
	if c.Type != phase.CmdStartAgent {
		return phase.Event{}, ctx.Err()
	}
	w.execute(phase.Command{Type: phase.CmdStopAgent, Plan: c.Plan, Attempt: c.Attempt}, phase.Snapshot{})
	select {
	case ev := <-wt.done:
		return ev, nil
	case <-time.After(w.r.o.Agents.StopGrace + 5*time.Second):
		return phase.Event{}, fmt.Errorf("the agent of %s did not end after it was stopped", c.Plan)
	}
}

// execute hands c to its executors, then routes what they posted.
func (w *Worker) execute(c phase.Command, snap phase.Snapshot) {
	w.mu.Lock()
	w.r.execute(w.ctx, c, snap)
	posted := w.r.events.Posted()
	w.mu.Unlock()
	for _, ev := range posted {
		w.deliver(ev)
	}
}

// route delivers the events the executors send from their goroutines, and
// reports silent agents as the loop's watchdog does.
func (w *Worker) route() {
	tick := time.NewTicker(max(min(w.r.o.Agents.Stall/4, time.Second), 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case ev := <-w.r.events.Inputs():
			w.deliver(ev)
		case <-tick.C:
			w.mu.Lock()
			silent := w.r.agents.Watch(w.r.o.Now())
			w.mu.Unlock()
			for _, ev := range silent {
				w.deliver(ev)
			}
		case <-w.r.events.Done():
			return
		}
	}
}

// deliver gives ev to the command of its plan and attempt: its end, or an
// event met on the way. Notes, and events of commands no longer waited
// for, have nowhere to go.
func (w *Worker) deliver(ev phase.Event) {
	if ev.Type == noteEvent {
		return
	}
	if ev.Type == phase.EvAgentExited {
		w.mu.Lock()
		w.r.agents.Exited(ev)
		w.mu.Unlock()
	}
	w.mu.Lock()
	ending := w.waiting[waitKey{ev.Plan, ev.Attempt, ev.Type}]
	session := w.waiting[waitKey{ev.Plan, ev.Attempt, phase.EvAgentExited}]
	w.mu.Unlock()
	switch {
	case ending != nil:
		select {
		case ending.done <- ev:
		default:
		}
	case session != nil:
		session.emit(ev)
	}
}

// quietObserver is a worker's observer: what it would say reaches the run
// as events, and notes have no one to read them.
type quietObserver struct{}

func (quietObserver) Resumed(journal.Run, phase.Snapshot)   {}
func (quietObserver) Event(phase.Event, phase.Snapshot)     {}
func (quietObserver) Command(phase.Command, phase.Snapshot) {}
func (quietObserver) Note(string, string)                   {}
