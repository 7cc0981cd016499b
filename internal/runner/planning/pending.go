package planning

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
)

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

func writePending(root string, ph *plan.Phase, cp *phase.Checkpoint) error {
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

// RemovePending removes the pending file of plan planID's checkpoint, if
// there is one: the checkpoint is closed.
func RemovePending(root string, ph *plan.Phase, planID string) {
	os.Remove(pendingPath(root, ph, planID))
}
