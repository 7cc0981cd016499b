package roleagent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/contract"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun/oneshot"
	"github.com/hivectl/hive/internal/piperun/screenshots"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/sessions"
	"github.com/hivectl/hive/internal/work"
)

// Starter starts the role agents of a run in its worktree, and reads
// what they print into the pipeline machine's events.
type Starter struct {
	Repo *gitx.Repo // the user's repository: the agents' logs, the roles' contracts
	Dir  string     // the run's worktree
	Run  int64
	Home string // where the user's global prompts and contracts are; "" for none
	// Launcher starts the agents of a role; Fallback those of a run that
	// went on with the fallback agent at a usage limit (nil: none is
	// configured).
	Launcher func(role string) agent.Launcher
	Fallback agent.Launcher
	// Ladders are the models of each role's rungs; Prices price every
	// turn (nil: the built-in table).
	Ladders map[string][]string
	Prices  pricing.Table
	Now     func() time.Time
	// Prompt renders the prompt of c's role; left is the ref that holds
	// what the attempt before it left uncommitted, if any.
	Prompt func(ctx context.Context, c roleplan.Command, left string, snap roleplan.Snapshot) (string, error)
	// Send is given what an agent meets on the way: the events for the
	// machine, and notes (roleplan.EvNote) and a turn's end (TurnEnded)
	// for whoever holds the run.
	Send func(roleplan.Event)
	// Asks is given a role agent's request to use a tool (nil: refused
	// at once).
	Asks func(Permission)
}

// TurnEnded is the pseudo-event of the end of a role agent's turn, never
// journaled: its input is then closed.
const TurnEnded roleplan.EventType = "turn-ended"

// note tells whoever holds the run something worth knowing of job.
func (st *Starter) note(job, text string) {
	st.Send(roleplan.Event{Type: roleplan.EvNote, Job: job, Text: text})
}

// Start starts a role's agent in the run's worktree with its prompt;
// snap is the machine's state when the command was given. Role agents
// are one-shot: once their turn ends (TurnEnded), their input is closed
// and their exit, with the report they wrote, is the machine's to judge.
func (st *Starter) Start(ctx context.Context, c roleplan.Command, snap roleplan.Snapshot) (agent.Session, error) {
	left, err := st.setAside(ctx, c)
	if err != nil {
		return nil, err
	}
	prompt, err := st.Prompt(ctx, c, left, snap)
	if err != nil {
		return nil, err
	}
	spec := agent.Spec{
		Plan:    c.Job,
		Attempt: c.Attempt,
		Dir:     st.Dir,
		Prompt:  prompt,
		Env:     []string{"HIVE_AGENT_ROLE=" + c.Role, "HIVE_RUN=" + fmt.Sprint(st.Run)},
		LogPath: filepath.Join(st.Repo.Root, ".hive", "logs", fmt.Sprintf("run-%d-%s.attempt-%d.log", st.Run, c.Job, c.Attempt)),
		// A role agent is one shot: its CLI holds it to its allotment.
		MaxBudgetUSD: c.BudgetUSD,
	}
	if ladder := st.Ladders[c.Role]; c.Rung > 0 && len(ladder) > 0 && !c.Fallback {
		spec.Model = ladder[min(c.Rung, len(ladder)-1)]
	}
	launcher := st.Launcher(c.Role)
	if c.Fallback {
		if st.Fallback == nil {
			return nil, fmt.Errorf("the run went on with the fallback agent at a usage limit, and none is configured now (models.fallback)")
		}
		launcher = st.Fallback
	}
	job, attempt, fallback := c.Job, c.Attempt, c.Fallback
	m := oneshot.NewMeter(st.Prices)
	var sess agent.Session
	ready := make(chan struct{}) // sess is set

	// Every report is held to the role's contract: one that breaks it
	// is never the work done.
	terms, err := contract.Load(st.Repo.Root, st.Home, c.Role)
	if err != nil {
		st.note(job, err.Error()+": hive's own contract of the "+c.Role+" holds")
		terms, _ = contract.Bundled(c.Role)
	}
	sink := func(out agent.Output) {
		switch out.Kind {
		case agent.OutText:
			for _, m := range protocol.Parse(out.Text) {
				if m.Kind != protocol.HiveReport {
					continue
				}
				r := &m.Report.Report
				// What the model wrote as it meant it, where that is clear
				// (an approval with comments, passed: true), before
				// the contract judges it.
				readings, errs := contract.Accept(terms, r, out.Text)
				errs = append(errs, contract.Validate(terms, *r)...)
				if len(readings) > 0 {
					st.note(job, "the report read as meant: "+strings.Join(readings, "; "))
				}
				if m.Report.Err != "" {
					errs = append([]string{"the report: " + m.Report.Err}, errs...)
				}
				screenshots.Keep(r, st.Dir, st.Repo.Root, st.Run, fmt.Sprintf("%s-%d", job, attempt), func(text string) { st.note(job, text) })
				st.Send(roleplan.Event{Type: roleplan.EvReport, Job: job, Attempt: attempt, Report: r, Errors: errs, MaxAttempts: terms.Attempts()})
			}
		case agent.OutToolCall:
			st.Send(roleplan.Event{Type: roleplan.EvToolCall, Job: job, Attempt: attempt, Tool: out.Tool, Text: sessions.Fingerprint(out.Tool, out.Input)})
		case agent.OutPermission:
			// A role agent runs unattended: a tool it may not use is
			// refused, and the human is told how to allow it.
			p := Permission{Job: job, Attempt: attempt, Out: out}
			if st.Asks != nil {
				st.Asks(p)
				break
			}
			go func() {
				<-ready
				if sess != nil {
					Refuse(sess, p, st.note)
				}
			}()
		case agent.OutSpend, agent.OutResult:
			// A request's spend as it happens, then the rest of the turn's.
			turn := m.Turn(out)
			st.Send(roleplan.Event{Type: roleplan.EvUsage, Job: job, Attempt: attempt, Spend: turn, MidTurn: out.Kind == agent.OutSpend, Model: out.Model})
			if l := out.Limit; out.Kind == agent.OutResult && out.IsError && l != nil {
				// The provider's limit, not the role's work: the run waits.
				st.Send(roleplan.Event{Type: roleplan.EvLimited, Job: job, Attempt: attempt,
					Limit: &work.Limit{Kind: l.Kind, Reset: l.ResetAt(st.Now()), Window: l.Window, Text: oneLine(out.Text), Fallback: fallback}})
			}
			if out.Kind == agent.OutResult {
				st.Send(roleplan.Event{Type: TurnEnded, Job: job, Attempt: attempt})
			}
		case agent.OutExit:
			st.Send(roleplan.Event{Type: roleplan.EvAgentExited, Job: job, Attempt: attempt, ExitCode: out.ExitCode, Reason: out.Err})
		}
	}
	sess, err = launcher.Start(ctx, spec, sink)
	close(ready)
	return sess, err
}

// setAside keeps what an attempt of c's job that was cut off
// mid-turn left uncommitted in the run's worktree at a ref of its own,
// off every branch, and puts the worktree back at its last commit (see
// roleplan.Context.Interrupted). It returns the ref, "" when the attempt
// left nothing. A hive killed after the setting aside finds the worktree
// clean and the ref there: the same ref.
func (st *Starter) setAside(ctx context.Context, c roleplan.Command) (string, error) {
	if c.Context == nil || !c.Context.Interrupted {
		return "", nil
	}
	ref := fmt.Sprintf("refs/hive/left/run-%d/%s.attempt-%d", st.Run, refSlug(c.Job), c.Attempt-1)
	wt := st.Repo.At(st.Dir)
	kept, err := wt.KeepChanges(ctx, ref, fmt.Sprintf("hive: what run %d's %s (attempt %d) left uncommitted when it was cut off", st.Run, c.Job, c.Attempt-1))
	if err != nil {
		return "", fmt.Errorf("set aside what the cut-off attempt left uncommitted in %s: %w", st.Dir, err)
	}
	if kept {
		st.note(c.Job, fmt.Sprintf("the cut-off attempt %d left uncommitted changes: kept at %s (git diff HEAD %s; git update-ref -d %s drops them), and attempt %d starts from the last commit",
			c.Attempt-1, ref, ref, ref, c.Attempt))
		return ref, nil
	}
	if wt.RefHash(ctx, ref) != "" {
		return ref, nil
	}
	return "", nil
}

// refSlug is name as a part of a ref: what git refuses in one (a space,
// a colon, "..") becomes "-".
func refSlug(name string) string {
	b := []byte(name)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || (c == '.' && i > 0 && b[i-1] != '.')
		if !ok {
			b[i] = '-'
		}
	}
	return strings.TrimSuffix(string(b), ".")
}

// Permission is a role agent's request to use a tool.
type Permission struct {
	Job     string
	Attempt int
	Out     agent.Output
}

// Refuse denies p on sess, and notes how to allow the tool.
func Refuse(sess agent.Session, p Permission, note func(job, text string)) {
	if err := sess.AnswerPermission(p.Out.RequestID, false, p.Out.Input, Unattended(p.Out.Tool)); err != nil {
		note(p.Job, "refuse the permission request: "+err.Error())
	}
	note(p.Job, fmt.Sprintf("refused %s's request to use %s: allow the tool in models.executor args (e.g. --allowedTools)", p.Job, p.Out.Tool))
}

// Unattended is what a role agent is told when hive refuses its request
// to use tool.
func Unattended(tool string) string {
	return "hive run's roles work unattended and may not ask for permissions; do without " + tool
}

// EndSilent ends sess when it has printed nothing for longer than stall,
// notes why, and says whether it did.
func EndSilent(sess agent.Session, now time.Time, stall time.Duration, note func(string)) bool {
	d := sess.Silent(now)
	if d <= stall {
		return false
	}
	note(fmt.Sprintf("silent for %s: ended", d.Round(time.Second)))
	go sess.KillStalled(fmt.Sprintf("silent for %s", d.Round(time.Second)))
	return true
}

// oneLine is s on one line, cut to 200 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}
