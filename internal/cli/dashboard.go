package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/tui"
	"github.com/hivectl/hive/internal/tui/tuikit"
)

// dashboardRun says what the dashboard shows: the command, the repository
// it works in, and the command line that resumes the run as it stands when
// it stopped (the one the CLI prints on exit).
type dashboardRun struct {
	title  string
	dir    string
	resume func(phase.Snapshot) string
}

// runWithDashboard runs the phase (run) under the dashboard: the runner in
// a goroutine, the bubbletea program in this one. ctrl+c in the dashboard
// stops the run, which stays resumable: the dashboard says it is stopping
// until the runner is done, then the terminal says what was under way and
// how to resume.
func runWithDashboard(ctx context.Context, in io.Reader, out io.Writer, d dashboardRun,
	run func(ctx context.Context, obs *tui.Observer, answers chan runner.Answer) (runner.Result, error),
) (runner.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan runner.Answer)
	done := make(chan struct{})
	m := tui.New(tui.Options{Answers: answers, Done: done, Now: time.Now(), Tick: true, Title: d.title, Dir: d.dir, Interrupt: cancel})
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
	if errors.Is(o.err, runner.ErrInterrupted) {
		io.WriteString(out, "\n"+tui.StoppedText(o.res.Snapshot, d.resume(o.res.Snapshot), terminalWidth(out)))
		o.err = &resumeShownError{o.err}
	}
	return o.res, o.err
}

// resumeShownError is a run's ErrInterrupted once the dashboard has said
// what was under way and the command that resumes the run.
type resumeShownError struct{ err error }

func (e *resumeShownError) Error() string { return e.err.Error() }
func (e *resumeShownError) Unwrap() error { return e.err }

// interruptedExit is the exit of a run stopped by Ctrl+C: the command that
// resumes it, said once (after the dashboard, which said it, a pointer).
func interruptedExit(err error, resume string) error {
	if shown := (*resumeShownError)(nil); errors.As(err, &shown) {
		return exit.Errorf(exit.Interrupted, "interrupted: the run is kept; the command above resumes it")
	}
	return exit.Errorf(exit.Interrupted, "interrupted: the run is kept (work committed so far stays); resume it with:\n  %s", resume)
}

// renderReport renders the markdown report written by write for the
// dashboard's terminal: what the human sees after the dashboard closes
// reads as text, not as markdown.
func renderReport(w io.Writer, write func(io.Writer)) {
	var md strings.Builder
	write(&md)
	io.WriteString(w, "\n"+tuikit.RenderMarkdown(strings.TrimLeft(md.String(), "\n"), terminalWidth(w)))
}
