// Command hive runs a team of coding agents against a git repository.
package main

import (
	"os"

	"github.com/hivectl/hive/internal/cli"
)

func main() { os.Exit(cli.Main()) }
