package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// runMarker says where the project's hive run on Temporal is (written by
// hive run --backend temporal, in .hive/run-temporal.json): a plain hive
// answer or hive status in the folder asks there.
type runMarker struct {
	Workflow  string `json:"workflow"`
	Address   string `json:"address"`
	Namespace string `json:"namespace"`
}

func runMarkerPath(root string) string { return filepath.Join(root, ".hive", "run-temporal.json") }

// markRunOnTemporal writes the marker of the run of workflow id.
func markRunOnTemporal(root, id string, f temporalFlags) error {
	data, err := json.Marshal(runMarker{Workflow: id, Address: f.address, Namespace: f.namespace})
	if err != nil {
		return err
	}
	return os.WriteFile(runMarkerPath(root), append(data, '\n'), 0o644)
}

// removeRunMarker removes it: the run has ended.
func removeRunMarker(root string) { os.Remove(runMarkerPath(root)) }

// runOnTemporal reads the marker, if there is one.
func runOnTemporal(root string) (runMarker, bool) {
	var m runMarker
	data, err := os.ReadFile(runMarkerPath(root))
	if err != nil || json.Unmarshal(data, &m) != nil || m.Address == "" {
		return m, false
	}
	return m, true
}
