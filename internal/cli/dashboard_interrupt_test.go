package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/tui"
)

// Ctrl+C in the dashboard stops the run: the terminal then says what was
// under way and the command that resumes it, and the exit message does
// not say that command a second time. Without the dashboard, the exit
// message is where the command is said.
func TestInterruptSaysResumeOnce(t *testing.T) {
	const resume = "hive execute-phase 01 --agent sim"
	in, ctrlC := io.Pipe()
	var out bytes.Buffer
	started := make(chan struct{})
	go func() {
		<-started
		ctrlC.Write([]byte{0x03}) // ctrl+c, typed once the run is under way
	}()
	defer ctrlC.Close()
	_, err := runWithDashboard(context.Background(), in, &out,
		dashboardRun{title: "execute-phase", dir: t.TempDir(), resume: func(phase.Snapshot) string { return resume }},
		func(ctx context.Context, _ *tui.Observer, _ chan runner.Answer) (runner.Result, error) {
			close(started)
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second):
				return runner.Result{}, errors.New("ctrl+c did not stop the run")
			}
			return runner.Result{Snapshot: phase.Snapshot{Phase: "01"}}, runner.ErrInterrupted
		})
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("runWithDashboard: %v, want ErrInterrupted", err)
	}
	printed := out.String() + interruptedExit(err, resume).Error()
	if n := strings.Count(printed, resume); n != 1 {
		t.Errorf("the resume command is said %d times, want once:\n%s", n, printed)
	}
	if plain := interruptedExit(runner.ErrInterrupted, resume).Error(); !strings.Contains(plain, resume) {
		t.Errorf("without the dashboard the exit message lacks the resume command: %s", plain)
	}
}
