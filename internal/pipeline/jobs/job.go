package jobs

import (
	"slices"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Job is one role's work in a run, as the machine keeps it.
type Job struct {
	roleplan.Job
	Reported *work.Report      // the current attempt's report
	Next     *roleplan.Context // for its next start
	Crashes  int               // attempts in a row that ended without a report
	Lints    int               // re-runs for lint errors
	Costs    map[int]float64   // each attempt's session cost counted so far
	Seen     bool              // the current attempt's agent was seen to start
	Guard    work.CallGuard    // the loop guard's view of the current attempt's calls
	// Interrupted: the budget stopped the current attempt's agent.
	Interrupted bool
	// Switching: a usage limit stopped the current attempt's agent as the
	// run fell back; the job starts again on the fallback once it exits.
	Switching bool
	Told      *roleplan.Context // what the current attempt was told

	Step     workflows.Step // the workflow's step (none for a job made for fixes)
	Deps     []string       // the jobs it waits for, from the workflow
	Wait     []string       // the jobs it waits for this time: a challenge, a fix
	Reviewed bool           // a human looked at its work (its step's checkpoint)
	Fixes    int            // a build's fix loops
	Asked    int            // the interviewer's questions still open
	// Broken: what the current attempt's report breaks of its contract;
	// Invalid counts the attempts in a row that reported so, of at most
	// MaxInvalid.
	Broken     []string
	Invalid    int
	MaxInvalid int
	// Rerun: a fix was ordered while the job worked; once done, it runs
	// again with this context after the jobs RerunAfter.
	Rerun      *roleplan.Context
	RerunAfter []string
	// Evaluated is the attempt last judged; EvalBlocks counts the
	// evaluations that blocked.
	Evaluated  int
	EvalBlocks int
}

// New is a pending job of role, made for the run (no step of its
// workflow): a fixer, a second review.
func New(id, role string) *Job {
	return &Job{Job: roleplan.Job{ID: id, Role: role, State: roleplan.Pending}}
}

// Settled says whether the job's work is over, for now.
func (j *Job) Settled() bool { return j.State == roleplan.Done || j.State == roleplan.Skipped }

// Active says whether the job works, is checked, or waits for a human.
func (j *Job) Active() bool {
	return j.State == roleplan.Running || j.State == roleplan.Checking || j.State == roleplan.Waiting
}

// Writes says whether the job changes the run's worktree: two such never
// work at once (a build or the tests need a tree no agent is changing).
func (j *Job) Writes() bool {
	return j.Type != "" || j.Phase || !slices.Contains(workflows.ReadOnly, j.Role)
}

// Again is what the next attempt of a job is told when it replaces the
// current one: everything the current one was told (its decisions, the
// failing tests, the challenge), and why it runs again.
func (j *Job) Again(why string) *roleplan.Context {
	ctx := &roleplan.Context{}
	if j.Told != nil {
		c := *j.Told
		c.Warnings = nil       // they are added again from the run's
		c.ContractErrors = nil // they were the replaced attempt's
		ctx = &c
	}
	ctx.Retry = why
	ctx.Interrupted = false
	return ctx
}

// CutOff is what the next attempt of a job is told when the current one
// was cut off mid-turn: Again's, and, for a job that writes, that what it
// left uncommitted is set aside first.
func (j *Job) CutOff(why string) *roleplan.Context {
	ctx := j.Again(why)
	ctx.Interrupted = j.Writes()
	return ctx
}
