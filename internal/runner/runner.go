package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/handoff"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/journalfirst"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/runner/planning"
	"github.com/hivectl/hive/internal/runner/prompt"
	"github.com/hivectl/hive/internal/runner/sessions"
	"github.com/hivectl/hive/internal/runner/workspace"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
)

// Options is what a run needs. The CLI fills it from flags and config.
// Options is what a run needs: where (Repo, Phase, Journal), who watches
// (Observer), and how its agents, its human and its git work are set up.
type Options struct {
	Repo     *gitx.Repo
	Phase    *plan.Phase
	Journal  journal.Journal
	Observer Observer
	// Now is the clock; nil means time.Now. After calls f once d has
	// passed on that clock (the engine's timers: CmdWake); nil means
	// time.AfterFunc. A test that moves the clock on fires them.
	Now   func() time.Time
	After func(d time.Duration, f func())

	Schedule Schedule
	Agents   Agents
	Human    Human
	Git      integration.Git
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
	// Brief is what hive run tells the executor of a plan besides its
	// prompt: warnings from earlier runs and the context curated for it
	// (nil: nothing).
	Brief func(*plan.Plan) prompt.Briefing
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
	// Prices price every turn as it ends (nil: the built-in table); a turn
	// of a model without a price counts at the CLI's own figure.
	Prices pricing.Table
	// Ladder is the executor's model ladder, most capable first: a start
	// command's rung r > 0 runs Ladder[r] (a budget running short).
	Ladder []string
	// Budget is what a new run may spend; a resume keeps the run's own
	// (raised only by answers to its budget checkpoint).
	Budget phase.Budget
	// Guard tunes the loop guard of a new run.
	Guard work.LoopGuard
	// Context says when a live session of a new run hands over to a fresh one.
	Context phase.ContextLimits
	// OnLimit is what the run does at a usage limit: a new run journals
	// it (the engine falls back); stop is this process's to carry out,
	// so a resume's flag holds.
	OnLimit work.OnLimit
	// Fallback is the agent that a run switched by a usage limit starts
	// (models.fallback; nil: none is configured).
	Fallback agent.Launcher
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
	// Raised: the human raised the budget of the hive run this phase is
	// part of, so a resumed run waiting at its budget checkpoint may spend
	// what it spent plus Agents.Budget (phase.Raise), answered before it
	// goes on.
	Raised bool
}

// Observer is told everything that happens, for display. It is called from
// the runner's goroutine only.
type Observer interface {
	// Resumed: a run is taken over from a journal; snap is the replayed state.
	Resumed(run journal.Run, snap phase.Snapshot)
	// Event: an input event, already journaled, and the state after it.
	Event(ev phase.Event, snap phase.Snapshot)
	// Command: an engine command, and the state after the event that caused it.
	Command(c phase.Command, snap phase.Snapshot)
	// Note: something worth saying that is not an event (unparseable agent output, ...).
	Note(plan, text string)
}

// Result is how a run ended.
type Result struct {
	Run      journal.Run
	Resumed  bool
	Snapshot phase.Snapshot
	// Commits counts each plan's commits made in this run (across its
	// resumes), never those of earlier work that reused the plan's id.
	Commits map[string]int
	// NothingToDo: every plan of the phase was already complete, so no run
	// was started (Options.Rerun starts one anyway).
	NothingToDo bool
}

// Answer is a human's answer to a plan's open checkpoint.
type Answer = phase.Answer

// NeedsHumanError stops an unattended run without a terminal at a
// checkpoint that only a human may answer. The run can be resumed after
// `hive answer`.
type NeedsHumanError struct {
	Checkpoints []phase.Checkpoint
}

func (e *NeedsHumanError) Error() string {
	var b strings.Builder
	b.WriteString("a human must answer before this run can go on:")
	for _, cp := range e.Checkpoints {
		fmt.Fprintf(&b, "\n  plan %s, %s %s: %s", cp.Plan, cp.Kind, cp.Type, words.OneLine(cp.Awaiting))
		fmt.Fprintf(&b, "\n    hive answer %s \"...\"", cp.Plan)
	}
	b.WriteString("\nthen run the same command again to resume")
	return b.String()
}

// ErrInterrupted is returned when the context ended the run before every
// plan was final; the run can be resumed.
var ErrInterrupted = errors.New("run interrupted")

// runner is the loop: it journals each batch of events before the engine
// steps them (persist, then act), and hands each command the engine gives
// back to the executors routed for its type. It decides nothing.
type runner struct {
	o        Options
	run      journal.Run
	eng      *engine.Engine
	events   *journalfirst.Loop[phase.Event]
	finished bool // the engine finished the run (CmdRunFinished)
	// stopping says why the run stops for a human ("" while it goes on):
	// events are journaled, commands not carried out, and an agent's exit
	// then is hive's doing, said as such rather than as its exit status.
	stopping string

	plans   map[string]*plan.Plan // the phase's plans by id
	routes  routes
	agents  *sessions.Agents
	work    *workspace.Workspace
	human   *humanWaits
	prompts *prompt.Builder
}

// withDefaults fills in what o leaves unset: the clock, the stop grace, the
// stall timeout and the journal's poll interval.
func withDefaults(o Options) Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
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
	return o
}

// excludeOwnFiles keeps hive's own files (its folder, pending checkpoints,
// the phase's handoff) out of git, without touching the user's .gitignore.
func excludeOwnFiles(ctx context.Context, o Options) error {
	for _, pattern := range []string{"/.hive/", ".pending-checkpoint-*.json", "/" + filepath.ToSlash(handoff.Path(o.Phase.Dir))} {
		if err := o.Repo.Exclude(ctx, pattern); err != nil {
			return fmt.Errorf("keep hive's files out of git: %w", err)
		}
	}
	return nil
}

// Run executes a phase, or resumes its unfinished run, until every plan is
// final or ctx ends.
func Run(ctx context.Context, o Options) (Result, error) {
	o = withDefaults(o)
	tmpl, err := prompt.Load(o.Repo.Root)
	if err != nil {
		return Result{}, err
	}
	r := newRunner(o, tmpl)
	defer r.events.Close()
	defer r.work.Close()
	release, err := lock.Phase(o.Repo.Root, o.Phase.Dir)
	if err != nil {
		return Result{}, err
	}
	defer release()
	planning.RemoveLeftovers(o.Repo.Root, o.Phase.Dir, func(text string) { o.Observer.Note("", text) })
	if err := excludeOwnFiles(ctx, o); err != nil {
		return Result{}, err
	}
	res, err := r.begin(ctx)
	if err == nil && res.NothingToDo {
		return res, nil
	}
	if err == nil && res.Resumed {
		err = r.work.KeepMode(ctx, r.eng.Snapshot().Worktrees)
		r.dropHandoff()
	}
	if err == nil {
		err = r.loop(ctx)
	}
	res.Snapshot = r.eng.Snapshot()
	r.events.Close()
	res.Commits = r.work.Finish(ctx, res.Snapshot, r.finished)
	if r.finished {
		crashPoint("finished") // delivered, the end not yet recorded
		if ferr := r.o.Journal.FinishRun(r.run.ID, r.o.Now(), res.Snapshot.Outcome); ferr != nil {
			r.o.Observer.Note("", fmt.Sprintf("could not mark run %d finished: %v", r.run.ID, ferr))
		}
	}
	return res, err
}

// newRunner composes the loop and its executors.
func newRunner(o Options, tmpl *template.Template) *runner {
	r := &runner{
		o:      o,
		eng:    engine.New(),
		routes: routes{},
	}
	r.events = journalfirst.New(journalfirst.Config[phase.Event]{Journal: o.Journal, Prepare: r.prepare, Aside: r.aside,
		Appended: func() { crashPoint("journal") }, Step: r.stepJournaled, Foreign: r.foreign,
		Unwritable: "the run stops; run the command again to resume once the journal can be written"}, 256)
	say := o.Observer.Note
	plans := map[string]*plan.Plan{}
	for _, p := range o.Phase.Plans {
		plans[p.ID] = p
	}
	r.plans = plans
	r.work = workspace.New(workspace.Config{Repo: o.Repo, Phase: o.Phase, Plans: plans, Git: o.Git, Since: o.Schedule.Since,
		Now: o.Now, Inbox: r, Say: say})
	r.prompts = &prompt.Builder{Template: tmpl, Team: o.Agents.Team && o.Agents.Launcher.LiveSessions(), Repo: o.Repo, Phase: o.Phase,
		Plans: plans, Work: r.work, Brief: o.Agents.Brief}
	r.agents = sessions.New(r, say, r.agentSpec, sessions.Config{Stall: o.Agents.Stall, Grace: o.Agents.StopGrace,
		Prices: o.Agents.Prices, Ladder: o.Agents.Ladder, Now: o.Now})
	r.human = &humanWaits{inbox: r, now: o.Now, after: o.After}
	files := planning.New(o.Repo.Root, o.Phase, plans, o.Now, say, func() bool { return !r.work.InWorktrees() })
	r.routes.add(r.agents, sessions.Commands...)
	r.routes.add(r.work, workspace.Commands...)
	r.routes.add(files, planning.Commands...)
	r.routes.add(r.human, humanCommands...)
	r.routes.add(ExecutorFunc(func(context.Context, phase.Command, phase.Snapshot) {
		// The run's end is recorded once its work is delivered (Run's
		// finish): a kill before that resumes the finished run to deliver it.
		r.finished = true
	}), phase.CmdRunFinished)
	return r
}

// Post implements Inbox: on the loop's goroutine only.
func (r *runner) Post(ev phase.Event) { r.events.Post(ev) }

// Send implements Inbox.
func (r *runner) Send(ev phase.Event) { r.events.Send(ev) }

// Note implements Inbox: the note reaches the observer on the loop's
// goroutine, as a pseudo-event that is not journaled.
func (r *runner) Note(planID, text string) {
	r.Send(phase.Event{Type: noteEvent, Plan: planID, Text: text})
}

const noteEvent phase.EventType = "note"

func (r *runner) loop(ctx context.Context) error {
	watchdog := time.NewTicker(max(min(r.o.Agents.Stall/4, time.Second), 10*time.Millisecond))
	defer watchdog.Stop()
	poll := time.NewTicker(r.o.Human.PollInterval)
	defer poll.Stop()
	for !r.finished {
		if err := r.events.Drain(ctx); err != nil {
			r.agents.KillAll()
			return err
		}
		if r.finished {
			break
		}
		if r.human.stopped {
			if err := r.stopAgents(ctx, "the run stops until a human answers its checkpoints"); err != nil {
				return err
			}
			return &NeedsHumanError{Checkpoints: r.eng.Snapshot().Queue}
		}
		if snap := r.eng.Snapshot(); r.o.Agents.OnLimit.Stops(snap.Limit, running(snap)) {
			if err := r.stopAgents(ctx, "the run stops at the provider's usage limit"); err != nil {
				return err
			}
			return &work.StoppedAtLimit{Wait: *snap.Limit}
		}
		if r.human.paused {
			if err := r.stopAgents(ctx, "the run is paused"); err != nil {
				return err
			}
			path, err := planning.WriteHandoff(r.o.Repo.Root, r.eng.Snapshot(), r.o.Phase, r.plans)
			if err != nil {
				r.o.Observer.Note("", err.Error()+" (the journal keeps the state: resume goes on regardless)")
			}
			return &PausedError{Handoff: path, At: r.eng.Snapshot().PausedAt}
		}
		select {
		case ev := <-r.events.Inputs():
			r.events.Post(ev)
		case a := <-r.o.Human.Answers:
			if a.Pause {
				r.events.Post(phase.Event{Type: phase.EvPause})
				break
			}
			r.events.Post(phase.Event{Type: phase.EvAnswer, Plan: a.Plan, Text: a.Text, By: "terminal"})
		case <-poll.C:
			if err := r.events.Poll(ctx); err != nil {
				r.agents.KillAll()
				return err
			}
		case <-watchdog.C:
			r.events.Post(r.agents.Watch(r.o.Now())...)
		case <-ctx.Done():
			r.agents.KillAll()
			return ErrInterrupted
		}
	}
	r.agents.Wait(r.o.Agents.StopGrace + time.Second)
	return nil
}

// stopAgents ends every agent as the run stops for a human, and journals
// what they say while they go: above all the usage of the turns a budget
// stop interrupted, which their CLIs report as those turns end. The
// engine's commands meanwhile are not carried out: the run is stopping,
// and a resume derives what is still to do from the journal, as after a
// crash at this point.
func (r *runner) stopAgents(ctx context.Context, why string) error {
	r.stopping = why
	defer func() { r.stopping = "" }()
	var ending []<-chan struct{}
	for _, s := range r.agents.Sorted() {
		go s.Stop(r.o.Agents.StopGrace)
		ending = append(ending, s.Done())
	}
	killed := false
	return r.events.Settle(ctx, ending, r.o.Agents.StopGrace+time.Second, func() time.Duration {
		if killed {
			return 0
		}
		// Stop has killed them by now, and what they said last is on its
		// way (a loaded machine may take a moment to drain their output,
		// a leftover child's pipe at most its grace): a turn's usage must
		// not be lost for want of waiting.
		killed = true
		return killedDrain
	})
}

// killedDrain is how long stopAgents waits, after the agents were killed,
// for their last output: longer than the agent package's drain grace.
const killedDrain = 5 * time.Second

// foreign reads an event another process journaled. Only answers and
// pauses may come from outside; anything else is noted and left alone.
func (r *runner) foreign(rec journal.Record) (phase.Event, bool) {
	var ev phase.Event
	if err := json.Unmarshal(rec.Payload, &ev); err != nil || (ev.Type != phase.EvAnswer && ev.Type != phase.EvPause) {
		r.o.Observer.Note("", fmt.Sprintf("journal event %d (%s) from another process ignored", rec.Seq, rec.Type))
		return ev, false
	}
	return ev, true
}

// prepare readies an event for the journal: its time, where its
// checkpoint's plan works, and an agent's exit while hive stops it said
// as such. Notes are not journaled.
func (r *runner) prepare(ctx context.Context, ev *phase.Event) (journal.Entry, bool) {
	if ev.Type == noteEvent {
		return journal.Entry{}, false
	}
	if ev.Type == phase.EvAgentExited {
		r.agents.Exited(*ev)
		if r.stopping != "" {
			// Its exit status (1, or a signal's) says only that hive
			// stopped it.
			ev.Reason = "stopped by hive: " + r.stopping
		}
	}
	ev.Time = r.o.Now().UTC()
	if ev.Checkpoint != nil && ev.Checkpoint.Worktree == "" {
		ev.Checkpoint.Worktree, ev.Checkpoint.Branch = r.work.PlanPlace(ctx, ev.Plan)
	}
	return journal.Entry{Type: string(ev.Type), At: ev.Time}, true
}

// aside shows a note, in its turn among the events.
func (r *runner) aside(ev phase.Event) { r.o.Observer.Note(ev.Plan, ev.Text) }

// stepJournaled steps one of the loop's own journaled events.
func (r *runner) stepJournaled(ctx context.Context, ev phase.Event) error {
	if ev.Type == phase.EvAgentStarted {
		crashPoint("agent", fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt), ev.Role) // journaled: a resume knows its pid
	}
	if err := r.step(ctx, ev); err != nil && (ev.Type == phase.EvRunStarted || ev.Type == phase.EvResumed) {
		// Without a started run nothing can ever happen: end it rather than wait forever.
		r.o.Journal.FinishRun(r.run.ID, r.o.Now(), "abandoned")
		return fmt.Errorf("run %d cannot start: %w", r.run.ID, err)
	}
	return nil
}

// step applies a journaled event to the engine and carries out its commands.
func (r *runner) step(ctx context.Context, ev phase.Event) error {
	cmds, err := r.eng.Step(ev)
	if err != nil {
		r.o.Observer.Note(ev.Plan, fmt.Sprintf("event %s refused: %v", ev.Type, err))
		return err
	}
	snap := r.eng.Snapshot()
	r.o.Observer.Event(ev, snap)
	if r.stopping != "" {
		return nil
	}
	for _, c := range cmds {
		r.execute(ctx, c, snap)
	}
	return nil
}

// execute hands c to the executors routed for its type, then tells the
// observer.
func (r *runner) execute(ctx context.Context, c phase.Command, snap phase.Snapshot) {
	for _, e := range r.routes[c.Type] {
		e.Execute(ctx, c, snap)
	}
	r.o.Observer.Command(c, snap)
}

// running counts the plans whose agents are at work (not those held for
// the wait to end).
func running(s phase.Snapshot) int {
	n := 0
	for _, p := range s.Plans {
		if p.State == phase.Running && p.Stage != phase.StageHeld {
			n++
		}
	}
	return n
}

// agentSpec is how to start the agent of c, and with which launcher.
func (r *runner) agentSpec(ctx context.Context, c phase.Command) (agent.Spec, agent.Launcher, error) {
	role := c.Role
	if role == "" {
		role = "executor"
	}
	spec := agent.Spec{
		Plan:         c.Plan,
		Attempt:      c.Attempt,
		Env:          []string{"HIVE_AGENT_ROLE=" + role},
		LogPath:      filepath.Join(r.o.Repo.Root, ".hive", "logs", fmt.Sprintf("%s.attempt-%d.log", c.Plan, c.Attempt)),
		MaxBudgetUSD: c.MaxUSD,
	}
	if ladder := r.o.Agents.Ladder; c.Role == "" && c.Rung > 0 && len(ladder) > 0 {
		spec.Model = ladder[min(c.Rung, len(ladder)-1)]
	}
	launcher := r.o.Agents.Launcher
	if l := r.o.Agents.Roles[c.Role]; c.Role != "" && l != nil {
		launcher = l
	}
	if c.Fallback {
		if r.o.Agents.Fallback == nil {
			return spec, nil, fmt.Errorf("the run went on with the fallback agent at a usage limit, and none is configured now (models.fallback)")
		}
		launcher, spec.Model = r.o.Agents.Fallback, "" // the fallback's own model
	}
	var err error
	if c.Role == "verifier" {
		if r.o.Agents.Roles["verifier"] == nil {
			return spec, nil, fmt.Errorf("no verifier role is configured now (models.verifier)")
		}
		spec.Dir = r.work.WorkDir()
		spec.Env = append(spec.Env, "HIVE_PHASE_DIR="+r.o.Phase.Dir, "HIVE_PHASE="+r.o.Phase.Number)
		spec.Prompt, err = r.prompts.Verifier()
		return spec, launcher, err
	}
	p := r.plans[c.Plan]
	if p == nil {
		// The journal's plan is gone from disk.
		return spec, nil, fmt.Errorf("the plan file is no longer in the phase folder")
	}
	if spec.Dir, err = r.work.AgentDir(ctx, p, c); err != nil {
		return spec, nil, err
	}
	if c.Role != "" {
		spec.Prompt, err = r.prompts.Comb(ctx, p, c.Continuation)
	} else {
		spec.Prompt, err = r.prompts.Executor(ctx, p, c.Continuation)
	}
	return spec, launcher, err
}
