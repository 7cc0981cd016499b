package cli

import (
	"encoding/json"
	"fmt"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
)

// replay rebuilds a run's state from the journal, the way a resume does.
func replay(j journal.Journal, run journal.Run) (engine.Snapshot, error) {
	e := engine.New()
	err := j.Each(run.ID, func(rec journal.Record) error {
		var ev engine.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("run %d event %d: %w", rec.Run, rec.Seq, err)
		}
		e.Step(ev) // a refused event changed nothing, as it did when it was first stepped
		return nil
	})
	return e.Snapshot(), err
}
