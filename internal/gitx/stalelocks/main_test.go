package stalelocks

import (
	"context"
	"os"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain runs the tests with a temporary home: none writes under the
// developer's own ~/.cache or ~/.hive.
func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// run runs git with args in dir, as gitx does.
func run(ctx context.Context, dir string, args ...string) (string, error) {
	return (&gitx.Repo{Root: dir}).Git(ctx, args...)
}
