package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/demo"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/spf13/cobra"
)

type demoOptions struct {
	*globalOptions
	dir   string
	yes   bool
	json  bool
	noTUI bool
	delay time.Duration
}

func newDemoCmd(g *globalOptions) *cobra.Command {
	o := &demoOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Create a small project with a 6-plan phase (two checkpoints) and run it with simulated agents",
		Example: `  hive demo                 # in a new temporary folder
  hive demo --dir /tmp/shelf --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return demoRun(cmd, o) },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "", "where to create the demo repository (default: a new temporary folder)")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "unattended: answer what can be answered automatically")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event")
	cmd.Flags().BoolVar(&o.noTUI, "no-tui", false, "print plain lines instead of the dashboard, even in a terminal")
	cmd.Flags().DurationVar(&o.delay, "delay", 150*time.Millisecond, "how long each simulated task takes (HIVE_SIM_DELAY, when set, overrides the default)")
	return cmd
}

func demoRun(cmd *cobra.Command, o *demoOptions) error {
	delay := o.delay.String()
	if env := os.Getenv("HIVE_SIM_DELAY"); env != "" && !cmd.Flags().Changed("delay") {
		delay = env // the sim's own variable, as for execute-phase --agent sim
	}
	sim := adapter.Sim{Env: []string{"HIVE_SIM_DELAY=" + delay}}
	if err := runconfig.Preflight(cmd.Context(), o.stderr, nil, sim, nil); err != nil {
		return err
	}
	dir := o.dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "hive-demo-"); err != nil {
			return fmt.Errorf("create a folder for the demo: %w", err)
		}
	} else if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return exit.Errorf(exit.Usage, "%s is not empty; give --dir a new or empty folder", dir)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := demo.CreateWithCheckpoints(dir); err != nil {
		return fmt.Errorf("create the demo repository: %w", err)
	}
	if !o.json {
		fmt.Fprintf(o.stdout, "Demo repository: %s\n\n", dir)
	}
	yes := o.yes
	if !yes && !isTerminal(o.stdin) {
		// Nobody can type an answer here: run the demo unattended rather
		// than wait for `hive answer` from another terminal.
		yes = true
		if !o.json {
			fmt.Fprintln(o.stdout, "No terminal to answer in: answering the demo's checkpoints automatically (--yes).")
		}
	}
	g := *o.globalOptions
	g.repo = dir
	err = executeRun(cmd.Context(), &executeOptions{
		globalOptions: &g,
		phase:         "1",
		yes:           yes,
		json:          o.json,
		noTUI:         o.noTUI,
		launcher:      sim,
	})
	if !o.json {
		// Commands to paste from any folder: each names the demo repository.
		fmt.Fprintf(o.stdout, "\nLook around:\n  git -C %s log --oneline --graph\n  %s\n  %s\n",
			shellQuote(dir), g.pasteable(dir, "status"), g.pasteable(dir, "log"))
	}
	return err
}
