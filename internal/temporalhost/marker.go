package temporalhost

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Marker says where the project's hive run on Temporal is (written by
// hive run --backend temporal, in .hive/run-temporal.json): a plain hive
// answer or hive status in the folder asks there.
type Marker struct {
	Workflow  string `json:"workflow"`
	Address   string `json:"address"`
	Namespace string `json:"namespace"`
}

func markerPath(root string) string { return filepath.Join(root, ".hive", "run-temporal.json") }

// markRun writes the marker of the run in folder root.
func markRun(root string, m Marker) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(markerPath(root), append(data, '\n'), 0o644)
}

// removeMarker removes it: the run has ended.
func removeMarker(root string) { os.Remove(markerPath(root)) }

// MarkedRun reads the marker in folder root, if there is one.
func MarkedRun(root string) (Marker, bool) {
	var m Marker
	data, err := os.ReadFile(markerPath(root))
	if err != nil || json.Unmarshal(data, &m) != nil || m.Address == "" {
		return m, false
	}
	return m, true
}
