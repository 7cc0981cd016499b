package claude_test

import (
	"os"
	"testing"

	"github.com/hivectl/hive/internal/cli"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain runs the tests with a temporary home: none writes under the
// developer's own ~/.cache or ~/.hive. Started through e2etest.HiveBin's
// link, this binary is hive itself.
func TestMain(m *testing.M) {
	if e2etest.IsHive() {
		os.Exit(cli.Main())
	}
	code := testsupport.WithTempHome(m).Run()
	e2etest.RemoveHiveBin()
	os.Exit(code)
}
