package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/work"
	"github.com/spf13/cobra"
)

func newCostsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "costs",
		Short: "What every run spent, by role and model: tokens (input, cache reads and writes, output) and dollars as hive priced them, beside what the CLIs said",
		Long: `costs sums the usage journaled for every turn of every agent: the phase
runs of execute-phase (executors, resolvers, the verifier) and the role agents
of hive run (whose implementers' phase is a phase run of its own). Dollars are
hive's: each turn priced at the model's price (pricing in .hive/config.json
over the built-in table). "CLI said" is the CLIs' own figure, where they give
one: a large difference means a price in the table is out of date.`,
		Example: `  hive costs
  hive costs --json | jq '.total.cost_usd'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			rows, err := costRows(repo.Root)
			if err != nil {
				return exit.With(exit.Internal, err)
			}
			total := CostRow{Run: "total"}
			for _, r := range rows {
				total.Turns += r.Turns
				total.Spend = total.Spend.Plus(r.Spend)
			}
			if asJSON {
				return printJSON(g.stdout, struct {
					Rows  []CostRow `json:"rows"`
					Total CostRow   `json:"total"`
				}{append([]CostRow{}, rows...), total})
			}
			if len(rows) == 0 {
				fmt.Fprintln(g.stdout, "no agent has spent anything in this repository yet")
				return nil
			}
			printCosts(g.stdout, rows, total)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows and the total as JSON")
	return cmd
}

// CostRow is what one role spent on one model in one run.
type CostRow struct {
	Run   string `json:"run"` // "phase 01 #3" or "hive run #2"
	Role  string `json:"role,omitempty"`
	Model string `json:"model,omitempty"`
	Turns int    `json:"turns"`
	work.Spend
}

// costRows reads both journals. Each turn counts once: the implementers of
// hive run are counted in their phase run, not again in the pipeline's.
func costRows(root string) ([]CostRow, error) {
	var rows []CostRow
	for _, src := range []struct {
		path string
		read func(journal.Journal, journal.Run) ([]CostRow, error)
	}{{runconfig.JournalPath(root), phaseCosts}, {filepath.Join(root, ".hive", "runs.db"), pipelineCosts}} {
		if _, err := os.Stat(src.path); err != nil {
			continue
		}
		j, err := journal.Open(src.path)
		if err != nil {
			return nil, err
		}
		runs, err := j.Runs()
		if err == nil {
			for _, run := range runs {
				var rs []CostRow
				if rs, err = src.read(j, run); err != nil {
					break
				}
				rows = append(rows, rs...)
			}
		}
		j.Close()
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// costKey groups turns.
type costKey struct{ role, model string }

// phaseCosts sums a phase run's turns by role and model, the way the
// engine counts them (a turn not priced by hive counts at the CLI's figure).
func phaseCosts(j journal.Journal, run journal.Run) ([]CostRow, error) {
	roles := map[string]string{} // plan/attempt → role
	seen := map[string]float64{} // plan/attempt → the CLI's figure so far
	sums := map[costKey]*CostRow{}
	err := j.Each(run.ID, func(rec journal.Record) error {
		if rec.Type != string(engine.EvUsage) && rec.Type != string(engine.EvSpend) && rec.Type != string(engine.EvAgentStarted) {
			return nil
		}
		var ev engine.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("journal run %d event %d: %w", run.ID, rec.Seq, err)
		}
		session := fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt)
		if ev.Type == engine.EvAgentStarted {
			roles[session] = ev.Role
			return nil
		}
		role := roles[session]
		switch {
		case ev.Plan == engine.VerifyID:
			role = "verifier"
		case role == "":
			role = "executor"
		}
		cli := max(0, ev.CostUSD-seen[session])
		seen[session] = max(seen[session], ev.CostUSD)
		usd := cli
		if ev.Priced {
			usd = ev.TurnUSD
		}
		k := costKey{role, ev.Model}
		if sums[k] == nil {
			sums[k] = &CostRow{Run: fmt.Sprintf("phase %s #%d", filepath.Base(run.Phase), run.ID), Role: role, Model: ev.Model}
		}
		r := sums[k]
		if ev.Type == engine.EvUsage { // a request mid-turn (EvSpend) is part of its turn
			r.Turns++
		}
		r.Spend = r.Spend.Plus(work.Spend{InputTokens: ev.InputTokens, OutputTokens: ev.OutputTokens,
			CacheReadTokens: ev.CacheReadTokens, CacheWriteTokens: ev.CacheWriteTokens, CostUSD: usd, CLICostUSD: cli})
		return nil
	})
	return sorted(sums), err
}

// pipelineCosts sums a hive run's role agents' turns by role and model,
// and what its implementers' phase spent (the phase's own journal, in the
// run's worktree, has its turns; the run keeps each phase run's total).
func pipelineCosts(j journal.Journal, run journal.Run) ([]CostRow, error) {
	seen := map[string]float64{}
	sums := map[costKey]*CostRow{}
	phaseRuns := map[int64]work.Spend{}
	err := j.Each(run.ID, func(rec journal.Record) error {
		if rec.Type != string(pipeline.EvUsage) && rec.Type != string(pipeline.EvPhaseDone) {
			return nil
		}
		var ev pipeline.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("hive run %d event %d: %w", run.ID, rec.Seq, err)
		}
		if ev.Type == pipeline.EvPhaseDone {
			// Counted as the machine counts it: what is new of its phase run.
			k := costKey{pipeline.PhaseJob, ""}
			if sums[k] == nil {
				sums[k] = &CostRow{Run: fmt.Sprintf("hive run #%d", run.ID), Role: pipeline.PhaseJob}
			}
			sums[k].Spend = sums[k].Spend.Plus(ev.Spend.Minus(phaseRuns[ev.PhaseRun]))
			if ev.PhaseRun != 0 {
				phaseRuns[ev.PhaseRun] = ev.Spend
			}
			return nil
		}
		role := ev.Job // a job is named by its role (implementer-fix: the implementer fixing tests)
		session := fmt.Sprintf("%s/%d", ev.Job, ev.Attempt)
		usd := max(0, ev.Spend.CostUSD-seen[session]) // the session's cost so far, as hive priced it
		seen[session] = max(seen[session], ev.Spend.CostUSD)
		k := costKey{role, ev.Model}
		if sums[k] == nil {
			sums[k] = &CostRow{Run: fmt.Sprintf("hive run #%d", run.ID), Role: role, Model: ev.Model}
		}
		r := sums[k]
		if !ev.MidTurn { // a request mid-turn is part of its turn
			r.Turns++
		}
		turn := ev.Spend
		turn.CostUSD = usd
		r.Spend = r.Spend.Plus(turn)
		return nil
	})
	return sorted(sums), err
}

func sorted(sums map[costKey]*CostRow) []CostRow {
	out := make([]CostRow, 0, len(sums))
	for _, r := range sums {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, k int) bool {
		if out[i].Role != out[k].Role {
			return out[i].Role < out[k].Role
		}
		return out[i].Model < out[k].Model
	})
	return out
}

func printCosts(w io.Writer, rows []CostRow, total CostRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "RUN\tROLE\tMODEL\tTURNS\tINPUT\tCACHE READ\tCACHE WRITE\tOUTPUT\tCOST\tCLI SAID\t")
	line := func(r CostRow) {
		model := r.Model
		if model == "" {
			model = "-"
		}
		said := "-"
		if r.CLICostUSD > 0 {
			said = fmt.Sprintf("$%.4f", r.CLICostUSD)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t$%.4f\t%s\t\n", r.Run, r.Role, model, r.Turns,
			r.InputTokens, r.CacheReadTokens, r.CacheWriteTokens, r.OutputTokens, r.CostUSD, said)
	}
	for _, r := range rows {
		line(r)
	}
	line(total)
	tw.Flush()
}
