package lines

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/tui/pipelinescreen"
)

// RunPrinter prints a run's progress: a line per role start and end, per
// challenge, decision and fix loop; or JSON
type RunPrinter struct {
	W      io.Writer
	JSON   bool
	Start  time.Time
	Prompt bool // a human answers at this terminal
	// Wait, when a question waits for hive answer without a terminal, is
	// how long; Answer spells the hive answer command of job's question
	// (nil: no question is answered from elsewhere).
	Wait   time.Duration
	Answer func(job, text string) string
	Width  int // of the terminal; 0 for none
	plans  []pipelinescreen.PlanState
	Repo   *gitx.Repo       // to show findings with their code
	Clock  func() time.Time // nil: the time now (hive log replays a journal's times)
}

// PlanStates are the implementers' plans as last told (Plans).
func (p *RunPrinter) PlanStates() []pipelinescreen.PlanState { return p.plans }

// Plans implements piperun.PlansObserver: the implementers' plans, for
// the pipeline view.
func (p *RunPrinter) Plans(states []piperun.PlanState) {
	p.plans = p.plans[:0]
	for _, s := range states {
		p.plans = append(p.plans, pipelinescreen.PlanState{ID: s.ID, State: s.State})
	}
}

func (p *RunPrinter) stamp() string {
	now := time.Now()
	if p.Clock != nil {
		now = p.Clock()
	}
	return fmt.Sprintf("%6s", now.Sub(p.Start).Round(time.Second))
}

func (p *RunPrinter) Event(ev roleplan.Event, s roleplan.Snapshot) {
	if p.JSON {
		json.NewEncoder(p.W).Encode(map[string]any{"event": ev})
		return
	}
	switch ev.Type {
	case roleplan.EvStarted:
		fmt.Fprintf(p.W, "%s  run: %s (workflow %s)\n", p.stamp(), ev.Spec.Objective, ev.Spec.Workflow.Name)
	case roleplan.EvReport:
		if ev.Report != nil {
			what := ev.Report.Summary
			if what == "" {
				what = ev.Report.Issue + ev.Report.Blocker
			}
			fmt.Fprintf(p.W, "%s  %-17s reported %s: %s\n", p.stamp(), ev.Job, ev.Report.Status, OneLineClip(what, 80))
		}
	case roleplan.EvLinted:
		if len(ev.Errors) == 0 {
			fmt.Fprintf(p.W, "%s  %-17s plans lint clean\n", p.stamp(), "architect")
		}
	case roleplan.EvPhaseDone:
		switch {
		case ev.OK:
			fmt.Fprintf(p.W, "%s  %-17s every plan complete and merged\n", p.stamp(), "implementers")
		case ev.OverBudget:
			fmt.Fprintf(p.W, "%s  %-17s the phase stopped at its share of the budget: %s\n", p.stamp(), "implementers", OneLineClip(ev.Reason, 100))
		default:
			fmt.Fprintf(p.W, "%s  %-17s the phase did not complete: %s\n", p.stamp(), "implementers", OneLineClip(ev.Reason, 100))
		}
	case roleplan.EvTestsRan:
		switch t := ev.Tests; {
		case t == nil:
		case t.None:
			fmt.Fprintf(p.W, "%s  %-17s skipped: %s (not a pass)\n", p.stamp(), "tests", NoTestsText(t))
		default:
			fmt.Fprintf(p.W, "%s  %-17s %s: exit %d, %d passed, %d failed\n", p.stamp(), "tests", t.Command, t.ExitCode, t.Passed, t.Failed)
		}
	case roleplan.EvBuilt:
		switch t := ev.Tests; {
		case t == nil:
		case t.None:
			fmt.Fprintf(p.W, "%s  %-17s skipped: nothing to build (not a pass)\n", p.stamp(), ev.Job)
		default:
			fmt.Fprintf(p.W, "%s  %-17s %s: exit %d\n", p.stamp(), ev.Job, t.Command, t.ExitCode)
		}
	}
}

func (p *RunPrinter) Command(c roleplan.Command, s roleplan.Snapshot) {
	if p.JSON {
		json.NewEncoder(p.W).Encode(map[string]any{"command": c})
		return
	}
	switch c.Type {
	case roleplan.CmdStartAgent:
		fmt.Fprintf(p.W, "%s  %-17s started (attempt %d)\n", p.stamp(), c.Job, c.Attempt)
	case roleplan.CmdRunPhase:
		fmt.Fprintf(p.W, "%s  %-17s running the architect's plans in parallel\n", p.stamp(), c.Job)
	case roleplan.CmdNote:
		fmt.Fprintf(p.W, "%s  %-17s %s\n", p.stamp(), c.Job, c.Text)
	case roleplan.CmdCheckpoint:
		cp := c.Checkpoint
		fmt.Fprintf(p.W, "%s  %-17s asks: %s (%s)\n", p.stamp(), c.Job, cp.Question, strings.Join(cp.Options, " / "))
		if cp.Details != "" {
			fmt.Fprintf(p.W, "        %s\n", strings.ReplaceAll(strings.TrimSpace(cp.Details), "\n", "\n        "))
		}
		if cp.Kind == roleplan.KindFindings && cp.View {
			fmt.Fprint(p.W, FindingsWithCode(context.Background(), p.Repo, CodeRef(context.Background(), p.Repo, s.Spec.Branch), cp.Findings))
		}
		switch {
		case p.Answer == nil:
		case p.Prompt:
			fmt.Fprintf(p.W, "answer (or %s from another terminal): ", p.Answer(c.Job, cp.Example()))
		case p.Wait > 0:
			// Without a terminal nobody can answer here: say how, and
			// for how long the run waits.
			fmt.Fprintf(p.W, "        answer from another terminal: %s\n        (the run waits up to %s for it, then stops with exit 5 and says how to go on)\n",
				p.Answer(c.Job, cp.Example()), p.Wait)
		}
	}
}

func (p *RunPrinter) Note(job, text string) {
	if p.JSON {
		json.NewEncoder(p.W).Encode(map[string]any{"note": text, "job": job})
		return
	}
	fmt.Fprintf(p.W, "%s  %-17s %s\n", p.stamp(), job, text)
}

func (p *RunPrinter) Result(res piperun.Result) {
	s := res.Snapshot
	if p.JSON {
		json.NewEncoder(p.W).Encode(map[string]any{"result": map[string]any{"run": res.Run.ID, "outcome": s.Outcome, "branch": res.Branch,
			"merged": res.Merged, "pushed": res.Pushed, "pull_request": res.PullRequest, "undelivered": res.Undelivered, "jobs": s.Jobs, "challenges": s.Challenges, "decisions": s.Decisions, "fix_loops": s.FixLoops,
			"tests": s.Tests, "findings": s.Findings, "notes": res.Notes}})
		return
	}
	fmt.Fprintf(p.W, "\n%s", p.view(s))
	fmt.Fprintf(p.W, "\nrun %d %s\n", res.Run.ID, s.Outcome)
	if len(s.Challenges) > 0 || len(s.Decisions) > 0 || s.FixLoops > 0 {
		fmt.Fprintf(p.W, "  %d challenge(s), %d decision(s), %d fix loop(s)\n", len(s.Challenges), len(s.Decisions), s.FixLoops)
	}
	if t := s.Tests; t != nil && t.None {
		fmt.Fprintf(p.W, "  no test ran: %s; the work is not verified by tests (set commands.test in .hive/config.json)\n", NoTestsText(t))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(p.W, "%s\n", n)
	}
}

// NoTestsText says why no test ran: the runner found none, or hive
// found no test command.
func NoTestsText(t *roleplan.Tests) string {
	if t.Command != "" {
		return t.Command + " found no test"
	}
	return "no tests found"
}

// ReadAnswers sends each line typed at the terminal.
func ReadAnswers(r io.Reader, out chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out <- line
		}
	}
}

// view is the pipeline view, styled only on a terminal.
func (p *RunPrinter) view(s roleplan.Snapshot) string {
	plans := p.plans
	if len(s.Plans) > 0 {
		plans = plans[:0:0]
		for _, pr := range s.Plans {
			plans = append(plans, pipelinescreen.PlanState{ID: pr.ID, State: pr.State})
		}
	}
	v := pipelinescreen.View(s, plans, max(p.Width, 80))
	if p.Width == 0 {
		v = ansi.Strip(v)
	}
	return v
}
