package cli

import (
	"fmt"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/plan"
	"github.com/spf13/cobra"
)

type lintOptions struct {
	*globalOptions
	phase string
	quiet bool
}

func newLintCmd(g *globalOptions) *cobra.Command {
	o := &lintOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "lint [PHASE]",
		Short: "Check plans and config; every problem names the file, the line and the fix",
		Example: `  hive lint          # every phase
  hive lint 3        # phase 03 only`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.phase = args[0]
			}
			return lintRun(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&o.quiet, "quiet", false, "print errors and warnings only")
	return cmd
}

func lintRun(cmd *cobra.Command, o *lintOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	quiet := o.quiet
	errs, warns, notes, plans := 0, 0, 0, 0
	if c, err := config.Load(repo.Root); err != nil {
		fmt.Fprintln(o.stdout, err)
		errs++
	} else {
		notes += len(c.Notes())
		for _, n := range c.Notes() {
			if !quiet {
				fmt.Fprintln(o.stdout, "note:", n)
			}
		}
	}
	phases, err := loadPhases(repo.Root, o.phase)
	if err != nil {
		return err
	}
	for _, ph := range phases {
		plans += len(ph.Plans)
		for _, d := range ph.Diagnostics {
			switch d.Severity {
			case plan.SeverityError:
				errs++
			case plan.SeverityWarning:
				warns++
			default:
				notes++
				if quiet {
					continue
				}
			}
			fmt.Fprintln(o.stdout, d.String())
		}
	}
	fmt.Fprintf(o.stdout, "%d phase(s), %d plan(s): %d error(s), %d warning(s), %d note(s)\n", len(phases), plans, errs, warns, notes)
	if errs > 0 {
		return silentExit(ExitFailed)
	}
	return nil
}
