package pipeline_test

import (
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/pipeline/pipelinescript"
	"github.com/hivectl/hive/internal/roleplan"
)

// TestScripts runs the scripts in testdata/scripts/ (their directives are
// pipelinescript's): each directive feeds one event and prints the
// commands the machine returned. Regenerate the expected output with
// `go test ./internal/pipeline -run TestScripts -rewrite`.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		m := pipeline.New()
		script := pipelinescript.New()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			ev := script.Read(t, d, m.Snapshot())
			if ev == nil {
				return pipelinescript.State(m.Snapshot())
			}
			if ev.Type == roleplan.EvStarted {
				m = pipeline.New()
			}
			return pipelinescript.Render(m.Step(*ev))
		})
	})
}
