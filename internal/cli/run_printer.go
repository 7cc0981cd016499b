package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/tui"
)

// runPrinter prints a run's progress: a line per role start and end, per
// challenge, decision and fix loop; or JSON lines.
type runPrinter struct {
	w      io.Writer
	json   bool
	start  time.Time
	prompt bool // a human answers at this terminal
	// wait, when a question waits for hive answer without a terminal, is
	// how long; answer spells the hive answer command of job's question
	// (nil: no question is answered from elsewhere).
	wait   time.Duration
	answer func(job, text string) string
	width  int // of the terminal; 0 for none
	plans  []tui.PlanState
	repo   *gitx.Repo       // to show findings with their code
	clock  func() time.Time // nil: the time now (hive log replays a journal's times)
}

// Plans implements piperun.PlansObserver: the implementers' plans, for
// the pipeline view.
func (p *runPrinter) Plans(states []piperun.PlanState) {
	p.plans = p.plans[:0]
	for _, s := range states {
		p.plans = append(p.plans, tui.PlanState{ID: s.ID, State: s.State})
	}
}

func (p *runPrinter) stamp() string {
	now := time.Now()
	if p.clock != nil {
		now = p.clock()
	}
	return fmt.Sprintf("%6s", now.Sub(p.start).Round(time.Second))
}

func (p *runPrinter) Event(ev pipeline.Event, s pipeline.Snapshot) {
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"event": ev})
		return
	}
	switch ev.Type {
	case pipeline.EvStarted:
		fmt.Fprintf(p.w, "%s  run: %s (workflow %s)\n", p.stamp(), ev.Spec.Objective, ev.Spec.Workflow.Name)
	case pipeline.EvReport:
		if ev.Report != nil {
			what := ev.Report.Summary
			if what == "" {
				what = ev.Report.Issue + ev.Report.Blocker
			}
			fmt.Fprintf(p.w, "%s  %-17s reported %s: %s\n", p.stamp(), ev.Job, ev.Report.Status, oneLineClip(what, 80))
		}
	case pipeline.EvLinted:
		if len(ev.Errors) == 0 {
			fmt.Fprintf(p.w, "%s  %-17s plans lint clean\n", p.stamp(), "architect")
		}
	case pipeline.EvPhaseDone:
		switch {
		case ev.OK:
			fmt.Fprintf(p.w, "%s  %-17s every plan complete and merged\n", p.stamp(), "implementers")
		case ev.OverBudget:
			fmt.Fprintf(p.w, "%s  %-17s the phase stopped at its share of the budget: %s\n", p.stamp(), "implementers", oneLineClip(ev.Reason, 100))
		default:
			fmt.Fprintf(p.w, "%s  %-17s the phase did not complete: %s\n", p.stamp(), "implementers", oneLineClip(ev.Reason, 100))
		}
	case pipeline.EvTestsRan:
		switch t := ev.Tests; {
		case t == nil:
		case t.None:
			fmt.Fprintf(p.w, "%s  %-17s skipped: %s (not a pass)\n", p.stamp(), "tests", noTestsText(t))
		default:
			fmt.Fprintf(p.w, "%s  %-17s %s: exit %d, %d passed, %d failed\n", p.stamp(), "tests", t.Command, t.ExitCode, t.Passed, t.Failed)
		}
	case pipeline.EvBuilt:
		switch t := ev.Tests; {
		case t == nil:
		case t.None:
			fmt.Fprintf(p.w, "%s  %-17s skipped: nothing to build (not a pass)\n", p.stamp(), ev.Job)
		default:
			fmt.Fprintf(p.w, "%s  %-17s %s: exit %d\n", p.stamp(), ev.Job, t.Command, t.ExitCode)
		}
	}
}

func (p *runPrinter) Command(c pipeline.Command, s pipeline.Snapshot) {
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"command": c})
		return
	}
	switch c.Type {
	case pipeline.CmdStartAgent:
		fmt.Fprintf(p.w, "%s  %-17s started (attempt %d)\n", p.stamp(), c.Job, c.Attempt)
	case pipeline.CmdRunPhase:
		fmt.Fprintf(p.w, "%s  %-17s running the architect's plans in parallel\n", p.stamp(), c.Job)
	case pipeline.CmdNote:
		fmt.Fprintf(p.w, "%s  %-17s %s\n", p.stamp(), c.Job, c.Text)
	case pipeline.CmdCheckpoint:
		cp := c.Checkpoint
		fmt.Fprintf(p.w, "%s  %-17s asks: %s (%s)\n", p.stamp(), c.Job, cp.Question, strings.Join(cp.Options, " / "))
		if cp.Details != "" {
			fmt.Fprintf(p.w, "        %s\n", strings.ReplaceAll(strings.TrimSpace(cp.Details), "\n", "\n        "))
		}
		if cp.Kind == pipeline.KindFindings && cp.View {
			fmt.Fprint(p.w, findingsWithCode(context.Background(), p.repo, codeRef(context.Background(), p.repo, s.Spec.Branch), cp.Findings))
		}
		switch {
		case p.answer == nil:
		case p.prompt:
			fmt.Fprintf(p.w, "answer (or %s from another terminal): ", p.answer(c.Job, cp.Example()))
		case p.wait > 0:
			// Without a terminal nobody can answer here: say how, and
			// for how long the run waits.
			fmt.Fprintf(p.w, "        answer from another terminal: %s\n        (the run waits up to %s for it, then stops with exit 5 and says how to go on)\n",
				p.answer(c.Job, cp.Example()), p.wait)
		}
	}
}

func (p *runPrinter) Note(job, text string) {
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"note": text, "job": job})
		return
	}
	fmt.Fprintf(p.w, "%s  %-17s %s\n", p.stamp(), job, text)
}

func (p *runPrinter) Result(res piperun.Result) {
	s := res.Snapshot
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"result": map[string]any{"run": res.Run.ID, "outcome": s.Outcome, "branch": res.Branch,
			"merged": res.Merged, "pushed": res.Pushed, "pull_request": res.PullRequest, "undelivered": res.Undelivered, "jobs": s.Jobs, "challenges": s.Challenges, "decisions": s.Decisions, "fix_loops": s.FixLoops,
			"tests": s.Tests, "findings": s.Findings, "notes": res.Notes}})
		return
	}
	fmt.Fprintf(p.w, "\n%s", p.view(s))
	fmt.Fprintf(p.w, "\nrun %d %s\n", res.Run.ID, s.Outcome)
	if len(s.Challenges) > 0 || len(s.Decisions) > 0 || s.FixLoops > 0 {
		fmt.Fprintf(p.w, "  %d challenge(s), %d decision(s), %d fix loop(s)\n", len(s.Challenges), len(s.Decisions), s.FixLoops)
	}
	if t := s.Tests; t != nil && t.None {
		fmt.Fprintf(p.w, "  no test ran: %s; the work is not verified by tests (set commands.test in .hive/config.json)\n", noTestsText(t))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(p.w, "%s\n", n)
	}
}

// noTestsText says why no test ran: the runner found none, or hive
// found no test command.
func noTestsText(t *pipeline.Tests) string {
	if t.Command != "" {
		return t.Command + " found no test"
	}
	return "no tests found"
}

// readAnswers sends each line typed at the terminal.
func readAnswers(r io.Reader, out chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out <- line
		}
	}
}

// view is the pipeline view, styled only on a terminal.
func (p *runPrinter) view(s pipeline.Snapshot) string {
	plans := p.plans
	if len(s.Plans) > 0 {
		plans = plans[:0:0]
		for _, pr := range s.Plans {
			plans = append(plans, tui.PlanState{ID: pr.ID, State: pr.State})
		}
	}
	v := tui.PipelineView(s, plans, max(p.width, 80))
	if p.width == 0 {
		v = ansi.Strip(v)
	}
	return v
}

// runWithPipelineScreen runs the pipeline under its live screen: the
// printer's lines go to the screen's log, every state change redraws the
// view, answers typed there go to the run. The final lines are printed
// once the screen is gone.
func runWithPipelineScreen(ctx context.Context, in io.Reader, out io.Writer, obs *runPrinter, opts piperun.Options) (piperun.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan string)
	m := tui.NewPipeline(answers, cancel)
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler())
	screen := &screenObserver{runPrinter: obs, send: p.Send}
	obs.w = lineSender{send: p.Send}
	opts.Observer, opts.Wait, opts.Answers = screen, -1, answers
	type outcome struct {
		res piperun.Result
		err error
	}
	ended := make(chan outcome, 1)
	go func() {
		res, err := piperun.Run(ctx, opts)
		p.Send(tui.FinishedMsg{})
		ended <- outcome{res, err}
	}()
	if _, err := p.Run(); err != nil {
		cancel()
	}
	r := <-ended
	obs.w = out
	return r.res, r.err
}

// screenObserver is the printer whose state changes also redraw the screen.
type screenObserver struct {
	*runPrinter
	send func(tea.Msg)
}

func (o *screenObserver) Event(ev pipeline.Event, s pipeline.Snapshot) {
	o.runPrinter.Event(ev, s)
	o.send(tui.PipelineMsg{Snapshot: s})
}

func (o *screenObserver) Command(c pipeline.Command, s pipeline.Snapshot) {
	o.runPrinter.Command(c, s)
	o.send(tui.PipelineMsg{Snapshot: s})
}

func (o *screenObserver) Plans(states []piperun.PlanState) {
	o.runPrinter.Plans(states)
	o.send(tui.PlansMsg(slices.Clone(o.runPrinter.plans)))
}

// lineSender turns the printer's lines into the screen's log lines.
type lineSender struct{ send func(tea.Msg) }

func (l lineSender) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.TrimSpace(line) != "" {
			l.send(tui.PipelineLogMsg(line))
		}
	}
	return len(b), nil
}
