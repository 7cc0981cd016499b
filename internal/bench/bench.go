package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
)

// Groups, in the order they run and print.
var Groups = []string{"makespan", "overhead", "checkpoint", "tokens", "budget", "context", "resume", "memory", "pipeline", "temporal"}

// Options says what to measure and how big.
type Options struct {
	Quick bool     // smaller sizes, for tests and a first look
	Seed  uint64   // of the random DAGs
	Only  []string // groups to run; empty means all
	// HiveBin is the hive binary that plays the sim agents (hive __sim);
	// empty means this process's own binary.
	HiveBin string
	// Tools is the folder holding the claude CLI (HIVE_TOOLS); empty means
	// look it up in PATH.
	Tools string
	// Temporal is the temporal CLI whose dev server the temporal group
	// runs on; empty means $HIVE_TEMPORAL, else .tools/temporal/temporal
	// here or in a folder above, else temporal in PATH.
	Temporal string
	// Log gets a line as each group starts; nil means quiet.
	Log io.Writer
}

// CheckGroups reports an unknown group name.
func CheckGroups(only []string) error {
	for _, g := range only {
		if !slices.Contains(Groups, g) {
			return fmt.Errorf("unknown bench group %q: choose from %s", g, strings.Join(Groups, ","))
		}
	}
	return nil
}

// Run measures the chosen groups, one after another (they would disturb
// each other's timings side by side), and returns every row. A group that
// cannot be measured reports an error row; Run fails only on ctx.
func Run(ctx context.Context, o Options) (Report, error) {
	if err := CheckGroups(o.Only); err != nil {
		return Report{}, err
	}
	rep := Report{Seed: o.Seed, Quick: o.Quick, CPUs: runtime.NumCPU()}
	measure := map[string]func(context.Context, Options) []Row{
		"makespan":   makespanRows,
		"overhead":   overheadRows,
		"checkpoint": checkpointRows,
		"tokens":     tokenRows,
		"budget":     budgetRows,
		"context":    contextRows,
		"resume":     resumeRows,
		"memory":     memoryRows,
		"pipeline":   pipelineRows,
		"temporal":   temporalRows,
	}
	for _, g := range Groups {
		if len(o.Only) > 0 && !slices.Contains(o.Only, g) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench: measuring %s…\n", g)
		}
		rep.Rows = append(rep.Rows, measure[g](ctx, o)...)
	}
	return rep, nil
}

// errorRow reports a group that could not be measured.
func errorRow(group, name string, err error) Row {
	return Row{Group: group, Name: name, Figure: "-", Status: Failed, Note: err.Error()}
}
