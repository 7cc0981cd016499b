package piperun

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/contract"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/testrun"
	"github.com/hivectl/hive/internal/work"
)

// launch starts a role's agent in the run's worktree with its prompt;
// snap is the machine's state when the command was given. Role agents
// are one-shot: once their turn ends (turnEnded), their input is closed
// and their exit, with the report they wrote, is the machine's to judge.
func (s *executor) launch(ctx context.Context, c pipeline.Command, snap pipeline.Snapshot) (agent.Session, error) {
	left, err := s.setAsideLeftovers(ctx, c)
	if err != nil {
		return nil, err
	}
	prompt, err := s.prompt(ctx, c, left, snap)
	if err != nil {
		return nil, err
	}
	spec := agent.Spec{
		Plan:    c.Job,
		Attempt: c.Attempt,
		Dir:     s.dir,
		Prompt:  prompt,
		Env:     []string{"HIVE_AGENT_ROLE=" + c.Role, "HIVE_RUN=" + fmt.Sprint(s.run.ID)},
		LogPath: filepath.Join(s.o.Repo.Root, ".hive", "logs", fmt.Sprintf("run-%d-%s.attempt-%d.log", s.run.ID, c.Job, c.Attempt)),
		// A role agent is one shot: its CLI holds it to its allotment.
		MaxBudgetUSD: c.BudgetUSD,
	}
	if ladder := s.o.Ladders[c.Role]; c.Rung > 0 && len(ladder) > 0 && !c.Fallback {
		spec.Model = ladder[min(c.Rung, len(ladder)-1)]
	}
	launcher := s.launcher(c.Role)
	if c.Fallback {
		if s.o.Fallback == nil {
			return nil, fmt.Errorf("the run went on with the fallback agent at a usage limit, and none is configured now (models.fallback)")
		}
		launcher = s.o.Fallback
	}
	job, attempt, fallback := c.Job, c.Attempt, c.Fallback
	m := newMeter(s.o.Prices)
	var sess agent.Session
	ready := make(chan struct{}) // sess is set

	// Every report is held to the role's contract: one that breaks it
	// is never the work done.
	terms, err := contract.Load(s.o.Repo.Root, s.o.Home, c.Role)
	if err != nil {
		s.note(job, err.Error()+": hive's own contract of the "+c.Role+" holds")
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
					s.note(job, "the report read as meant: "+strings.Join(readings, "; "))
				}
				if m.Report.Err != "" {
					errs = append([]string{"the report: " + m.Report.Err}, errs...)
				}
				s.keepScreenshots(job, attempt, r)
				s.send(pipeline.Event{Type: pipeline.EvReport, Job: job, Attempt: attempt, Report: r, Errors: errs, MaxAttempts: terms.Attempts()})
			}
		case agent.OutToolCall:
			s.send(pipeline.Event{Type: pipeline.EvToolCall, Job: job, Attempt: attempt, Tool: out.Tool, Text: runner.Fingerprint(out.Tool, out.Input)})
		case agent.OutPermission:
			// A role agent runs unattended: a tool it may not use is
			// refused, and the human is told how to allow it.
			p := permission{job: job, attempt: attempt, out: out}
			if s.asks != nil {
				s.asks(p)
				break
			}
			go func() {
				<-ready
				if sess != nil {
					refuse(sess, p, s.note)
				}
			}()
		case agent.OutSpend, agent.OutResult:
			// A request's spend as it happens, then the rest of the turn's.
			turn := m.turn(out)
			s.send(pipeline.Event{Type: pipeline.EvUsage, Job: job, Attempt: attempt, Spend: turn, MidTurn: out.Kind == agent.OutSpend, Model: out.Model})
			if l := out.Limit; out.Kind == agent.OutResult && out.IsError && l != nil {
				// The provider's limit, not the role's work: the run waits.
				s.send(pipeline.Event{Type: pipeline.EvLimited, Job: job, Attempt: attempt,
					Limit: &work.Limit{Kind: l.Kind, Reset: l.ResetAt(s.o.Now()), Window: l.Window, Text: oneLine(out.Text), Fallback: fallback}})
			}
			if out.Kind == agent.OutResult {
				s.send(pipeline.Event{Type: turnEnded, Job: job, Attempt: attempt})
			}
		case agent.OutExit:
			s.send(pipeline.Event{Type: pipeline.EvAgentExited, Job: job, Attempt: attempt, ExitCode: out.ExitCode, Reason: out.Err})
		}
	}
	sess, err = launcher.Start(ctx, spec, sink)
	close(ready)
	return sess, err
}

// startAgent starts c's role agent (launch), and queues its start, or its
// exit when it could not start.
func (s *driver) startAgent(ctx context.Context, c pipeline.Command) {
	sess, err := s.launch(ctx, c, s.m.Snapshot())
	if err != nil {
		s.queue = append(s.queue, pipeline.Event{Type: pipeline.EvAgentExited, Job: c.Job, Attempt: c.Attempt, ExitCode: -1, Reason: err.Error()})
		return
	}
	s.agents[c.Job] = sess
	s.queue = append(s.queue, pipeline.Event{Type: pipeline.EvAgentStarted, Job: c.Job, Attempt: c.Attempt, PID: sess.PID()})
}

// setAsideLeftovers keeps what an attempt of c's job that was cut off
// mid-turn left uncommitted in the run's worktree at a ref of its own,
// off every branch, and puts the worktree back at its last commit (see
// pipeline.Context.Interrupted). It returns the ref, "" when the attempt
// left nothing. A hive killed after the setting aside finds the worktree
// clean and the ref there: the same ref.
func (s *executor) setAsideLeftovers(ctx context.Context, c pipeline.Command) (string, error) {
	if c.Context == nil || !c.Context.Interrupted {
		return "", nil
	}
	ref := fmt.Sprintf("refs/hive/left/run-%d/%s.attempt-%d", s.run.ID, refSlug(c.Job), c.Attempt-1)
	wt := s.o.Repo.At(s.dir)
	kept, err := wt.KeepChanges(ctx, ref, fmt.Sprintf("hive: what run %d's %s (attempt %d) left uncommitted when it was cut off", s.run.ID, c.Job, c.Attempt-1))
	if err != nil {
		return "", fmt.Errorf("set aside what the cut-off attempt left uncommitted in %s: %w", s.dir, err)
	}
	if kept {
		s.note(c.Job, fmt.Sprintf("the cut-off attempt %d left uncommitted changes: kept at %s (git diff HEAD %s; git update-ref -d %s drops them), and attempt %d starts from the last commit",
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

// launcher starts the agents of a role.
func (s *executor) launcher(role string) agent.Launcher { return s.o.launcher(role) }

// launcher starts the agents of a role: Roles' own, else Launcher.
func (o Options) launcher(role string) agent.Launcher {
	if l := o.Roles[role]; l != nil {
		return l
	}
	return o.Launcher
}

// prompt renders the prompt of c's role (or its variant); left is the ref
// that holds what the attempt before it left uncommitted, if any.
func (s *executor) prompt(ctx context.Context, c pipeline.Command, left string, snap pipeline.Snapshot) (string, error) {
	name := c.Prompt
	if name == "" {
		// A framework's variant of the role, where the repository's
		// manifests name one and a prompt for it exists.
		name, _ = roles.Variant(s.dir, s.o.Home, c.Role)
	}
	src, text, err := roles.Resolve(s.o.Repo.Root, s.o.Home, name)
	if err != nil {
		return "", err
	}
	d := roles.Data{Role: c.Role, Objective: snap.Spec.Objective, Context: c.Context, PhaseDir: snap.Spec.PhaseDir, Files: snap.Spec.Context,
		Warnings: s.warnings(c, snap), Tools: snap.Spec.Tools, Left: left}
	if c.Role == pipeline.RoleDocumenter && s.o.Journal != nil {
		d.Lessons = memory.Proved(s.o.Journal, s.run)
	}
	d.Parts = s.curate(ctx, c, snap)
	base := filepath.Base(snap.Spec.PhaseDir)
	d.PhaseSlug = base
	d.PhaseNumber, _, _ = strings.Cut(base, "-")
	for _, j := range snap.Jobs {
		if j.ID == c.Job {
			break
		}
		if j.Attempts > 0 && j.Role != c.Role && j.Type == "" { // hive's own steps are no role to challenge
			d.Previous = append(d.Previous, j.Role)
		}
	}
	if cmd, err := testrun.Find(s.dir, s.o.TestCommand); err == nil {
		d.TestCommand = cmd.String()
	}
	out, err := roles.Render(name, text, d)
	if err != nil && src.Origin != roles.FromBundled {
		// A prompt written for another tool (the shell Hive's, with its
		// {{EPIC_ID}} placeholders) must not stop the run: hive's own
		// prompt of the role plays it, and the human is told.
		own, berr := roles.Bundled(c.Role)
		if berr == nil {
			path := src.Path
			if rel, rerr := filepath.Rel(s.o.Repo.Root, path); rerr == nil && filepath.IsLocal(rel) {
				path = filepath.ToSlash(rel)
			}
			s.note(c.Job, fmt.Sprintf("%s does not render (%v): hive's own %s prompt is used; fix or delete it (hive doctor)", path, err, c.Role))
			return roles.Render(c.Role, own, d)
		}
	}
	return out, err
}

// lint lints the architect's phase in the run's worktree: its errors, one
// per line with file and line.
func (s *executor) lint(dir string) []string {
	proj, err := plan.LoadProject(s.dir)
	if err != nil {
		return []string{err.Error()}
	}
	ph, err := proj.FindPhase(filepath.Base(dir))
	if err != nil || ph.Dir != dir {
		return []string{fmt.Sprintf("%s: no plans were written there (write %s/NN-01-PLAN.md and commit it)", dir, dir)}
	}
	if len(ph.Plans) == 0 {
		return []string{fmt.Sprintf("%s: the folder holds no PLAN.md file", dir)}
	}
	var errs []string
	for _, d := range append(ph.Diagnostics, proj.Validate(ph)...) {
		if d.Severity == plan.SeverityError {
			errs = append(errs, d.String())
		}
	}
	return errs
}

// permission is a role agent's request to use a tool.
type permission struct {
	job     string
	attempt int
	out     agent.Output
}

// refuse denies a role agent's permission request and says how to allow
// the tool.
func (s *driver) refuse(p permission) {
	if sess := s.agents[p.job]; sess != nil {
		refuse(sess, p, s.o.Observer.Note)
	}
}

// refuse denies p on sess, and notes how to allow the tool.
func refuse(sess agent.Session, p permission, note func(job, text string)) {
	if err := sess.AnswerPermission(p.out.RequestID, false, p.out.Input, Unattended(p.out.Tool)); err != nil {
		note(p.job, "refuse the permission request: "+err.Error())
	}
	note(p.job, fmt.Sprintf("refused %s's request to use %s: allow the tool in models.executor args (e.g. --allowedTools)", p.job, p.out.Tool))
}

// Unattended is what a role agent is told when hive refuses its request
// to use tool.
func Unattended(tool string) string {
	return "hive run's roles work unattended and may not ask for permissions; do without " + tool
}

// watch ends role agents silent for longer than the stall timeout: their
// exit without a report is the machine's to judge (a retry, then a human).
func (s *driver) watch(now time.Time) {
	for job, sess := range s.agents {
		if !s.stalled[job] {
			s.stalled[job] = endSilent(sess, now, s.o.Stall, func(text string) { s.o.Observer.Note(job, text) })
		}
	}
}

// endSilent ends sess when it has printed nothing for longer than stall,
// notes why, and says whether it did.
func endSilent(sess agent.Session, now time.Time, stall time.Duration, note func(string)) bool {
	d := sess.Silent(now)
	if d <= stall {
		return false
	}
	note(fmt.Sprintf("silent for %s: ended", d.Round(time.Second)))
	go sess.KillStalled(fmt.Sprintf("silent for %s", d.Round(time.Second)))
	return true
}

// meter prices an agent session's usage as it comes: hive's price for a
// model it knows, else the CLI's own figure.
type meter struct {
	prices  pricing.Table
	session float64 // the session's cost so far
}

func newMeter(prices pricing.Table) *meter {
	if prices == nil {
		prices = pricing.Defaults()
	}
	return &meter{prices: prices}
}

// turn is one usage report's tokens, with the session's cost so far.
func (m *meter) turn(out agent.Output) work.Spend {
	u := out.Usage
	turn := work.Spend{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}
	if usd, ok := m.prices.Cost(out.Model, pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens,
		CacheWrite: u.CacheCreationInputTokens, CacheRead: u.CacheReadInputTokens}); ok {
		m.session += usd
	} else {
		m.session = max(m.session, out.CostUSD) // a model without a price: the CLI's figure
	}
	turn.CostUSD = m.session
	return turn
}
