package claude_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hivectl/hive/internal/cli"
	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain runs the tests with a temporary home: none writes under the
// developer's own ~/.cache or ~/.hive. Started through a link named hive
// (hiveBin), this binary is hive itself: the tests that run hive as a
// program need no go build of cmd/hive, which took minutes of the
// package's time on a loaded machine.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "hive" {
		os.Exit(cli.Main())
	}
	code := testsupport.WithTempHome(m).Run()
	if hiveBinPath != "" {
		os.RemoveAll(filepath.Dir(hiveBinPath))
	}
	os.Exit(code)
}
