package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/costs"
	"github.com/hivectl/hive/internal/exit"
	"github.com/spf13/cobra"
)

func newCostsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "costs",
		Short: "What every run spent, by role and model: tokens (input, cache reads and writes, output) and dollars as hive priced them, beside what the CLIs said",
		Long: `costs sums the usage journaled for every turn of every agent: the phase
runs of execute-phase (executors, resolvers, the verifier) and the role agents
of hive run (whose implementers' phase is a phase run of its own). Dollars are
hive's: each turn priced at the model's price (pricing in .hive/config.json
over the built-in table). "CLI said" is the CLIs' own figure, where they give
one: a large difference means a price in the table is out of date.`,
		Example: `  hive costs
  hive costs --json | jq '.total.cost_usd'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			rows, err := costs.Read(repo.Root)
			if err != nil {
				return exit.With(exit.Internal, err)
			}
			total := costs.Total(rows)
			if asJSON {
				return printJSON(g.stdout, struct {
					Rows  []costs.Row `json:"rows"`
					Total costs.Row   `json:"total"`
				}{append([]costs.Row{}, rows...), total})
			}
			if len(rows) == 0 {
				fmt.Fprintln(g.stdout, "no agent has spent anything in this repository yet")
				return nil
			}
			printCosts(g.stdout, rows, total)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows and the total as JSON")
	return cmd
}

func printCosts(w io.Writer, rows []costs.Row, total costs.Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "RUN\tROLE\tMODEL\tTURNS\tINPUT\tCACHE READ\tCACHE WRITE\tOUTPUT\tCOST\tCLI SAID\t")
	line := func(r costs.Row) {
		model := r.Model
		if model == "" {
			model = "-"
		}
		said := "-"
		if r.CLICostUSD > 0 {
			said = fmt.Sprintf("$%.4f", r.CLICostUSD)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t$%.4f\t%s\t\n", r.Run, r.Role, model, r.Turns,
			r.InputTokens, r.CacheReadTokens, r.CacheWriteTokens, r.OutputTokens, r.CostUSD, said)
	}
	for _, r := range rows {
		line(r)
	}
	line(total)
	tw.Flush()
}
