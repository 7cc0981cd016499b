package cli

import (
	"cmp"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/github"
	"github.com/spf13/cobra"
)

func newIssuesCmd(g *globalOptions) *cobra.Command {
	var (
		label  string
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "issues",
		Short: "The repository's open GitHub issues that a run could take (hive run --issue N), through gh",
		Long: `issues lists the open issues of the repository's GitHub repository (gh
finds it from the git remote), newest first: by default those labelled hive,
the candidates for hive run --issue N. gh must be installed and logged in
(gh auth login).`,
		Example: `  hive issues
  hive issues --label bug --json | jq '.[].number'
  hive run --issue 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			gh, err := github.Gh()
			if err != nil {
				return exit.Errorf(exit.Usage, "%v", err)
			}
			issues, err := github.List(cmd.Context(), gh, repo.Root, label, limit)
			if err != nil {
				return exit.Errorf(exit.Usage, "%v", err)
			}
			if asJSON {
				return printJSON(g.stdout, issues)
			}
			if len(issues) == 0 {
				what := "open issue"
				if label != "" {
					what = "open issue labelled " + label
				}
				fmt.Fprintf(g.stdout, "no %s: label one (gh issue edit N --add-label %s), or list others with --label\n", what, cmp.Or(label, "hive"))
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			for _, i := range issues {
				fmt.Fprintf(tw, "#%d\t%s\t%s\n", i.Number, i.Title, strings.Join(i.Labels, ", "))
			}
			tw.Flush()
			fmt.Fprintf(g.stdout, "run one with: %s\n", g.pasteable(repo.Root, "run", "--issue", fmt.Sprint(issues[0].Number)))
			return nil
		},
	}
	cmd.Flags().StringVar(&label, "label", "hive", "the label the issues carry (\"\": every open issue)")
	cmd.Flags().IntVar(&limit, "limit", 30, "list at most this many")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the issues as JSON")
	return cmd
}
