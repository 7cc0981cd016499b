package piperun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
)

// A phase whose plans run on a distributed backend's workers tells them
// each plan's briefing through the run's worktree, which they share:
// SaveBriefs writes what Options.Agents.Brief says of every plan, and
// SavedBriefs reads it back on the worker.

// briefsFile is where the briefings of the phase's plans are kept, in the
// tree they run in (.hive is hive's own, never committed).
func briefsFile(dir string) string { return filepath.Join(dir, ".hive", "briefs.json") }

// SaveBriefs keeps o's briefing of each plan of its phase for its workers.
func SaveBriefs(o runner.Options) error {
	briefs := map[string]runner.Briefing{}
	if o.Agents.Brief != nil {
		for _, p := range o.Phase.Plans {
			briefs[p.ID] = o.Agents.Brief(p)
		}
	}
	data, err := json.Marshal(briefs)
	if err != nil {
		return err
	}
	path := briefsFile(o.Repo.Root)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("keep the plans' briefings for the workers: %w", err)
	}
	return os.Rename(tmp, path)
}

// SavedBriefs is the briefing SaveBriefs kept for each plan in dir; a
// plan it does not know, or a file it cannot read, is told nothing more
// than its plan.
func SavedBriefs(dir string) func(*plan.Plan) runner.Briefing {
	return func(p *plan.Plan) runner.Briefing {
		data, err := os.ReadFile(briefsFile(dir))
		if err != nil {
			return runner.Briefing{}
		}
		var briefs map[string]runner.Briefing
		if json.Unmarshal(data, &briefs) != nil {
			return runner.Briefing{}
		}
		return briefs[p.ID]
	}
}
