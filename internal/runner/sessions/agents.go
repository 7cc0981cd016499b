package sessions

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/runner/prompt"
)

type sessionKey struct {
	plan    string
	attempt int
}

// Agents is the executor of agent sessions: it starts and stops agents,
// sends them what the engine says, answers their permission requests,
// turns their output into events (sink) and reports their silences
// (Watch). It keeps the live sessions of this process.
type Agents struct {
	inbox Inbox
	// spec says how to start the agent of a start command, and with which
	// launcher: the runner's composition of prompts and places.
	spec  Spec
	say   func(plan, text string) // the observer's Note, on the loop's goroutine
	stall time.Duration
	grace time.Duration

	live map[sessionKey]agent.Session
	// silentAt holds the sessions whose silence was reported: when it may
	// be reported again, as the engine said (CmdWatch); zero until it says.
	silentAt map[sessionKey]time.Time

	prices pricing.Table
	ladder []string // the executor's model ladder: Ladder[0] is its configured model
	// now reads the clock: when a limit's reset is said as a time of day
	// or a wait, it is taken from when the line was read.
	now func() time.Time

	mu        sync.Mutex                  // guards held, models and fallbacks
	held      map[sessionKey]*phase.Event // PLAN COMPLETE waiting for the end of its turn
	models    map[sessionKey]string       // the model each session was started with, when known
	fallbacks map[sessionKey]bool         // the sessions started on the fallback agent
}

// Inbox takes what the sessions report back to the run's loop, as events
// (the runner's Inbox).
type Inbox interface {
	// Post adds an event to the loop's next batch: only from the loop's
	// goroutine (inside Execute), where a start and its failure keep
	// their order.
	Post(ev phase.Event)
	// Send hands an event to the loop from any goroutine.
	Send(ev phase.Event)
	// Note tells the observer something that is not an event.
	Note(plan, text string)
}

// Spec says how to start the agent of a start command, and with which
// launcher.
type Spec func(ctx context.Context, c phase.Command) (agent.Spec, agent.Launcher, error)

// Config is how the sessions are watched and priced.
type Config struct {
	// Stall is how long an agent may print nothing before its silence is
	// reported (timeouts.stall).
	Stall time.Duration
	// Grace is how long an agent whose input was closed may take to exit
	// before its process group is killed.
	Grace time.Duration
	// Prices price every turn as it ends (nil: the built-in table).
	Prices pricing.Table
	// Ladder is the executor's model ladder: Ladder[0] is its configured
	// model.
	Ladder []string
	// Now reads the clock (nil: time.Now).
	Now func() time.Time
}

// New makes the executor of the agent sessions of a run: say is the
// observer's Note, on the loop's goroutine.
func New(inbox Inbox, say func(plan, text string), spec Spec, c Config) *Agents {
	prices := c.Prices
	if prices == nil {
		prices = pricing.Defaults()
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	return &Agents{inbox: inbox, say: say, spec: spec, stall: c.Stall, grace: c.Grace, prices: prices, ladder: c.Ladder, now: now,
		live: map[sessionKey]agent.Session{}, silentAt: map[sessionKey]time.Time{}, held: map[sessionKey]*phase.Event{},
		models: map[sessionKey]string{}, fallbacks: map[sessionKey]bool{}}
}

// Commands are the command types Agents carries out.
var Commands = []phase.CommandType{phase.CmdStartAgent, phase.CmdStopAgent, phase.CmdSend, phase.CmdPermission, phase.CmdWatch}

func (a *Agents) Execute(ctx context.Context, c phase.Command, _ phase.Snapshot) {
	k := sessionKey{c.Plan, c.Attempt}
	switch c.Type {
	case phase.CmdStartAgent:
		a.start(ctx, c)
	case phase.CmdStopAgent:
		a.stop(c)
	case phase.CmdSend:
		text := prompt.Message(c)
		if s := a.live[k]; s != nil {
			a.touch(k, s)
			if err := s.Send(text); err != nil {
				a.say(c.Plan, err.Error())
			}
		} else {
			a.say(c.Plan, "no live agent to send to: "+clip(text, 80))
		}
	case phase.CmdPermission:
		s := a.live[k]
		switch {
		case c.Checkpoint == nil:
		case s == nil:
			a.say(c.Plan, "no live agent to answer the permission request of "+c.Checkpoint.Tool)
		default:
			a.touch(k, s)
			if err := s.AnswerPermission(c.Checkpoint.RequestID, c.Text == "allow", c.Checkpoint.Input, c.Reason); err != nil {
				a.say(c.Plan, err.Error())
			}
		}
	case phase.CmdWatch:
		if _, reported := a.silentAt[k]; reported {
			a.silentAt[k] = c.At
		}
	}
}

// touch: the session's silence while it waited for hive does not count.
func (a *Agents) touch(k sessionKey, s agent.Session) {
	s.Touch()
	delete(a.silentAt, k)
}

// start starts the agent a job asked for: a plan's executor, a resolver
// (role comb) of its merge conflict, or the phase's verifier. A start that
// fails is reported as the agent's exit, for the engine to judge.
func (a *Agents) start(ctx context.Context, c phase.Command) {
	failed := func(err error) {
		a.inbox.Post(phase.Event{Type: phase.EvAgentExited, Plan: c.Plan, Attempt: c.Attempt, ExitCode: -1, Reason: err.Error()})
	}
	spec, launcher, err := a.spec(ctx, c)
	if err != nil {
		failed(err)
		return
	}
	model := spec.Model
	if model == "" && c.Role == "" && !c.Fallback && len(a.ladder) > 0 {
		model = a.ladder[0]
	}
	a.mu.Lock()
	a.models[sessionKey{c.Plan, c.Attempt}] = model
	if c.Fallback {
		a.fallbacks[sessionKey{c.Plan, c.Attempt}] = true
	}
	a.mu.Unlock()
	s, err := launcher.Start(ctx, spec, a.sink)
	if err != nil {
		failed(err)
		return
	}
	a.live[sessionKey{c.Plan, c.Attempt}] = s
	a.inbox.Post(phase.Event{Type: phase.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: s.PID(), Role: c.Role})
}

func (a *Agents) stop(c phase.Command) {
	if s := a.live[sessionKey{c.Plan, c.Attempt}]; s != nil {
		if c.Kill {
			go s.KillStalled(c.Reason) // it may wait for an interrupt to land
			return
		}
		if c.Interrupt {
			go s.StopTurn(a.grace)
			return
		}
		go s.Stop(a.grace)
		return
	}
	// Not ours: an agent a previous hive process started. End it if it is
	// still there and still that plan's agent.
	if c.PID > 0 && agent.IsAgentOf(c.PID, c.Plan) {
		agent.KillGroup(c.PID)
		a.say(c.Plan, fmt.Sprintf("ended agent pid %d left by an earlier hive process", c.PID))
	}
}

// Exited forgets the session of an exit event, before the event is
// journaled.
func (a *Agents) Exited(ev phase.Event) {
	delete(a.live, sessionKey{ev.Plan, ev.Attempt})
	delete(a.silentAt, sessionKey{ev.Plan, ev.Attempt})
	a.mu.Lock()
	delete(a.models, sessionKey{ev.Plan, ev.Attempt})
	delete(a.fallbacks, sessionKey{ev.Plan, ev.Attempt})
	a.mu.Unlock()
}

// Watch returns the silences to report to the engine at now: agents quiet
// for longer than the stall timeout, which the engine pings, then judges by
// their commits, then has killed. While a silence lasts, the next report
// waits for the time the engine asked for.
func (a *Agents) Watch(now time.Time) []phase.Event {
	var out []phase.Event
	for _, k := range a.sortedKeys() {
		s := a.live[k]
		select {
		case <-s.Done():
			continue
		default:
		}
		d := s.Silent(now)
		if d <= a.stall {
			delete(a.silentAt, k)
			continue
		}
		if next, ok := a.silentAt[k]; ok && (next.IsZero() || now.Before(next)) {
			continue
		}
		a.silentAt[k] = time.Time{}
		out = append(out, phase.Event{Type: phase.EvSilent, Plan: k.plan, Attempt: k.attempt, Text: d.Round(time.Second).String()})
	}
	return out
}

// KillAll kills every session still running, and waits a moment for
// them to end.
func (a *Agents) KillAll() {
	for _, s := range a.Sorted() {
		select {
		case <-s.Done(): // gone: its PID may already belong to another process
		default:
			s.Kill()
		}
	}
	a.Wait(2 * time.Second)
}

// Wait waits up to limit in all for the agents to end, then kills the rest.
func (a *Agents) Wait(limit time.Duration) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	expired := false
	for _, s := range a.Sorted() {
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
// what is done to them happens in the same order every time.
func (a *Agents) sortedKeys() []sessionKey {
	keys := make([]sessionKey, 0, len(a.live))
	for k := range a.live {
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

// Sorted lists the live sessions, in plan and attempt order.
func (a *Agents) Sorted() []agent.Session {
	keys := a.sortedKeys()
	out := make([]agent.Session, len(keys))
	for i, k := range keys {
		out[i] = a.live[k]
	}
	return out
}
