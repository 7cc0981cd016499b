package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/memory"
	"github.com/spf13/cobra"
)

func newMemoryCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "What hive run learned on this project: lessons by role, the warnings roles get, forget, export, rebuild",
		Long: `hive run keeps a memory of the project in .hive/memory.db: what went wrong
in each run (failing tests, failed builds, challenges, review findings),
whose work it concerned and the files involved, the decisions taken, and
each role's figures. It is filled from the run's journal when the run ends.

A lesson that happened in ` + strconv.Itoa(memory.MinRecurrence) + ` runs or more becomes a warning: before a
role starts, hive gives it at most ` + strconv.Itoa(memory.MaxWarnings) + ` of its role's, ranked by recurrence,
then by the files in scope, then by recency, and journals which.`,
		Example: `  hive memory show
  hive memory show --role implementer --json
  hive memory forget 12
  hive memory export --json > memory.json
  hive memory rebuild`,
	}
	cmd.AddCommand(newMemoryShowCmd(g), newMemoryForgetCmd(g), newMemoryExportCmd(g), newMemoryRebuildCmd(g))
	return cmd
}

// openMemory opens the repository's memory; create says whether one that
// does not exist yet is made (rebuild) or is an error.
func openMemory(g *globalOptions, cmd *cobra.Command, create bool) (*memory.Store, string, error) {
	repo, err := openRepo(cmd.Context(), g)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(repo.Root, memory.Path)
	if _, err := os.Stat(path); err != nil && !create {
		return nil, "", exit.Errorf(exit.Failed, "no memory in %s yet: hive run fills it as runs end (hive memory rebuild reads the runs already journaled)", repo.Root)
	}
	st, err := memory.Open(path)
	if err != nil {
		return nil, "", exit.Errorf(exit.Failed, "%v", err)
	}
	return st, repo.Root, nil
}

func newMemoryShowCmd(g *globalOptions) *cobra.Command {
	var role string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "The lessons by role, most recurrent first; those that warn are marked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, _, err := openMemory(g, cmd, false)
			if err != nil {
				return err
			}
			defer st.Close()
			es, err := st.Entries(role)
			if err != nil {
				return err
			}
			if asJSON {
				if es == nil {
					es = []memory.Entry{}
				}
				return printJSON(g.stdout, es)
			}
			if len(es) == 0 {
				fmt.Fprintln(g.stdout, "Nothing learned yet: no run has gone wrong in a way worth remembering.")
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tRUNS\tROLE\tKIND\tWARNS\tLESSON")
			for _, e := range es {
				warns := "no"
				switch {
				case e.Forgotten:
					warns = "forgotten"
				case len(e.Runs) >= memory.MinRecurrence:
					warns = "yes"
				}
				text := e.Text
				if len(e.Files) > 0 {
					text += " (files: " + strings.Join(e.Files, ", ") + ")"
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", e.ID, runList(e.Runs), e.Role, e.Kind, warns, lines.OneLineClip(text, 100))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&role, "role", "", "only this role's lessons")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the lessons as a JSON array")
	return cmd
}

func runList(runs []int64) string {
	var s []string
	for _, r := range runs {
		s = append(s, strconv.FormatInt(r, 10))
	}
	return strings.Join(s, ",")
}

func newMemoryForgetCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "forget ID",
		Short: "Never warn of a lesson again (hive memory show gives the ids); it stays forgotten across rebuilds",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return exit.Errorf(exit.Usage, "lesson id %q: use the number hive memory show gives", args[0])
			}
			st, _, err := openMemory(g, cmd, false)
			if err != nil {
				return err
			}
			defer st.Close()
			l, err := st.Forget(id, time.Now())
			if errors.Is(err, memory.ErrNoLesson) {
				return exit.Errorf(exit.Usage, "no lesson %d (hive memory show lists them)", id)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "forgotten: %s (the %s's): no role is warned of it again\n", l.Text, l.Role)
			return nil
		},
	}
}

func newMemoryExportCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export --json",
		Short: "Everything the memory holds, as JSON: the runs with their decisions and role figures, and the lessons",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !asJSON {
				return exit.Errorf(exit.Usage, "hive memory export writes JSON: add --json")
			}
			st, _, err := openMemory(g, cmd, false)
			if err != nil {
				return err
			}
			defer st.Close()
			x, err := st.Export()
			if err != nil {
				return err
			}
			return printJSON(g.stdout, x)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (the only format)")
	return cmd
}

func newMemoryRebuildCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "rebuild",
		Short: "Make the memory again from hive run's journal (.hive/runs.db): every finished run; forgotten lessons stay forgotten",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, root, err := openMemory(g, cmd, true)
			if err != nil {
				return err
			}
			defer st.Close()
			path := filepath.Join(root, ".hive", "runs.db")
			if _, err := os.Stat(path); err != nil {
				return exit.Errorf(exit.Failed, "no journal of hive run in %s: nothing to rebuild from", root)
			}
			j, err := journal.Open(path)
			if err != nil {
				return err
			}
			defer j.Close()
			runs, err := j.Runs()
			if err != nil {
				return err
			}
			if err := st.Reset(); err != nil {
				return err
			}
			n, lessons := 0, 0
			for i := len(runs) - 1; i >= 0; i-- { // oldest first
				r := runs[i]
				if r.Finished.IsZero() {
					continue // an unfinished run is recorded when it ends
				}
				f, err := memory.FromJournal(j, r)
				if err != nil {
					return fmt.Errorf("run %d: %w", r.ID, err)
				}
				if err := st.Record(f); err != nil {
					return err
				}
				n, lessons = n+1, lessons+len(f.Lessons)
			}
			fmt.Fprintf(g.stdout, "rebuilt the memory from %d finished run(s): %d lesson(s)\n", n, lessons)
			return nil
		},
	}
}
