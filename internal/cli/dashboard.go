package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/tui"
)

// runWithDashboard runs the phase (run) under the dashboard: the runner in
// a goroutine, the bubbletea program in this one. Leaving the dashboard
// with ctrl+c interrupts the run, which stays resumable.
func runWithDashboard(ctx context.Context, in io.Reader, out io.Writer, title string,
	run func(ctx context.Context, obs *tui.Observer, answers chan runner.Answer) (runner.Result, error),
) (runner.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan runner.Answer)
	done := make(chan struct{})
	m := tui.New(tui.Options{Answers: answers, Done: done, Now: time.Now(), Tick: true, Title: title})
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler())
	obs := tui.NewObserver(p.Send)

	type outcome struct {
		res runner.Result
		err error
	}
	ended := make(chan outcome, 1)
	go func() {
		res, err := run(ctx, obs, answers)
		close(done)
		obs.Close()
		p.Send(tui.FinishedMsg{})
		ended <- outcome{res, err}
	}()
	final, perr := p.Run()
	if fm, ok := final.(tui.Model); perr != nil || !ok || fm.Interrupted {
		cancel() // the human left the dashboard: stop the run, resumable
	}
	o := <-ended
	if perr != nil && o.err == nil {
		o.err = fmt.Errorf("dashboard: %w", perr)
	}
	return o.res, o.err
}
