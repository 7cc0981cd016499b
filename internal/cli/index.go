package cli

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
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
frameworks the manifests name, the entry points, whether the project has
a frontend (has_frontend) and tests (has_tests), and the command-line tools
found on this machine (docker, psql, kubectl, aws, …), which hive run's
roles are told they may use. It is built from git's file
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
				return exit.Errorf(exit.Internal, "%v", err)
			}
			// The machine's tools are no part of the cached index: they
			// change without a commit.
			tools := index.Allowed(index.Tools(exec.LookPath), cfgTools(repo.Root))
			if asJSON {
				return printJSON(g.stdout, struct {
					index.Index
					Tools []string `json:"tools"`
				}{ix, tools})
			}
			if _, err = fmt.Fprint(g.stdout, index.Render(ix)); err != nil {
				return err
			}
			if len(tools) > 0 {
				_, err = fmt.Fprintf(g.stdout, "Tools on this machine (hive run's roles are told): %s\n", strings.Join(tools, ", "))
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the index as JSON: languages, dirs, test_command, build_command, frameworks, entry_points, has_frontend, has_tests…")
	return cmd
}

// cfgTools is the config's "tools", the limit on the tools hive run's
// roles are told about; none when the config cannot be read (hive lint
// says why).
func cfgTools(root string) []string {
	cfg, err := config.Load(root)
	if err != nil {
		return nil
	}
	return cfg.Tools
}
