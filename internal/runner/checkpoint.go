package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/protocol"
)

// stops lists a plan's checkpoint tasks for the engine: their gates decide
// what --yes may answer, and a decision's options give its default.
func stops(p *plan.Plan) []engine.Stop {
	var out []engine.Stop
	for _, t := range p.Tasks {
		if !t.IsCheckpoint() {
			continue
		}
		st := engine.Stop{Task: t.Number, Type: strings.TrimPrefix(t.Type, "checkpoint:"), Gate: t.Gate}
		if t.Decision != nil {
			for _, o := range t.Decision.Options {
				st.Options = append(st.Options, o.ID)
			}
		}
		out = append(out, st)
	}
	return out
}

// checkpointOf turns a parsed CHECKPOINT message into the engine's record.
func checkpointOf(c *protocol.CheckpointData) *engine.Checkpoint {
	cp := &engine.Checkpoint{
		Type:       c.Type,
		Done:       c.Done,
		Total:      c.Total,
		Details:    c.Details,
		Awaiting:   c.Awaiting,
		Standalone: c.Standalone,
		Raw:        c.Raw,
	}
	if c.Current != nil {
		cp.Task = c.Current.Number
	}
	for _, o := range c.Options {
		cp.Options = append(cp.Options, o.ID)
	}
	return cp
}

// pendingFile is seed 000 §5.2's view of an open checkpoint, for humans and
// for GSD tools; hive never reads it back.
type pendingFile struct {
	PlanID            string   `json:"plan_id"`
	CheckpointID      int      `json:"checkpoint_id"`
	Kind              string   `json:"kind"`
	CheckpointType    string   `json:"checkpoint_type"`
	Progress          string   `json:"progress"`
	CheckpointDetails string   `json:"checkpoint_details"`
	Awaiting          string   `json:"awaiting"`
	Options           []string `json:"options,omitempty"`
	Timestamp         string   `json:"timestamp"`
	Answer            string   `json:"answer_with"`
}

func pendingPath(root string, ph *plan.Phase, planID string) string {
	return filepath.Join(root, filepath.FromSlash(ph.Dir), ".pending-checkpoint-"+planID+".json")
}

func writePending(root string, ph *plan.Phase, cp *engine.Checkpoint) error {
	f := pendingFile{
		PlanID:            cp.Plan,
		CheckpointID:      cp.ID,
		Kind:              cp.Kind,
		CheckpointType:    cp.Type,
		Progress:          fmt.Sprintf("%d/%d", cp.Done, cp.Total),
		CheckpointDetails: cp.Details,
		Awaiting:          cp.Awaiting,
		Options:           cp.Options,
		Timestamp:         cp.Raised.UTC().Format(time.RFC3339),
		Answer:            fmt.Sprintf("hive answer %s \"<response>\"", cp.Plan),
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(root, pendingPath(root, ph, cp.Plan), append(data, '\n'))
}

func removePending(root string, ph *plan.Phase, planID string) {
	os.Remove(pendingPath(root, ph, planID))
}
