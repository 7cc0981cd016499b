package objective

import (
	"os"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain runs the tests with a temporary home.
func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }
