package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/pipeline"
	"github.com/spf13/cobra"
)

// workflowEntry is one workflow as hive workflows lists it.
type workflowEntry struct {
	Name   string   `json:"name"`
	Steps  []string `json:"steps"`
	Source string   `json:"source"` // built in, or the file
	Error  string   `json:"error,omitempty"`
}

func newWorkflowsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "workflows",
		Short: "List the workflows hive run can use, with their steps",
		Long: `List the workflows hive run can use: the built-in ones, then those in
.hive/workflows/NAME.json (which override a built-in one of the same name). A
file that does not parse is listed with its error.`,
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
			for _, w := range []pipeline.Workflow{pipeline.Full, pipeline.Quick} {
				add(workflowEntry{Name: w.Name, Steps: steps(w), Source: "built in"})
			}
			files, _ := filepath.Glob(filepath.Join(repo.Root, ".hive", "workflows", "*.json"))
			sort.Strings(files)
			for _, f := range files {
				rel, _ := filepath.Rel(repo.Root, f)
				data, err := os.ReadFile(f)
				name := strings.TrimSuffix(filepath.Base(f), ".json")
				if err != nil {
					add(workflowEntry{Name: name, Source: rel, Error: err.Error()})
					continue
				}
				w, err := pipeline.ParseWorkflow(rel, data)
				if err != nil {
					add(workflowEntry{Name: name, Source: rel, Error: err.Error()})
					continue
				}
				add(workflowEntry{Name: name, Steps: steps(w), Source: rel})
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
				fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, what, e.Source)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array: name, steps, source (and error) of each workflow")
	return cmd
}

// steps names a workflow's steps, with the prompt variant a step chose.
func steps(w pipeline.Workflow) []string {
	var out []string
	for _, s := range w.Steps {
		name := s.Role
		if s.Prompt != "" {
			name += " (" + s.Prompt + ")"
		}
		out = append(out, name)
	}
	return out
}
