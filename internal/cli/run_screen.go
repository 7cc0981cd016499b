package cli

import (
	"context"
	"io"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/tui/pipelinescreen"
)

// runWithPipelineScreen runs the pipeline under its live screen: the
// printer's lines go to the screen's log, every state change redraws the
// view, answers typed there go to the run. The final lines are printed
// once the screen is gone.
func runWithPipelineScreen(ctx context.Context, in io.Reader, out io.Writer, obs *lines.RunPrinter, opts piperun.Options) (piperun.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan string)
	m := pipelinescreen.New(answers, cancel)
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler())
	screen := &screenObserver{RunPrinter: obs, send: p.Send}
	obs.W = lineSender{send: p.Send}
	opts.Observer, opts.Wait, opts.Answers = screen, -1, answers
	type outcome struct {
		res piperun.Result
		err error
	}
	ended := make(chan outcome, 1)
	go func() {
		res, err := piperun.Run(ctx, opts)
		p.Send(pipelinescreen.FinishedMsg{})
		ended <- outcome{res, err}
	}()
	if _, err := p.Run(); err != nil {
		cancel()
	}
	r := <-ended
	obs.W = out
	return r.res, r.err
}

// screenObserver is the printer whose state changes also redraw the screen.
type screenObserver struct {
	*lines.RunPrinter
	send func(tea.Msg)
}

func (o *screenObserver) Event(ev roleplan.Event, s roleplan.Snapshot) {
	o.RunPrinter.Event(ev, s)
	o.send(pipelinescreen.SnapshotMsg{Snapshot: s})
}

func (o *screenObserver) Command(c roleplan.Command, s roleplan.Snapshot) {
	o.RunPrinter.Command(c, s)
	o.send(pipelinescreen.SnapshotMsg{Snapshot: s})
}

func (o *screenObserver) Plans(states []piperun.PlanState) {
	o.RunPrinter.Plans(states)
	o.send(pipelinescreen.PlansMsg(slices.Clone(o.RunPrinter.PlanStates())))
}

// lineSender turns the printer's lines into the screen's log lines.
type lineSender struct{ send func(tea.Msg) }

func (l lineSender) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.TrimSpace(line) != "" {
			l.send(pipelinescreen.LogMsg(line))
		}
	}
	return len(b), nil
}
