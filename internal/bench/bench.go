package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/bench/budgetbench"
	"github.com/hivectl/hive/internal/bench/makespanbench"
	"github.com/hivectl/hive/internal/bench/pipelinebench"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/bench/runnerbench"
	"github.com/hivectl/hive/internal/bench/temporalbench"
)

// Group is one part of the report: its name (as `hive bench NAME` takes
// it) and what measures it.
type Group struct {
	Name    string
	Measure func(context.Context, report.Options) []report.Row
}

// groups are hive's own, in the order they run and print. The tokens group
// drives the real Claude Code against hive's fake model server, a test
// program that the hive binary does not link: here it only says where it
// is measured (cmd/hive-dev's groups replace it, see With).
var groups = []Group{
	{"makespan", makespanbench.Rows}, {"overhead", runnerbench.OverheadRows}, {"checkpoint", runnerbench.CheckpointRows},
	{"tokens", measuredByHiveDev("tokens", "checkpoint token cost, prompt cache, hive's own share of a hive run")},
	{"budget", budgetbench.Rows}, {"context", runnerbench.ContextRows}, {"resume", runnerbench.ResumeRows}, {"memory", runnerbench.MemoryRows},
	{"pipeline", pipelinebench.Rows}, {"temporal", temporalbench.Rows},
}

// HiveDev is how to measure a group that only cmd/hive-dev carries.
const HiveDev = "measured by hive-dev, which links hive's fake model server: make bench, or go run ./cmd/hive-dev bench tokens in a checkout of hive"

func measuredByHiveDev(group, name string) func(context.Context, report.Options) []report.Row {
	return func(context.Context, report.Options) []report.Row {
		return []report.Row{{Group: group, Name: name, Figure: "-", Status: report.Skipped, Note: HiveDev}}
	}
}

// With is hive's groups with extra ones in place of those of the same
// name (or after them, where hive has none of that name).
func With(extra ...Group) []Group {
	out := slices.Clone(groups)
	for _, g := range extra {
		if i := slices.IndexFunc(out, func(h Group) bool { return h.Name == g.Name }); i >= 0 {
			out[i] = g
		} else {
			out = append(out, g)
		}
	}
	return out
}

// orOwn is gs, or hive's own groups where gs is nil.
func orOwn(gs []Group) []Group {
	if gs == nil {
		return groups
	}
	return gs
}

// Names is the groups' names, in order.
func Names(gs []Group) []string {
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.Name
	}
	return names
}

// CheckGroups reports a name in only that is not one of groups (nil:
// hive's own).
func CheckGroups(only []string, gs []Group) error {
	names := Names(orOwn(gs))
	for _, g := range only {
		if !slices.Contains(names, g) {
			return fmt.Errorf("unknown bench group %q: choose from %s", g, strings.Join(names, ","))
		}
	}
	return nil
}

// Run measures the chosen groups of gs (nil: hive's own), one after
// another (they would disturb each other's timings side by side), and
// returns every row. A group that cannot be measured reports an error row;
// Run fails only on ctx.
func Run(ctx context.Context, o report.Options, gs []Group) (report.Report, error) {
	if err := CheckGroups(o.Only, gs); err != nil {
		return report.Report{}, err
	}
	rep := report.Report{Seed: o.Seed, Quick: o.Quick, CPUs: runtime.NumCPU()}
	for _, g := range orOwn(gs) {
		if len(o.Only) > 0 && !slices.Contains(o.Only, g.Name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench: measuring %s…\n", g.Name)
		}
		rep.Rows = append(rep.Rows, g.Measure(ctx, o)...)
	}
	return rep, nil
}
