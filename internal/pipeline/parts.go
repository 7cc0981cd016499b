package pipeline

import (
	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
)

// ops is what the machine lends its parts that hold the run (findings,
// follow): its jobs, its checkpoints, a job settled, the run's end.
type ops struct{ m *Machine }

func (o ops) Jobs() *jobs.Board { return &o.m.jobs }

func (o ops) Ask(j *jobs.Job, kind roleplan.CheckpointKind, question, details string, options []string, with ...func(*roleplan.Checkpoint)) []roleplan.Command {
	return o.m.ask(j, kind, question, details, options, with...)
}

func (o ops) Done(j *jobs.Job, s roleplan.JobState) []roleplan.Command { return o.m.done(j, s) }

func (o ops) Finish(outcome, reason string) []roleplan.Command { return o.m.finish(outcome, reason) }
