package cli

import (
	"io"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/sim"
	"github.com/spf13/cobra"
)

// newSimCmd is the hidden entry point of the sim agent: hive runs itself as
// a child process to play a coding agent in tests and in the demo.
func newSimCmd(stdin io.Reader) *cobra.Command {
	return &cobra.Command{
		Use:                "__sim",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := sim.Main(args, stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exit.Silent(code)
			}
			return nil
		},
	}
}
