package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/workflows"
	"github.com/spf13/cobra"
)

// workflowEntry is one workflow as hive workflows lists it.
type workflowEntry struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Steps       []string         `json:"steps"`      // in order, with their marks
	Definition  []workflows.Step `json:"definition"` // each step as the file gives it
	Source      string           `json:"source"`     // built in, or the file
	Error       string           `json:"error,omitempty"`
}

func newWorkflowsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "workflows",
		Short: "List the workflows hive run can use, with their steps",
		Long: `List the workflows hive run can use: the built-in ones, then yours in
~/.hive/workflows/NAME.json, then the project's in .hive/workflows/NAME.json
(each overrides one of the same name before it). A file that does not parse is
listed with its error. A file may be hive's ({"steps": [...]}) or the shell
Hive's ({"phases": [...]}).

In the steps: a + b work side by side; NAME? is not required (a failure is
noted and the run goes on); NAME[has_frontend] runs only when the repository
has one; NAME! stops for a human to look at its work (not with --yes);
NAME>debugger sends what fails there to the debugger.`,
		Example: `  hive workflows
  hive workflows --json | jq -r '.[].name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			list := []workflowEntry{}
			byName := map[string]int{}
			add := func(e workflowEntry) {
				if i, ok := byName[e.Name]; ok {
					list[i] = e
					return
				}
				byName[e.Name] = len(list)
				list = append(list, e)
			}
			for _, w := range workflows.Builtins {
				add(entry(w, "built in"))
			}
			var dirs []string
			if home, err := os.UserHomeDir(); err == nil {
				dirs = append(dirs, home)
			}
			for _, dir := range append(dirs, repo.Root) {
				files, _ := filepath.Glob(filepath.Join(dir, ".hive", "workflows", "*.json"))
				sort.Strings(files)
				for _, f := range files {
					rel, _ := filepath.Rel(repo.Root, f)
					if dir != repo.Root {
						rel = filepath.Join("~", strings.TrimPrefix(f, dir+string(filepath.Separator)))
					}
					name := strings.TrimSuffix(filepath.Base(f), ".json")
					data, err := os.ReadFile(f)
					if err == nil {
						var w workflows.Workflow
						if w, err = workflows.Parse(rel, data); err == nil {
							add(entry(w, rel))
							continue
						}
					}
					add(workflowEntry{Name: name, Source: rel, Error: err.Error(), Steps: []string{}})
				}
			}
			if asJSON {
				return printJSON(g.stdout, list)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKFLOW\tSTEPS\tFROM")
			for _, e := range list {
				what := strings.Join(e.Steps, " → ")
				if e.Error != "" {
					what = "error: " + e.Error
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, strings.ReplaceAll(what, " → + ", " + "), e.Source)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array: name, description, steps, definition, source (and error) of each workflow")
	return cmd
}

func entry(w workflows.Workflow, source string) workflowEntry {
	return workflowEntry{Name: w.Name, Description: w.Description, Steps: w.StepNames(), Definition: w.Steps, Source: source}
}
