package costs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/work"
)

// Total sums rows into one row named "total".
func Total(rows []Row) Row {
	total := Row{Run: "total"}
	for _, r := range rows {
		total.Turns += r.Turns
		total.Spend = total.Spend.Plus(r.Spend)
	}
	return total
}

// Row is what one role spent on one model in one run.
type Row struct {
	Run   string `json:"run"` // "phase 01 #3" or "hive run #2"
	Role  string `json:"role,omitempty"`
	Model string `json:"model,omitempty"`
	Turns int    `json:"turns"`
	work.Spend
}

// Read reads both journals of the repository in folder root. Each turn counts once: the implementers of
// hive run are counted in their phase run, not again in the pipeline's.
func Read(root string) ([]Row, error) {
	var rows []Row
	for _, src := range []struct {
		path string
		read func(journal.Journal, journal.Run) ([]Row, error)
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
				var rs []Row
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
func phaseCosts(j journal.Journal, run journal.Run) ([]Row, error) {
	roles := map[string]string{} // plan/attempt → role
	seen := map[string]float64{} // plan/attempt → the CLI's figure so far
	sums := map[costKey]*Row{}
	err := j.Each(run.ID, func(rec journal.Record) error {
		if rec.Type != string(phase.EvUsage) && rec.Type != string(phase.EvSpend) && rec.Type != string(phase.EvAgentStarted) {
			return nil
		}
		var ev phase.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("journal run %d event %d: %w", run.ID, rec.Seq, err)
		}
		session := fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt)
		if ev.Type == phase.EvAgentStarted {
			roles[session] = ev.Role
			return nil
		}
		role := roles[session]
		switch {
		case ev.Plan == phase.VerifyID:
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
			sums[k] = &Row{Run: fmt.Sprintf("phase %s #%d", filepath.Base(run.Phase), run.ID), Role: role, Model: ev.Model}
		}
		r := sums[k]
		if ev.Type == phase.EvUsage { // a request mid-turn (EvSpend) is part of its turn
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
func pipelineCosts(j journal.Journal, run journal.Run) ([]Row, error) {
	seen := map[string]float64{}
	sums := map[costKey]*Row{}
	phaseRuns := map[int64]work.Spend{}
	err := j.Each(run.ID, func(rec journal.Record) error {
		if rec.Type != string(roleplan.EvUsage) && rec.Type != string(roleplan.EvPhaseDone) {
			return nil
		}
		var ev roleplan.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("hive run %d event %d: %w", run.ID, rec.Seq, err)
		}
		if ev.Type == roleplan.EvPhaseDone {
			// Counted as the machine counts it: what is new of its phase run.
			k := costKey{roleplan.PhaseJob, ""}
			if sums[k] == nil {
				sums[k] = &Row{Run: fmt.Sprintf("hive run #%d", run.ID), Role: roleplan.PhaseJob}
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
			sums[k] = &Row{Run: fmt.Sprintf("hive run #%d", run.ID), Role: role, Model: ev.Model}
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

func sorted(sums map[costKey]*Row) []Row {
	out := make([]Row, 0, len(sums))
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
