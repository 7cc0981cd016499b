package cli

import (
	"github.com/spf13/cobra"
)

// addOnLimit adds --on-limit, shared by execute-phase and run, to cmd.
func addOnLimit(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "on-limit", "", "at an agent's usage limit: wait for the reset and go on, stop (the same command goes on later), or fallback to the models.fallback agent for the rest of the run (default: limits.on_limit, wait)")
}
