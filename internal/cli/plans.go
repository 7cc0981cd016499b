package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/plan"
	"github.com/spf13/cobra"
)

type plansOptions struct {
	*globalOptions
	phase string
	json  bool
}

func newPlansCmd(g *globalOptions) *cobra.Command {
	o := &plansOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "plans [PHASE]",
		Short: "Show the plan index: waves, dependencies, autonomy, task counts",
		Long: `plans shows each phase's plans: their waves, dependencies, autonomy and task
counts, and whether a SUMMARY says they are done. A phase with lint errors is
shown too, with a pointer to hive lint, and plans then exits 1, as hive lint
does (execute-phase would refuse that phase).`,
		Example: `  hive plans 1
  hive plans 1 --json | jq '.[].plans[].id'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.phase = args[0]
			}
			return plansRun(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: per phase its waves, plans and diagnostics (file, line, severity, message, fix)")
	return cmd
}

type planIndexEntry struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Path          string   `json:"path"`
	Wave          int      `json:"wave"`
	DependsOn     []string `json:"depends_on"`
	Autonomous    bool     `json:"autonomous"`
	Tasks         int      `json:"tasks"`
	Checkpoints   int      `json:"checkpoints"`
	FilesModified []string `json:"files_modified"`
	HasSummary    bool     `json:"has_summary"`
}

type phaseIndex struct {
	Phase string           `json:"phase"`
	Dir   string           `json:"dir"`
	Waves map[int][]string `json:"waves"`
	Plans []planIndexEntry `json:"plans"`
	// Gone counts the plans done whose PLAN.md files were removed: only
	// their SUMMARYs are left.
	Gone        int              `json:"summaries_without_plan,omitempty"`
	Errors      int              `json:"errors"`
	Warnings    int              `json:"warnings"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
}

func plansRun(cmd *cobra.Command, o *plansOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	phases, err := loadPhases(repo.Root, o.phase)
	if err != nil {
		return err
	}
	var index []phaseIndex
	for _, ph := range phases {
		pi := phaseIndex{Phase: ph.Number, Dir: ph.Dir, Waves: map[int][]string{}, Plans: []planIndexEntry{}, Diagnostics: []diagnosticJSON{}}
		for _, d := range ph.Diagnostics {
			switch d.Severity {
			case plan.SeverityError:
				pi.Errors++
			case plan.SeverityWarning:
				pi.Warnings++
			}
			pi.Diagnostics = append(pi.Diagnostics, toJSON(d))
		}
		for _, p := range ph.Plans {
			e := planIndexEntry{ID: p.ID, Name: p.Name, Path: p.Path, Wave: p.ComputedWave, DependsOn: nonNil(p.DependsOn),
				Autonomous: p.Autonomous, Tasks: len(p.Tasks), FilesModified: nonNil(p.FilesModified)}
			for _, t := range p.Tasks {
				if t.IsCheckpoint() {
					e.Checkpoints++
				}
			}
			_, e.HasSummary = ph.Summaries[p.ID]
			pi.Waves[e.Wave] = append(pi.Waves[e.Wave], p.ID)
			pi.Plans = append(pi.Plans, e)
		}
		for id, sum := range ph.Summaries {
			if ph.Plan(id) == nil && sum.SelfCheck != "FAILED" {
				pi.Gone++
			}
		}
		index = append(index, pi)
	}
	if o.json {
		if err := printJSON(o.stdout, index); err != nil {
			return err
		}
		return lintExit(index)
	}
	for i, pi := range index {
		if i > 0 {
			fmt.Fprintln(o.stdout)
		}
		fmt.Fprintf(o.stdout, "Phase %s (%s): %d plan(s), %d wave(s)", pi.Phase, pi.Dir, len(pi.Plans), len(pi.Waves))
		if pi.Gone > 0 {
			fmt.Fprintf(o.stdout, "; %d more done, whose PLAN.md files are gone (their SUMMARYs remain)", pi.Gone)
		}
		fmt.Fprintln(o.stdout)
		switch {
		case pi.Errors > 0:
			fmt.Fprintf(o.stdout, "  %d error(s), %d warning(s): run `hive lint %s`\n", pi.Errors, pi.Warnings, pi.Phase)
		case pi.Warnings > 0:
			fmt.Fprintf(o.stdout, "  %d warning(s), no errors (hive runs the phase): see `hive lint %s`\n", pi.Warnings, pi.Phase)
		}
		tw := tabwriter.NewWriter(o.stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "  WAVE\tPLAN\tTASKS\tAUTONOMOUS\tDEPENDS ON\tDONE\tNAME")
		for _, e := range pi.Plans {
			deps := strings.Join(e.DependsOn, ",")
			if deps == "" {
				deps = "-"
			}
			auto := "yes"
			if !e.Autonomous {
				auto = fmt.Sprintf("no (%d checkpoint)", e.Checkpoints)
			}
			done := ""
			if e.HasSummary {
				done = "summary"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%d\t%s\t%s\t%s\t%s\n", e.Wave, e.ID, e.Tasks, auto, deps, done, e.Name)
		}
		tw.Flush()
	}
	return lintExit(index)
}

// lintExit is plans' exit status: as hive lint's, exit.Failed when a phase
// shown has errors (execute-phase would refuse it), so that a script that
// reads the index also learns that it is not runnable.
func lintExit(index []phaseIndex) error {
	for _, pi := range index {
		if pi.Errors > 0 {
			return exit.Silent(exit.Failed)
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
