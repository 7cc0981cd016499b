package checkpoints

import (
	"os"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain runs the tests with a temporary home: none writes under the
// developer's own ~/.cache or ~/.hive.
func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }
