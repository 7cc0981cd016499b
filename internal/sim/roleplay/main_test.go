package roleplay_test

import (
	"os"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/simtest"
)

// TestMain runs the tests with a temporary home, and is the sim when a
// test starts this binary as one (simtest.Start).
func TestMain(m *testing.M) {
	simtest.RunChild()
	os.Exit(testsupport.WithTempHome(m).Run())
}
