// Command hive-dev is hive with what the hive binary leaves out because it
// is test code: bench's tokens group, which drives the real Claude Code
// against hive's fake model server (internal/devbench). Everything else is
// hive's own. Run it from a checkout: go run ./cmd/hive-dev bench tokens.
package main

import (
	"os"

	"github.com/hivectl/hive/internal/cli"
	"github.com/hivectl/hive/internal/devbench"
)

func main() { os.Exit(cli.Main(devbench.Groups()...)) }
