package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/workflows"
	"github.com/spf13/cobra"
)

// modelRoles are the roles `hive models` lists: execute-phase's, then
// every role of hive run (the comb resolves execute-phase's merges too),
// then hive run's planner and postmortem.
var modelRoles = append(append([]string{"executor", "verifier"}, workflows.Roles...), workflows.RolePlanner, workflows.RolePostmortem, workflows.RoleEvaluator)

// ModelChoice is what a role will run with, and why.
type ModelChoice struct {
	Role   string   `json:"role"`
	CLI    string   `json:"cli"`
	Model  string   `json:"model"` // "" is the CLI's own default
	Why    string   `json:"why"`
	Ladder []string `json:"ladder,omitempty"` // what a budget steps down through
	Price  string   `json:"price,omitempty"`
}

func newModelsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "models",
		Short: "Which CLI and model each role will use, why (the config key that decided), the ladder a budget steps down, and the price",
		Example: `  hive models
  hive models --json | jq '.[] | select(.role == "executor")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			cfg, err := config.Load(repo.Root)
			if err != nil {
				return exit.Errorf(exit.Usage, "%v", err)
			}
			tab := runconfig.Prices(cfg)
			var out []ModelChoice
			for _, role := range modelRoles {
				m, why := cfg.ModelWhy(role)
				c := ModelChoice{Role: role, CLI: m.CLI, Model: m.Model, Why: why, Ladder: runconfig.Ladder(cfg, role, "")}
				name := m.Model
				if name == "" && len(c.Ladder) > 0 {
					name = c.Ladder[0]
				}
				if p, ok := tab.Lookup(name); ok {
					c.Price = fmt.Sprintf("$%g in / $%g out per Mtok", p.Input, p.Output)
				}
				out = append(out, c)
			}
			if asJSON {
				return printJSON(g.stdout, out)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ROLE\tCLI\tMODEL\tWHY\tLADDER\tPRICE")
			for _, c := range out {
				model := c.Model
				if model == "" {
					model = "(default)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Role, c.CLI, model, c.Why, strings.Join(c.Ladder, " → "), c.Price)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the choices as JSON")
	return cmd
}
