package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/hivectl/hive/internal/bench"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/exit"
	"github.com/spf13/cobra"
)

type benchOptions struct {
	*globalOptions
	quick bool
	json  bool
	only  []string
	seed  uint64
	// temporal is the temporal CLI of the temporal group's dev server.
	temporal string
	// cpuProfile is where to write a CPU profile of hive's own process.
	cpuProfile string
}

func newBenchCmd(g *globalOptions) *cobra.Command {
	o := &benchOptions{globalOptions: g}
	groups := strings.Join(bench.Names(bench.With(g.benchGroups...)), ", ")
	cmd := &cobra.Command{
		Use:   "bench [GROUP...]",
		Short: "Measure hive on this machine: makespan, overhead, checkpoint round trip and tokens, budget adherence, resume, memory, the Temporal backend",
		Long: `bench measures, side by side in one run on this machine, what hive is for:
finishing a phase sooner and cheaper than prompt-driven orchestration. Every
row gives its figure, its target and whether it was met.

Groups: ` + groups + `. The tokens group runs the real
Claude Code against hive's fake model server, a test program that the hive
binary does not link: hive-dev measures it (make bench, or go run
./cmd/hive-dev bench tokens in a checkout of hive, with the CLI installed by
make tools). The budget group drives the engine through 200
simulated runs with random budgets and per-turn costs. The pipeline group
measures hive run's routing: thirty objectives in Go, Python and JavaScript
repositories it creates, each run by the implementer alone, the fixed full
pipeline and the planned pipeline with evaluators, the roles played by a
seeded stochastic policy; it reports hidden-test pass rates, tokens,
checkpoints and how well computed confidence foretells the hidden tests.
The temporal group runs a 200-plan phase of instant sim agents with the
local runner and through the Temporal backend (a dev server of the temporal
CLI, four workers), then 20 quick hive runs of sim agents with the local
host and through four hive worker processes, and reports the makespans and
the overhead per plan and per run; it is skipped when the CLI is not built
(make temporal).
Groups named as arguments are measured alone, as with --only.`,
		Example: `  hive bench
  hive bench pipeline
  hive bench --quick --only makespan,overhead
  hive bench --json > bench.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.only = append(o.only, args...)
			return benchRun(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&o.quick, "quick", false, "smaller sizes: a first look in seconds")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the report as JSON")
	cmd.Flags().StringSliceVar(&o.only, "only", nil, "measure only these groups ("+groups+")")
	cmd.Flags().Uint64Var(&o.seed, "seed", 1, "seed of the random DAGs")
	cmd.Flags().StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of hive's own process (not its agents') to this file, for go tool pprof")
	cmd.Flags().StringVar(&o.temporal, "temporal-cli", "", "the temporal CLI of the temporal group's dev server (default $HIVE_TEMPORAL, .tools/temporal/temporal here or above, temporal in PATH)")
	return cmd
}

func benchRun(cmd *cobra.Command, o *benchOptions) error {
	if err := bench.CheckGroups(o.only, o.benchGroups); err != nil {
		return exit.With(exit.Usage, err)
	}
	opts := report.Options{Quick: o.quick, Seed: o.seed, Only: o.only, Tools: os.Getenv("HIVE_TOOLS"), Temporal: o.temporal}
	if !o.json {
		opts.Log = o.stderr
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return exit.Errorf(exit.Usage, "--cpuprofile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return exit.Errorf(exit.Usage, "--cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := bench.Run(cmd.Context(), opts, o.benchGroups)
	if err != nil {
		return err
	}
	if o.json {
		err = rep.WriteJSON(o.stdout)
	} else {
		err = rep.WriteTable(o.stdout)
		for _, row := range rep.Rows {
			if row.Status == report.Skipped && row.Group == "temporal" {
				fmt.Fprintln(o.stdout, "\nTo measure the Temporal backend, build the temporal CLI: make temporal (then hive bench temporal in the repository, or --temporal-cli PATH)")
				break
			}
		}
	}
	if err != nil {
		return err
	}
	for _, row := range rep.Rows {
		if row.Status == report.Failed {
			return exit.Errorf(exit.Failed, "%s: %s could not be measured: %s", row.Group, row.Name, row.Note)
		}
	}
	return nil
}
