package piperun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/journalfirst"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun/delivery"
	"github.com/hivectl/hive/internal/piperun/postmortem"
	"github.com/hivectl/hive/internal/piperun/roleagent"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/work"
)

// executor carries the pipeline machine's commands out in a run's
// worktree: a role's agent, the lint, the phase, the tests and the build,
// an evaluation, a pull request's delivery, watch and fixes. What they
// meet on the way goes to send: the events for the machine, and notes and
// a turn's end (noteEvent, roleagent.TurnEnded) for whoever holds the
// run. The local loop (driver) has one; a worker of a distributed backend
// makes one for each command it is given (Worker).
type executor struct {
	o      Options
	run    journal.Run
	dir    string // the run's worktree
	branch string
	send   func(roleplan.Event)
	// plans, when set, is told the phase's plans' states as they change;
	// asks a role agent's request to use a tool (nil: refused at once).
	plans func([]PlanState)
	asks  func(roleagent.Permission)
}

// note tells whoever holds the run something worth knowing of job.
func (s *executor) note(job, text string) {
	s.send(roleplan.Event{Type: noteEvent, Job: job, Text: text})
}

// driver drives one pipeline run: the journal-first loop around
// pipeline.Machine and its executor (the I/O shell DESIGN.md describes).
type driver struct {
	*executor
	m       *pipeline.Machine
	events  *journalfirst.Loop[roleplan.Event]
	ended   bool
	agents  map[string]agent.Session
	plansc  chan []PlanState          // the phase's plan states, for a PlansObserver
	perms   chan roleagent.Permission // role agents' permission requests
	stalled map[string]bool           // role agents the watchdog ended
	work    sync.WaitGroup            // the checks and the phase under way
	// stopping: the run stops for a human and its agents are ending; the
	// machine's commands are left to the resume.
	stopping bool
	// stopFor: the machine stopped the run for a human at this question
	// (CmdStopForHuman), unless an answer stepped in the same batch
	// closed it.
	stopFor *roleplan.Checkpoint
}

// stopGrace is how long an agent that is told to stop may take.
const stopGrace = 5 * time.Second

// background runs f on a goroutine of its own that Run waits for.
func (s *driver) background(f func()) {
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		f()
	}()
}

// withDefaults is o with what it leaves out: the wall clock and its
// timers, an observer that shows nothing, a stall timeout of 5 minutes.
func (o Options) withDefaults() Options {
	if o.After == nil {
		o.After = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Observer == nil {
		o.Observer = Silent{}
	}
	if o.Stall == 0 {
		o.Stall = 5 * time.Minute
	}
	return o
}

// Run starts a pipeline run, or resumes the newest unfinished one, and
// runs it until it finishes, waits for a human, or ctx ends.
func Run(ctx context.Context, o Options) (Result, error) {
	o = o.withDefaults()
	// Two hive processes never drive one run: the second would start
	// every agent again beside the first's.
	release, err := lock.Pipeline(o.Repo.Root)
	if err != nil {
		return Result{}, err
	}
	defer release()
	s := &driver{executor: &executor{o: o}, m: pipeline.New(),
		agents: map[string]agent.Session{}, plansc: make(chan []PlanState, 16), perms: make(chan roleagent.Permission), stalled: map[string]bool{}}
	s.events = journalfirst.New(journalfirst.Config[roleplan.Event]{Journal: o.Journal, Prepare: s.prepare, Aside: s.aside,
		Share: s.share, Step: s.step, Foreign: foreignAnswer, Unwritable: "run hive run --resume once it can be written"}, 64)
	s.executor.send = s.events.Send
	s.executor.plans = func(states []PlanState) {
		select {
		case s.plansc <- states:
		case <-s.events.Done():
		}
	}
	s.executor.asks = func(p roleagent.Permission) {
		select {
		case s.perms <- p:
		case <-s.events.Done():
		}
	}
	// Whatever ends the run ends the work under way too (the phase's
	// implementers), and Run returns only once it has.
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		s.events.Close()
		s.work.Wait()
	}()
	last, ok, err := runjournal.Latest(o.Journal)
	if err != nil {
		return Result{}, err
	}
	unfinished := ok && last.Finished.IsZero()
	switch {
	case o.Resume && !unfinished:
		return Result{}, runjournal.ErrNoRun
	case !o.Resume && unfinished:
		return Result{}, &UnfinishedError{Run: last}
	case o.Resume:
		if err := s.resume(ctx, last); err != nil {
			return Result{}, err
		}
	default:
		if err := s.begin(ctx); err != nil {
			return Result{}, err
		}
	}
	if o.Started != nil {
		o.Started(s.run)
	}
	err = s.loop(ctx)
	if err != nil {
		return Result{Run: s.run, Snapshot: s.m.Snapshot(), Branch: s.branch}, err
	}
	return s.finish(ctx, s.m.Snapshot()), nil
}

// finish delivers the ended run (snap is its machine's last state) and
// records its end: in the journal, in the project's memory, and in its
// postmortem.
func (s *executor) finish(ctx context.Context, snap roleplan.Snapshot) Result {
	res := Result{Run: s.run, Snapshot: snap, Branch: s.branch}
	s.deliver(ctx, &res)
	finished := s.o.Now()
	ended := s.run
	ended.Finished, ended.Outcome = finished, res.Snapshot.Outcome
	s.project().Tell(ctx, postmortem.Model{Launcher: s.o.Postmortem, Model: s.o.PostmortemModel, Prices: s.o.Prices, Home: s.o.Home}, ended)
	if ferr := s.o.Journal.FinishRun(s.run.ID, finished, res.Snapshot.Outcome); ferr != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("could not mark run %d finished: %v", s.run.ID, ferr))
	} else {
		run := s.run
		run.Finished, run.Outcome = finished, res.Snapshot.Outcome
		if err := s.project().Remember(run); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("could not record run %d in the project's memory (hive memory rebuild retries): %v", s.run.ID, err))
		}
		if rep, err := runreport.Build(ctx, s.o.Journal, s.o.Repo, run); err == nil {
			if err := postmortem.Write(s.o.Repo.Root, rep); err != nil {
				res.Notes = append(res.Notes, "could not write the run's postmortem: "+err.Error())
			}
		}
	}
	return res
}

// begin creates the run, its branch and its worktree.
func (s *driver) begin(ctx context.Context) error {
	spec, err := s.create(ctx)
	if err != nil {
		return err
	}
	s.events.Attach(s.run.ID, 0)
	wait := s.o.Wait // the machine decides when nobody's answer stops the run
	s.events.Post(roleplan.Event{Type: roleplan.EvStarted, Spec: &spec, Wait: &wait})
	return nil
}

// create creates a new run in the journal, its branch and its worktree,
// and returns the spec its machine starts with.
func (s *executor) create(ctx context.Context) (roleplan.Spec, error) {
	if err := s.o.Workflow.Validate("workflow " + s.o.Workflow.Name); err != nil {
		return roleplan.Spec{}, err
	}
	if _, err := s.o.Repo.Head(ctx); err != nil {
		return roleplan.Spec{}, fmt.Errorf("%s has no commit yet: hive run works on a branch made from your last commit, so commit first", s.o.Repo.Root)
	}
	run, err := s.o.Journal.CreateRun(runjournal.Key, s.o.Now())
	if err != nil {
		return roleplan.Spec{}, err
	}
	s.run = run
	if p := s.o.Planning; p != nil { // how the workflow was chosen, before anything runs
		payload, _ := json.Marshal(p)
		if _, err := s.o.Journal.Append(run.ID, runjournal.PlannedEvent, s.o.Now().UTC(), payload); err != nil {
			return roleplan.Spec{}, err
		}
	}
	if err := s.openWorktree(ctx, delivery.NewBranch(ctx, s.o.Repo, s.o.Workflow.Name, s.o.Objective, run.ID)); err != nil {
		s.o.Journal.FinishRun(run.ID, s.o.Now(), "abandoned")
		return roleplan.Spec{}, err
	}
	base, err := s.o.Repo.Head(ctx)
	if err != nil {
		return roleplan.Spec{}, err
	}
	return roleplan.Spec{Objective: s.o.Objective, Workflow: s.o.Workflow, AutoAnswer: s.o.AutoAnswer,
		NoInterview: s.o.NoInterview || s.o.AutoAnswer, Facts: s.facts(), Tools: index.Allowed(index.Tools(exec.LookPath), s.o.Tools), Context: s.o.Context,
		PhaseDir: nextPhase(s.dir, s.o.Objective), Base: base, Branch: s.branch, Target: s.o.Repo.CurrentBranch(ctx), Publish: s.o.publish(), Follow: s.o.Follow, NoMerge: s.o.NoMerge, Closes: s.o.Closes,
		AllowDirty: s.o.AllowDirty, Agent: s.o.Agent, CheckpointWait: s.o.CheckpointWait, Budget: s.o.Budget, Guard: s.o.Guard, Routing: s.o.Routing,
		OnLimit: s.o.OnLimit, Rules: roleplan.Rules}, nil
}

// resume replays the run and takes it over.
func (s *driver) resume(ctx context.Context, run journal.Run) error {
	m, err := runjournal.Replay(s.o.Journal, run)
	if err != nil {
		return fmt.Errorf("replay run %d: %w", run.ID, err)
	}
	s.m, s.run = m, run
	s.events.Attach(run.ID, run.Events)
	if !m.Started() {
		// Killed between the run's creation and its first event: nothing
		// was done, and its objective is not known.
		if dir, err := worktreeDir(s.o, run.ID); err == nil {
			worktrees.Remove(ctx, s.o.Repo, dir, delivery.LeftBranch(ctx, s.o.Repo, dir, run.ID))
		}
		if err := s.o.Journal.FinishRun(run.ID, s.o.Now(), "abandoned"); err != nil {
			return err
		}
		return fmt.Errorf("%w (run %d was stopped before it started, and is abandoned)", runjournal.ErrNoRun, run.ID)
	}
	if err := s.openWorktree(ctx, s.runBranch(ctx)); err != nil {
		return err
	}
	// What this process was told of the wait for an answer and of the
	// handover: the machine decides by it.
	wait := s.o.Wait
	s.events.Post(roleplan.Event{Type: roleplan.EvResumed, Wait: &wait, Publish: s.o.publish(), NoMerge: s.o.NoMerge})
	if s.o.Answer != "" {
		open := m.Snapshot().Open
		if open == nil {
			return &runjournal.AnswerError{Err: fmt.Errorf("run %d has no open question to answer", run.ID)}
		}
		if err := open.Check(s.o.Answer); err != nil {
			return &runjournal.AnswerError{Err: err}
		}
		s.events.Post(roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: open.ID, Text: s.o.Answer})
	}
	return nil
}

// openWorktree makes the run's worktree on branch, or opens the one there.
func (s *executor) openWorktree(ctx context.Context, branch string) error {
	dir, err := worktreeDir(s.o, s.run.ID)
	if err != nil {
		return err
	}
	s.dir, s.branch = dir, branch
	_, statErr := os.Stat(dir)
	if err := worktrees.Add(ctx, s.o.Repo, dir, s.branch, "HEAD"); err != nil {
		return fmt.Errorf("the run's worktree: %w", err)
	}
	if os.IsNotExist(statErr) {
		if c := strings.TrimSpace(s.o.Setup.Command); c != "" {
			s.o.Observer.Note("run", "readying the run's worktree (workflow.worktree_setup): "+c)
		}
		if err := s.o.Setup.Run(ctx, s.o.Repo.Root, dir); err != nil {
			// Gone again, so that the next try sets it up anew: nothing
			// has worked in it yet.
			worktrees.Remove(ctx, s.o.Repo, dir, "")
			return fmt.Errorf("the run's worktree %s: %w (fix workflow.worktree_setup in .planning/config.json and run again)", dir, err)
		}
	}
	for _, pattern := range []string{"/.hive/"} {
		if err := s.o.Repo.Exclude(ctx, pattern); err != nil {
			return err
		}
	}
	return nil
}

func (s *driver) loop(ctx context.Context) error {
	interval := s.o.PollInterval
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	poll := time.NewTicker(interval)
	defer poll.Stop()
	watchdog := time.NewTicker(max(min(s.o.Stall/4, time.Second), 10*time.Millisecond))
	defer watchdog.Stop()
	// A run whose end was journaled but not delivered (hive was killed in
	// between) only needs its delivery.
	for !s.ended {
		if err := s.events.Drain(ctx); err != nil {
			s.killAll()
			return err
		}
		if s.ended || s.m.Finished() {
			break
		}
		open := s.m.Snapshot().Open
		if stop := s.stopFor; stop != nil && open != nil && open.ID == stop.ID {
			// Nobody answered in time: the run stops, to resume with the answer.
			if err := s.stopAgents(ctx); err != nil {
				return err
			}
			return &NeedsHumanError{Run: s.run.ID, Checkpoint: *open}
		}
		s.stopFor = nil
		if snap := s.m.Snapshot(); s.o.OnLimit.Stops(snap.Limit, snap.Active()) {
			// The usage limit holds every role, and none is at work.
			if err := s.stopAgents(ctx); err != nil {
				return err
			}
			return &work.StoppedAtLimit{Wait: *snap.Limit}
		}
		select {
		case ev := <-s.events.Inputs():
			s.events.Post(ev)
		case text := <-s.o.Answers:
			if open == nil {
				s.o.Observer.Note("", "nothing is asked now: "+text+" ignored")
			} else if err := open.Check(text); err != nil {
				s.o.Observer.Note(open.Job, err.Error())
			} else {
				s.events.Post(roleplan.Event{Type: roleplan.EvAnswer, Job: open.Job, Checkpoint: open.ID, Text: strings.TrimSpace(text)})
			}
		case p := <-s.perms:
			s.refuse(p)
		case <-watchdog.C:
			s.watch(s.o.Now())
		case states := <-s.plansc:
			if po, ok := s.o.Observer.(PlansObserver); ok {
				po.Plans(states)
			}
		case <-poll.C:
			if err := s.events.Poll(ctx); err != nil {
				s.killAll()
				return err
			}
		case <-ctx.Done():
			s.killAll()
			return fmt.Errorf("run %d %w", s.run.ID, ErrInterrupted) // the command line says how to resume it
		}
	}
	return nil
}

// stopAgents ends the role agents as the run stops for a human, and
// journals what they say as they go: above all the usage of a turn that
// the budget interrupted, which the CLI reports as the turn ends.
func (s *driver) stopAgents(ctx context.Context) error {
	if len(s.agents) == 0 {
		return nil
	}
	s.stopping = true
	defer func() { s.stopping = false }()
	var ending []<-chan struct{}
	for _, sess := range s.agents {
		go sess.StopTurn(stopGrace)
		ending = append(ending, sess.Done())
	}
	err := s.events.Settle(ctx, ending, stopGrace+time.Second, func() time.Duration {
		s.killAll() // StopTurn has killed them by now
		return 0
	})
	if err != nil {
		s.killAll()
	}
	return err
}

// prepare readies an event for the journal; notes and a turn's end are
// not journaled.
func (s *driver) prepare(_ context.Context, ev *roleplan.Event) (journal.Entry, bool) {
	if ev.Type == noteEvent || ev.Type == roleagent.TurnEnded {
		return journal.Entry{}, false
	}
	if ev.Type == roleplan.EvAgentExited {
		delete(s.agents, ev.Job)
		delete(s.stalled, ev.Job)
	}
	ev.Time = s.o.Now().UTC()
	return journal.Entry{Type: string(ev.Type), At: ev.Time}, true
}

// aside shows a note, or ends a role's session at its turn's end (one
// turn per role: its input closes and it exits).
func (s *driver) aside(ev roleplan.Event) {
	switch ev.Type {
	case noteEvent:
		s.o.Observer.Note(ev.Job, ev.Text)
	case roleagent.TurnEnded:
		if sess := s.agents[ev.Job]; sess != nil {
			go sess.Stop(stopGrace)
		}
	}
}

// share shares the run's work before events that follow it are journaled
// (Options.Share).
func (s *driver) share(ctx context.Context, events []roleplan.Event) error {
	if s.o.Share == nil || !slices.ContainsFunc(events, followsWork) {
		return nil
	}
	if err := s.o.Share(ctx, s.dir, s.run); err != nil {
		return fmt.Errorf("share the run's work: %w (run hive run --resume once it can be shared)", err)
	}
	return nil
}

// step steps the machine with a journaled event and carries out its
// commands. Only a refused start ends the run.
func (s *driver) step(ctx context.Context, ev roleplan.Event) error {
	cmds, err := s.m.Step(ev)
	if err != nil {
		if ev.Type == roleplan.EvStarted {
			return err
		}
		s.o.Observer.Note(ev.Job, fmt.Sprintf("event %s refused: %v", ev.Type, err))
		return nil
	}
	s.carryOut(ctx, ev, cmds)
	return nil
}

// foreignAnswer reads a record `hive answer` journaled: only answers may
// come from outside.
func foreignAnswer(rec journal.Record) (roleplan.Event, bool) {
	var ev roleplan.Event
	if json.Unmarshal(rec.Payload, &ev) != nil || ev.Type != roleplan.EvAnswer {
		return ev, false
	}
	return ev, true
}

// followsWork says whether ev follows work in the run's worktree that a
// driver taking the run over must find there (Options.Share): a role's
// report among them, since a run resumed after it goes on from the report
// (its agent, gone with the driver, need not exit).
func followsWork(ev roleplan.Event) bool {
	switch ev.Type {
	case roleplan.EvStarted, roleplan.EvResumed, roleplan.EvReport, roleplan.EvAgentExited, roleplan.EvPhaseDone:
		return true
	}
	return false
}

// carryOut tells the observer of a stepped event and carries out the
// commands the machine returned for it.
func (s *driver) carryOut(ctx context.Context, ev roleplan.Event, cmds []roleplan.Command) {
	snap := s.m.Snapshot()
	s.o.Observer.Event(ev, snap)
	for _, c := range cmds {
		s.execute(ctx, c)
		s.o.Observer.Command(c, snap)
	}
}

// noteEvent is the loop's pseudo-event of a note for the observer, never
// journaled (a role agent's turn's end is the other: roleagent.TurnEnded).
const noteEvent = roleplan.EvNote

func (s *driver) execute(ctx context.Context, c roleplan.Command) {
	if s.stopping {
		// A resume derives what is left to do from the journal.
		return
	}
	switch c.Type {
	case roleplan.CmdStartAgent:
		s.startAgent(ctx, c)
	case roleplan.CmdStopForHuman:
		s.stopFor = c.Checkpoint
	case roleplan.CmdStopAgent:
		if sess := s.agents[c.Job]; sess != nil && c.Interrupt {
			// The interrupted turn's usage still comes, and counts.
			go sess.StopTurn(stopGrace)
		} else if sess != nil {
			sess.Kill()
		} else if c.PID > 0 && agent.IsAgentOf(c.PID, c.Job) {
			agent.KillGroup(c.PID)
		}
	case roleplan.CmdWake:
		// A timer, not background work: a run that stops meanwhile does
		// not wait for it, and its resume asks again.
		s.o.After(max(c.At.Sub(s.o.Now()), 0), func() { s.send(roleplan.Event{Type: roleplan.EvWake}) })
	case roleplan.CmdLint:
		dir := s.m.Snapshot().Spec.PhaseDir // read here: the machine is the loop's alone
		s.background(func() {
			s.send(roleplan.Event{Type: roleplan.EvLinted, Job: c.Job, Attempt: c.Attempt, Errors: s.checks().Lint(dir)})
		})
	case roleplan.CmdRunPhase:
		dir := s.m.Snapshot().Spec.PhaseDir
		warnings := s.curator().Warnings(c, s.m.Snapshot()) // the machine is the loop's to read: before the goroutine
		s.background(func() { s.send(s.runPhase(ctx, c, dir, warnings)) })
	case roleplan.CmdRunTests:
		s.background(func() { s.send(s.checks().RunTests(ctx, c)) })
	case roleplan.CmdBuild:
		base := s.m.Snapshot().Spec.Base // read here: the machine is the loop's alone
		s.background(func() { s.send(s.checks().RunBuild(ctx, c, base)) })
	case roleplan.CmdEvaluate:
		snap := s.m.Snapshot() // read here: the machine is the loop's alone
		s.background(func() { s.send(s.evaluator().Evaluate(ctx, c, snap)) })
	case roleplan.CmdDeliver:
		snap := s.m.Snapshot() // read here: the machine is the loop's alone
		s.background(func() { s.send(s.deliverer().OpenPullRequest(ctx, c, snap)) })
	case roleplan.CmdWatch:
		s.background(func() {
			if ev, ok := s.deliverer().WatchPullRequest(ctx, c); ok {
				s.send(ev)
			}
		})
	case roleplan.CmdPush:
		s.background(func() { s.send(s.deliverer().PushFix(ctx, c)) })
	case roleplan.CmdFinished:
		s.ended = true
	}
}

func (s *driver) killAll() {
	for _, sess := range s.agents {
		sess.Kill()
	}
	for _, sess := range s.agents {
		select {
		case <-sess.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

// Silent is an Observer that shows nothing.
type Silent struct{}

func (Silent) Event(roleplan.Event, roleplan.Snapshot)     {}
func (Silent) Command(roleplan.Command, roleplan.Snapshot) {}
func (Silent) Note(string, string)                         {}
