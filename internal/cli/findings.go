package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/spf13/cobra"
)

// findingsList is what hive findings --json prints.
type findingsList struct {
	Run      int64              `json:"run"`
	Branch   string             `json:"branch,omitempty"`
	Findings []roleplan.Finding `json:"findings"`
}

func newFindingsCmd(g *globalOptions) *cobra.Command {
	var asJSON, code bool
	cmd := &cobra.Command{
		Use:   "findings [RUN]",
		Short: "List what the reviewer, security and browser validator found in a hive run, and what became of it",
		Long: `List the findings of a hive run (the newest when RUN is not given): each with
its id, severity (blocker, high, medium, low), file and line, title, and what
became of it: open, fixing, fixed, accepted (with the reason given) or deferred.

Open blockers stop a run at a question; answer it with fix, view, accept [ID]
REASON, defer [ID] (not a blocker), continue (refused while a blocker is
open) or quit, at the run's screen or with hive answer.`,
		Example: `  hive findings
  hive findings 3 --code
  hive findings --json | jq '.findings[] | select(.severity == "blocker")'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			j, run, err := pipelineRun(repo.Root, args, "hive findings")
			if err != nil {
				return err
			}
			defer j.Close()
			m, err := runjournal.Replay(j, run)
			if err != nil {
				return exit.With(exit.Internal, err)
			}
			s := m.Snapshot()
			list := findingsList{Run: run.ID, Branch: s.Spec.Branch, Findings: s.Findings}
			if list.Findings == nil {
				list.Findings = []roleplan.Finding{}
			}
			if asJSON {
				return printJSON(g.stdout, list)
			}
			if len(s.Findings) == 0 {
				fmt.Fprintf(g.stdout, "run %d: no findings\n", run.ID)
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSEVERITY\tWHERE\tSTATUS\tBY\tTITLE")
			for _, f := range s.Findings {
				status := f.Status
				if f.Reason != "" {
					status += " (" + lines.OneLineClip(f.Reason, 40) + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.ID, f.Severity, lines.Place(f), status, f.Job, lines.OneLineClip(f.Title, 60))
			}
			tw.Flush()
			if code {
				fmt.Fprint(g.stdout, lines.FindingsWithCode(cmd.Context(), repo, lines.CodeRef(cmd.Context(), repo, s.Spec.Branch), s.Findings))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as one JSON object")
	cmd.Flags().BoolVar(&code, "code", false, "show each finding with its description, suggestion and the lines of code it names")
	return cmd
}
