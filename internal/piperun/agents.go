package piperun

import (
	"context"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/piperun/roleagent"
	"github.com/hivectl/hive/internal/piperun/rolecontext"
	"github.com/hivectl/hive/internal/roleplan"
)

// starter starts the run's role agents in its worktree: what they meet
// goes to send, their permission requests to asks.
func (s *executor) starter() *roleagent.Starter {
	return &roleagent.Starter{Repo: s.o.Repo, Dir: s.dir, Run: s.run.ID, Home: s.o.Home, Launcher: s.launcher, Fallback: s.o.Fallback,
		Ladders: s.o.Ladders, Prices: s.o.Prices, Now: s.o.Now, Prompt: s.curator().Prompt, Send: s.send, Asks: s.asks}
}

// startAgent starts c's role agent (roleagent.Starter.Start), and queues
// its start, or its exit when it could not start.
func (s *driver) startAgent(ctx context.Context, c roleplan.Command) {
	sess, err := s.starter().Start(ctx, c, s.m.Snapshot())
	if err != nil {
		s.events.Post(roleplan.Event{Type: roleplan.EvAgentExited, Job: c.Job, Attempt: c.Attempt, ExitCode: -1, Reason: err.Error()})
		return
	}
	s.agents[c.Job] = sess
	s.events.Post(roleplan.Event{Type: roleplan.EvAgentStarted, Job: c.Job, Attempt: c.Attempt, PID: sess.PID()})
}

// launcher starts the agents of a role.
func (s *executor) launcher(role string) agent.Launcher { return s.o.launcher(role) }

// curator tells the run's roles what they work from: their prompt, the
// context curated for each, the memory's warnings.
func (s *executor) curator() *rolecontext.Curator {
	return &rolecontext.Curator{Repo: s.o.Repo, Dir: s.dir, Journal: s.o.Journal, Run: s.run, Home: s.o.Home, TestCommand: s.o.TestCommand,
		Now: s.o.Now, Note: s.note}
}

// launcher starts the agents of a role: Roles' own, else Launcher.
func (o Options) launcher(role string) agent.Launcher {
	if l := o.Roles[role]; l != nil {
		return l
	}
	return o.Launcher
}

// refuse denies a role agent's permission request and says how to allow
// the tool.
func (s *driver) refuse(p roleagent.Permission) {
	if sess := s.agents[p.Job]; sess != nil {
		roleagent.Refuse(sess, p, s.o.Observer.Note)
	}
}

// watch ends role agents silent for longer than the stall timeout: their
// exit without a report is the machine's to judge (a retry, then a human).
func (s *driver) watch(now time.Time) {
	for job, sess := range s.agents {
		if !s.stalled[job] {
			s.stalled[job] = roleagent.EndSilent(sess, now, s.o.Stall, func(text string) { s.o.Observer.Note(job, text) })
		}
	}
}
