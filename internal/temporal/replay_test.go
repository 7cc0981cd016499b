package temporal

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestRecordedHistoriesReplay replays every history an earlier hive
// recorded on a real Temporal server (testdata/histories: one per engine
// version from the first that ran as a workflow, and hive run's objective
// workflow, objective-N.json) against today's workflows: a running
// workflow must survive a hive upgrade without a nondeterminism error.
// (hive run's earlier workflow, hive-pipeline, is refused, not replayed:
// the hive that started such a run finishes it.)
func TestRecordedHistoriesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded history in testdata/histories: record one with HIVE_RECORD_HISTORY=1 go test ./internal/temporal -run TestRunWorkflowOnADevServer")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
			r.RegisterWorkflowWithOptions(ObjectiveWorkflow, workflow.RegisterOptions{Name: ObjectiveWorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatalf("replay %s: %v", f, err)
			}
		})
	}
}
