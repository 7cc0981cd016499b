package cli

import (
	"fmt"

	"github.com/hivectl/hive/internal/index"
	"github.com/spf13/cobra"
)

func newIndexCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Print what hive reads of the repository without a model",
		Long: `Print the codebase index hive gives its agents and its workflow conditions:
the languages, the top folders, the build and test commands hive runs, the
frameworks the manifests name, the entry points, and whether the project has
a frontend (has_frontend) and tests (has_tests). It is built from git's file
list and the project's files, with no model, and cached under the repository's
git directory for a clean work tree's commit.`,
		Example: `  hive index
  hive index --json | jq .test_command`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			ix, err := index.Build(repo.Root)
			if err != nil {
				return exitf(ExitInternal, "%v", err)
			}
			if asJSON {
				return printJSON(g.stdout, ix)
			}
			_, err = fmt.Fprint(g.stdout, index.Render(ix))
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the index as JSON: languages, dirs, test_command, build_command, frameworks, entry_points, has_frontend, has_tests…")
	return cmd
}
