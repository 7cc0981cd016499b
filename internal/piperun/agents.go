package piperun

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/testrun"
)

// startAgent starts a role's agent in the run's worktree with its prompt.
// Role agents are one-shot: once their turn ends, their input is closed
// and their exit, with the report they wrote, is the machine's to judge.
func (s *shell) startAgent(ctx context.Context, c pipeline.Command) {
	failed := func(err error) {
		s.queue = append(s.queue, pipeline.Event{Type: pipeline.EvAgentExited, Job: c.Job, Attempt: c.Attempt, ExitCode: -1, Reason: err.Error()})
	}
	prompt, err := s.prompt(c)
	if err != nil {
		failed(err)
		return
	}
	spec := agent.Spec{
		Plan:    c.Job,
		Attempt: c.Attempt,
		Dir:     s.dir,
		Prompt:  prompt,
		Env:     []string{"HIVE_AGENT_ROLE=" + c.Role, "HIVE_RUN=" + fmt.Sprint(s.run.ID)},
		LogPath: filepath.Join(s.o.Repo.Root, ".hive", "logs", fmt.Sprintf("run-%d-%s.attempt-%d.log", s.run.ID, c.Job, c.Attempt)),
	}
	job, attempt := c.Job, c.Attempt
	sink := func(out agent.Output) {
		switch out.Kind {
		case agent.OutText:
			for _, m := range protocol.Parse(out.Text) {
				if m.Kind != protocol.HiveReport {
					continue
				}
				if m.Report.Err != "" {
					s.note(job, "unreadable HIVE_REPORT (kept in the log): "+m.Report.Err)
					continue
				}
				s.send(pipeline.Event{Type: pipeline.EvReport, Job: job, Attempt: attempt, Report: runner.ReportOf(m.Report)})
			}
		case agent.OutResult:
			s.send(pipeline.Event{Type: pipeline.EvUsage, Job: job, Attempt: attempt,
				Spend: engine.Spend{InputTokens: out.Usage.InputTokens, OutputTokens: out.Usage.OutputTokens, CostUSD: out.CostUSD}})
			s.send(pipeline.Event{Type: turnEnded, Job: job, Attempt: attempt})
		case agent.OutExit:
			s.send(pipeline.Event{Type: pipeline.EvAgentExited, Job: job, Attempt: attempt, ExitCode: out.ExitCode, Reason: out.Err})
		}
	}
	sess, err := s.o.Launcher.Start(ctx, spec, sink)
	if err != nil {
		failed(err)
		return
	}
	s.agents[c.Job] = sess
	s.queue = append(s.queue, pipeline.Event{Type: pipeline.EvAgentStarted, Job: c.Job, Attempt: c.Attempt, PID: sess.PID()})
}

// prompt renders the prompt of c's role (or its variant).
func (s *shell) prompt(c pipeline.Command) (string, error) {
	name := c.Role
	if c.Prompt != "" {
		name = c.Prompt
	}
	_, text, err := roles.Resolve(s.o.Repo.Root, s.o.Home, name)
	if err != nil {
		return "", err
	}
	snap := s.m.Snapshot()
	d := roles.Data{Role: c.Role, Objective: snap.Spec.Objective, Context: c.Context, PhaseDir: snap.Spec.PhaseDir}
	base := filepath.Base(snap.Spec.PhaseDir)
	d.PhaseSlug = base
	d.PhaseNumber, _, _ = strings.Cut(base, "-")
	for _, j := range snap.Jobs {
		if j.ID == c.Job {
			break
		}
		if j.Attempts > 0 && j.Role != c.Role {
			d.Previous = append(d.Previous, j.Role)
		}
	}
	if cmd, err := testrun.Detect(s.dir); err == nil {
		d.TestCommand = cmd.String()
	}
	return roles.Render(name, text, d)
}

// lint lints the architect's phase in the run's worktree: its errors, one
// per line with file and line.
func (s *shell) lint() []string {
	dir := s.m.Snapshot().Spec.PhaseDir
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
