//go:build !faults

package cli

import "testing"

// faultsBuilt: this test binary has hive's fault hooks (the faults tag,
// which make test gives); without them the crash tests cannot run.
const faultsBuilt = false

func installFaults() {}

// needFaults skips a test that kills hive at its crash points, or fills
// its disk, in a build without the hooks.
func needFaults(t *testing.T) {
	t.Helper()
	t.Skip("needs hive's fault hooks: go test -tags faults (make test builds them)")
}
