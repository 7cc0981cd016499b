package temporal_test

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/temporal/objective"
)

// TestRecordedHistoriesReplay replays every history an earlier hive
// recorded on a real Temporal server (testdata/histories: one per engine
// version from the first that ran as a workflow, and hive run's objective
// workflow and its phase, objective-N.json, in internal/temporal/objective)
// against today's workflows: a running workflow must survive a hive
// upgrade without a nondeterminism error. (hive run's earlier workflow,
// hive-pipeline, is refused, not replayed: the hive that started such a
// run finishes it.)
func TestRecordedHistoriesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	more, _ := filepath.Glob(filepath.Join("objective", "testdata", "histories", "*.json"))
	files = append(files, more...)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded history in testdata/histories: record one with HIVE_RECORD_HISTORY=1 go test ./internal/temporal -run TestRunWorkflowOnADevServer")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(temporal.RunWorkflow, workflow.RegisterOptions{Name: temporal.RunWorkflowName})
			r.RegisterWorkflowWithOptions(objective.Workflow, workflow.RegisterOptions{Name: objective.WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatalf("replay %s: %v", f, err)
			}
		})
	}
}
