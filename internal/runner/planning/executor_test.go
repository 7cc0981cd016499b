package planning

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
)

// The planning-files executor alone writes and removes an open checkpoint's
// pending file.
func TestPlanningFilesExecutor(t *testing.T) {
	root := t.TempDir()
	ph := &plan.Phase{Number: "01", Dir: ".planning/phases/01-x"}
	if err := os.MkdirAll(filepath.Join(root, ph.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	f := New(root, ph, nil, time.Now, func(p, text string) { t.Errorf("note %s: %s", p, text) }, func() bool { return false })
	cp := &phase.Checkpoint{Plan: "01-01", Type: "decision", Awaiting: "pick one"}
	f.Execute(context.Background(), phase.Command{Type: phase.CmdCheckpointOpened, Plan: "01-01", Checkpoint: cp}, phase.Snapshot{})
	data, err := os.ReadFile(pendingPath(root, ph, "01-01"))
	if err != nil || !strings.Contains(string(data), "pick one") {
		t.Fatalf("pending file: %v %s", err, data)
	}
	f.Execute(context.Background(), phase.Command{Type: phase.CmdCheckpointClosed, Plan: "01-01"}, phase.Snapshot{})
	if _, err := os.Stat(pendingPath(root, ph, "01-01")); !os.IsNotExist(err) {
		t.Fatalf("pending file left after the answer: %v", err)
	}
}
