package fakegithub_test

import (
	"os"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain runs the tests with a temporary home: gh keeps nothing of the
// developer's.
func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }
