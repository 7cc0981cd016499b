package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/roles"
	"github.com/spf13/cobra"
)

func newAgentsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the roles of hive run and the prompt file each one uses",
		Long: `List the roles of hive run and the prompt file each one uses.

A role's prompt is looked for in the project (` + roles.ProjectDir + `/ROLE.md), then in
your home (~/` + roles.GlobalDir + `/ROLE.md), then among the prompts built into
hive. A variant such as vue-implementer.md plays the role its name ends with; a
workflow step selects it with "prompt". Prompts are Go text/templates: they may
use the built-in "context", "challenge" and "report" templates.`,
		Example: `  hive agents
  hive agents --json | jq -r '.[] | select(.origin != "bundled") | .path'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			list, err := roles.List(repo.Root, home)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(g.stdout, list)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ROLE\tPLAYS\tFROM\tFILE")
			for _, s := range list {
				file := s.Path
				switch s.Origin {
				case roles.FromBundled:
					file = "(built into hive)"
				case roles.FromProject:
					if rel, err := filepath.Rel(repo.Root, s.Path); err == nil {
						file = rel
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Role, s.Origin, file)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array: name, role, origin and path of each prompt")
	return cmd
}
