package temporal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/demo"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/runner"
)

// TestDemoPhaseThroughAWorker runs the demo phase (six plans in three
// waves, sim agents that write code and commit each task) through a real
// Temporal server: the workflow is the engine, a worker's runner executors
// run the agents and spot-checks in the shared tree. Every plan completes
// and each task has its commit.
func TestDemoPhaseThroughAWorker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := filepath.Join(t.TempDir(), "demo")
	if err := demo.Create(root); err != nil {
		t.Fatal(err)
	}
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	ph, err := load.Phase(root, demo.PhaseDir)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := runner.Options{Repo: repo, Phase: ph,
		Schedule: runner.Schedule{MaxConcurrent: 2, Dynamic: true},
		Agents:   runner.Agents{Launcher: adapter.Sim{Bin: self, Env: []string{asSim + "=1"}}, Stall: time.Minute}}
	spec, err := runner.PhaseSpec(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := runner.NewWorker(o)
	if err != nil {
		t.Fatal(err)
	}
	defer runs.Close()
	c, queue := devServer(t, func(c client.Client, w worker.Worker) {
		w.RegisterActivityWithOptions((&Activities{Exec: runs, Client: c}).Command, activity.RegisterOptions{Name: CommandActivity})
	})
	_, snap := dispatchRun(ctx, t, c, queue, "hive-demo", 10*time.Second, phase.Event{Type: phase.EvRunStarted, Time: time.Now(), Spec: &spec, Attended: true})
	if snap.Outcome != "complete" {
		t.Fatalf("the run ended %q", snap.Outcome)
	}
	out, err := repo.Git(ctx, "log", "--format=%B")
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^Hive-Task: (\S+)$`).FindAllStringSubmatch(out, -1) {
		tasks[m[1]]++
	}
	for _, p := range ph.Plans {
		if st := snap.Plans[indexOf(snap, p.ID)]; st.State != phase.Complete {
			t.Errorf("%s: %s", p.ID, st.State)
		}
		for _, task := range p.Tasks {
			if n := tasks[fmt.Sprintf("%s/%d", p.ID, task.Number)]; n != 1 {
				t.Errorf("task %s/%d has %d commits, want 1", p.ID, task.Number, n)
			}
		}
	}
}

func indexOf(s phase.Snapshot, id string) int {
	for i, p := range s.Plans {
		if p.Spec.ID == id {
			return i
		}
	}
	return -1
}
