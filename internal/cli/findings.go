package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/spf13/cobra"
)

// findingsList is what hive findings --json prints.
type findingsList struct {
	Run      int64              `json:"run"`
	Branch   string             `json:"branch,omitempty"`
	Findings []pipeline.Finding `json:"findings"`
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
			m, err := piperun.Replay(j, run)
			if err != nil {
				return exit.With(exit.Internal, err)
			}
			s := m.Snapshot()
			list := findingsList{Run: run.ID, Branch: s.Spec.Branch, Findings: s.Findings}
			if list.Findings == nil {
				list.Findings = []pipeline.Finding{}
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
					status += " (" + oneLineClip(f.Reason, 40) + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.ID, f.Severity, place(f), status, f.Job, oneLineClip(f.Title, 60))
			}
			tw.Flush()
			if code {
				fmt.Fprint(g.stdout, findingsWithCode(cmd.Context(), repo, codeRef(cmd.Context(), repo, s.Spec.Branch), s.Findings))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as one JSON object")
	cmd.Flags().BoolVar(&code, "code", false, "show each finding with its description, suggestion and the lines of code it names")
	return cmd
}

func place(f pipeline.Finding) string {
	switch {
	case f.File == "":
		return "-"
	case f.Line > 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

// codeRef is where a run's code is read: its branch while it is there,
// else (merged and deleted) HEAD.
func codeRef(ctx context.Context, repo *gitx.Repo, branch string) string {
	if branch != "" && repo.BranchExists(ctx, branch) {
		return branch
	}
	return "HEAD"
}

// findingsWithCode shows each finding with its description, suggestion
// and the lines around the line it names, read from git at ref (never a
// path outside the repository: git refuses one).
func findingsWithCode(ctx context.Context, repo *gitx.Repo, ref string, fs []pipeline.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n%s %s %s: %s (%s)\n", f.ID, f.Severity, place(f), oneLine(f.Title), f.Status)
		if f.Description != "" {
			fmt.Fprintf(&b, "  %s\n", oneLine(f.Description))
		}
		if f.Suggestion != "" {
			fmt.Fprintf(&b, "  suggestion: %s\n", oneLine(f.Suggestion))
		}
		if f.File == "" || f.Line <= 0 || strings.HasPrefix(f.File, "-") {
			continue
		}
		text, err := repo.Git(ctx, "show", ref+":"+strings.TrimPrefix(f.File, "./"))
		if err != nil {
			fmt.Fprintf(&b, "  (%s is not in %s)\n", f.File, ref)
			continue
		}
		writeLines(&b, strings.Split(text, "\n"), f.Line, 3)
	}
	return b.String()
}

// writeLines writes the lines around line (1-based), numbered, the line
// itself marked.
func writeLines(w io.Writer, lines []string, line, around int) {
	for n := max(1, line-around); n <= min(len(lines), line+around); n++ {
		mark := " "
		if n == line {
			mark = ">"
		}
		fmt.Fprintf(w, "  %s %4d | %s\n", mark, n, lines[n-1])
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
