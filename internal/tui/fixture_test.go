package tui

import (
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// t0 is the fixtures' start: local time, so the log's clock reads the same
// in every time zone.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

// demoSnapshot is the demo's phase (6 plans, 3 waves) with wave 1 done and
// wave 2 running.
func demoSnapshot() phase.Snapshot {
	spec := func(id, name string, wave, tasks int, deps ...string) phase.PlanSpec {
		return phase.PlanSpec{ID: id, Name: name, Wave: wave, Tasks: tasks, DependsOn: deps}
	}
	return withSpent(phase.Snapshot{
		Phase: "01-core-library", Started: true, MaxConcurrent: 3, CurrentWave: 2,
		Plans: []*phase.PlanStatus{
			{Spec: spec("01-01", "Book model", 1, 2), State: phase.Complete, Attempt: 1, TasksDone: 2, Started: at(0), Finished: at(21),
				Spend: work.Spend{InputTokens: 10200, OutputTokens: 2100, CostUSD: 0.08}},
			{Spec: spec("01-02", "Storage layer", 1, 3), State: phase.Complete, Attempt: 1, TasksDone: 3, Started: at(0), Finished: at(34),
				Spend: work.Spend{InputTokens: 15400, OutputTokens: 3000, CostUSD: 0.12}},
			{Spec: spec("01-03", "Search API and ranking of results, with the backend chosen by the user", 2, 3, "01-01", "01-02"), State: phase.Running, Attempt: 1, TasksDone: 1,
				Progress: "Task 1/3 complete: index books by title and author", Started: at(35), Spend: work.Spend{InputTokens: 4100, OutputTokens: 800, CostUSD: 0.03}},
			{Spec: spec("01-04", "Command-line interface", 2, 3, "01-02"), State: phase.Running, Attempt: 1, TasksDone: 2,
				Progress: "Task 2/3 complete: list and add commands", Started: at(35), Spend: work.Spend{InputTokens: 6000, OutputTokens: 1200, CostUSD: 0.05}},
			{Spec: spec("01-05", "Import from CSV", 3, 2, "01-03"), State: phase.Pending},
			{Spec: spec("01-06", "Documentation", 3, 1, "01-03", "01-04"), State: phase.Pending},
		},
	})
}

// withSpent sets the run's spend to what its plans spent, as the engine
// counts it (this run has no verifier yet).
func withSpent(s phase.Snapshot) phase.Snapshot {
	s.Spent = work.Spend{}
	for _, p := range s.Plans {
		s.Spent = s.Spent.Plus(p.Spend)
	}
	return s
}

func demoLogs() []LogLine {
	return []LogLine{
		{Time: at(0), Text: "wave 1 started"},
		{Time: at(21), Plan: "01-01", Text: "complete"},
		{Time: at(34), Plan: "01-02", Text: "complete"},
		{Time: at(35), Text: "wave 2 started"},
		{Time: at(35), Plan: "01-03", Text: "agent started (attempt 1, pid 4242)"},
		{Time: at(35), Plan: "01-04", Text: "agent started (attempt 1, pid 4243)"},
		{Time: at(48), Plan: "01-04", Text: "PROGRESS 1/3: Task 1/3 complete: parse flags"},
		{Time: at(55), Plan: "01-03", Text: "PROGRESS 1/3: Task 1/3 complete: index books by title and author"},
		{Time: at(61), Plan: "01-04", Text: "PROGRESS 2/3: Task 2/3 complete: list and add commands"},
	}
}

// decisionSnapshot: 01-03 waits at a decision, 01-04 at a human-verify
// behind it in the queue.
func decisionSnapshot() phase.Snapshot {
	s := demoSnapshot()
	dec := phase.Checkpoint{ID: 1, Plan: "01-03", Attempt: 1, Kind: phase.KindCheckpoint, Type: "decision", Task: 2, Done: 1, Total: 3,
		Details: "**Decision:** Select the search backend\n**Context:** Search must rank books by title and author; the catalogue holds about 50k books.\n\n" +
			"**Options:**\n1. **sqlite-fts** - Built in, no service to run\n   Pros: nothing to deploy\n   Cons: English stemming only\n\n" +
			"2. **bleve** - Pure Go, good ranking\n   Pros: one binary\n   Cons: a bigger binary\n\n" +
			"3. **meilisearch** - Best relevance\n   Pros: typo tolerance\n   Cons: a separate service to run",
		Awaiting: "Select: sqlite-fts, bleve, or meilisearch", Options: []string{"sqlite-fts", "bleve", "meilisearch"}, Gate: "blocking", Raised: at(70)}
	ver := phase.Checkpoint{ID: 2, Plan: "01-04", Attempt: 1, Kind: phase.KindCheckpoint, Type: "human-verify", Task: 3, Done: 2, Total: 3,
		Details:  "**What was built:** `shelf list` and `shelf add`\n**How to verify:**\n1. Run `go run ./cmd/shelf add \"Dune\"` in the worktree\n2. Run `go run ./cmd/shelf list` and check Dune is listed",
		Awaiting: `Type "approved" or describe issues`, Raised: at(72), Worktree: "/home/ada/.cache/hive/worktrees/shelf-3f2a/01/01-04", Branch: "hive/01/01-04"}
	s.Plans[2].State, s.Plans[2].Open = phase.Waiting, &dec
	s.Plans[3].State, s.Plans[3].Open = phase.Waiting, &ver
	s.Queue = []phase.Checkpoint{dec, ver}
	return s
}

// verifySnapshot: the decision is answered; 01-04's human-verify is at the
// head of the queue, with the worktree to look in.
func verifySnapshot() phase.Snapshot {
	s := decisionSnapshot()
	s.Plans[2].State, s.Plans[2].Open, s.Plans[2].TasksDone = phase.Running, nil, 2
	s.Plans[2].Progress = "Task 2/3 complete: chore(01-03): decision bleve"
	s.Queue = s.Queue[1:]
	return s
}

// failedSnapshot: 01-04 failed, the run finished without 01-06.
func failedSnapshot() phase.Snapshot {
	s := demoSnapshot()
	s.Finished, s.Outcome, s.CurrentWave = true, phase.OutcomeFailed, 0
	s.Plans[2].State, s.Plans[2].TasksDone, s.Plans[2].Finished = phase.Complete, 3, at(95)
	s.Plans[3].State, s.Plans[3].Attempt, s.Plans[3].Finished = phase.Failed, 2, at(120)
	s.Plans[3].Reason = "spot-check failed: SUMMARY.md missing after PLAN COMPLETE (attempt 2)"
	s.Plans[4].State, s.Plans[4].TasksDone, s.Plans[4].Started, s.Plans[4].Finished = phase.Complete, 2, at(96), at(118)
	s.Plans[4].InputTokens, s.Plans[4].OutputTokens, s.Plans[4].CostUSD = 5200, 900, 0.04
	s.Plans[5].State, s.Plans[5].Reason = phase.Skipped, "dependency 01-04 failed"
	return withSpent(s)
}

// budgetSnapshot: the run spent its $0.25 in wave 2, one rung down the
// model ladder since 80 %; the agents of 01-03 and 01-04 were interrupted
// (their plans wait in the queue) and the run waits at the budget
// checkpoint.
func budgetSnapshot() phase.Snapshot {
	s := demoSnapshot()
	s.Budget = phase.Budget{Ceilings: work.Ceilings{USD: 0.25}, TaskUSD: []float64{0.05, 0.01}}
	s.Rung = 1
	s.Plans[2].State, s.Plans[3].State = phase.Pending, phase.Pending
	s.Plans[3].Rung = 1
	cp := phase.Checkpoint{ID: 1, Plan: phase.BudgetID, Kind: phase.KindBudget, Type: "budget", Standalone: true,
		Details:  "budget reached: $0.28 of $0.25 spent",
		Awaiting: "raise (to $0.38), raise AMOUNT (e.g. raise $0.38), or stop", Options: []string{"raise", "stop"}, Raised: at(70)}
	s.Queue = []phase.Checkpoint{cp}
	return s
}
