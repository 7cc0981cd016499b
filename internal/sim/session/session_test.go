package session_test

import (
	"testing"
	"time"

	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/testsupport/simtest"
)

func TestStdinEOFEndsSession(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("slow")...)

	// With a 20s delay before every task, a prompt exit proves that EOF
	// interrupts the plan instead of waiting for the next step.
	p := simtest.Start(t, dir, faults.EnvDelay+"=20s")
	p.Send(simtest.TeamPrompt(rel))
	select {
	case m := <-p.Lines:
		if m["type"] != "system" {
			t.Fatalf("first line %v, want system/init", m)
		}
	case <-time.After(simtest.WaitLimit):
		t.Fatal("no init line")
	}
	start := time.Now()
	p.Stdin.Close()
	if code := p.Wait(10 * time.Second); code != 1 {
		t.Errorf("exit code %d after EOF mid-plan, want 1", code)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("exit took %v after EOF", d)
	}
	if got := simtest.TaskTrailers(t, dir, "01-01"); len(got) != 0 {
		t.Errorf("tasks committed despite EOF: %v", got)
	}
}
