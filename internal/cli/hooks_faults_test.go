//go:build faults

package cli

import (
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/planning"
)

// faultsBuilt: this test binary has hive's fault hooks (the faults tag).
const faultsBuilt = true

// needFaults: the hooks are there.
func needFaults(*testing.T) {}

// installFaults sets the hooks: hive run by the tests can be killed at a
// crash point or after any git command, or given a full disk.
func installFaults() {
	runner.CrashAt = crashAt
	integration.CrashAt = crashAt
	planning.CrashAt = crashAt
	gitx.AfterCommand = crashStep
	runconfig.JournalFaults = withJournalFaults
}
