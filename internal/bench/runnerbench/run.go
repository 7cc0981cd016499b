package runnerbench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
)

// runSetup is one bench run of a generated project through the real runner.
type runSetup struct {
	proj       *project.Project
	env        []string // the sim agents' environment: HIVE_SIM_MODE, ...
	hiveBin    string
	concurrent int
	team       bool
	observer   runner.Observer // nil: quiet
	launcher   agent.Launcher  // nil: the sim, with env
	limits     phase.ContextLimits
}

// run executes the project's phase with sim agents (as real processes) and
// the durable SQLite journal, unattended, and returns the wall time of
// runner.Run.
func (s runSetup) run(ctx context.Context) (time.Duration, phase.Snapshot, error) {
	j, err := journal.Open(filepath.Join(s.proj.Root, ".hive", "journal.db"))
	if err != nil {
		return 0, phase.Snapshot{}, err
	}
	defer j.Close()
	obs := s.observer
	if obs == nil {
		obs = quiet{}
	}
	launcher := s.launcher
	if launcher == nil {
		launcher = adapter.Sim{Bin: s.hiveBin, Env: s.env}
	}
	start := time.Now()
	res, err := runner.Run(ctx, runner.Options{
		Repo:     s.proj.Repo,
		Phase:    s.proj.Phase,
		Journal:  j,
		Observer: obs,
		Schedule: runner.Schedule{
			MaxConcurrent: s.concurrent,
			Dynamic:       true,
			Since:         s.proj.Base,
		},
		Agents: runner.Agents{
			Launcher: launcher,
			Team:     s.team,
			Context:  s.limits,
		},
		Human: runner.Human{
			AutoAnswer: true,
		},
	})
	wall := time.Since(start)
	if err != nil {
		return wall, res.Snapshot, fmt.Errorf("bench run: %w", err)
	}
	if res.Snapshot.Outcome != phase.OutcomeComplete {
		return wall, res.Snapshot, fmt.Errorf("bench run ended %s: %d of %d plans complete%s", res.Snapshot.Outcome,
			res.Snapshot.Count(phase.Complete), len(res.Snapshot.Plans), FirstReason(res.Snapshot))
	}
	return wall, res.Snapshot, nil
}

// FirstReason is the reason the first plan with one gives, as " (ID:
// reason)", for an error that says a run did not complete; "" if none.
func FirstReason(s phase.Snapshot) string {
	for _, p := range s.Plans {
		if p.Reason != "" {
			return " (" + p.Spec.ID + ": " + p.Reason + ")"
		}
	}
	return ""
}

// quiet is an Observer that ignores everything.
type quiet struct{}

func (quiet) Resumed(journal.Run, phase.Snapshot)   {}
func (quiet) Event(phase.Event, phase.Snapshot)     {}
func (quiet) Command(phase.Command, phase.Snapshot) {}
func (quiet) Note(string, string)                   {}

// RunPhase runs proj's phase through the real runner with launcher's
// agents, concurrent at once (live sessions when team), unattended, and
// fails unless every plan completed: what a group measured with the real
// agent CLIs (cmd/hive-dev's) runs, and the temporal group's local run. It
// returns the wall time of runner.Run.
func RunPhase(ctx context.Context, proj *project.Project, launcher agent.Launcher, concurrent int, team bool) (time.Duration, error) {
	wall, _, err := runSetup{proj: proj, launcher: launcher, concurrent: concurrent, team: team}.run(ctx)
	return wall, err
}
