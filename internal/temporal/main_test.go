package temporal

import (
	"os"
	"testing"

	"github.com/hivectl/hive/internal/sim"
	"github.com/hivectl/hive/internal/testsupport"
)

// asSim makes this test binary play the sim agent (hive __sim) when a
// worker of a test starts it.
const asSim = "HIVE_TEMPORAL_TEST_AS_SIM"

// TestMain runs the tests with a temporary home.
func TestMain(m *testing.M) {
	if os.Getenv(asSim) == "1" {
		os.Exit(sim.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}
