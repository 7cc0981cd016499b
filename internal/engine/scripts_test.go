package engine_test

import (
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/engine/enginescript"
	"github.com/hivectl/hive/internal/phase"
)

// TestScripts runs the event scripts in testdata/scripts/ (their directives
// are in package enginescript): each directive feeds one event and prints
// the commands the engine returned. Regenerate the expected output with
// `go test ./internal/engine -run TestScripts -rewrite`.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		e := engine.New()
		s := enginescript.New()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			step := s.Read(t, d, e.Snapshot())
			if step.Event == nil {
				return enginescript.View(step.View, e.Snapshot())
			}
			if step.Event.Type == phase.EvRunStarted {
				e = engine.New()
			}
			return enginescript.Render(e.Step(*step.Event))
		})
	})
}
