package jobs

import (
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Board is a run's jobs, in the order they were made, and its agenda: the
// jobs to run, in order; the head is the current one.
type Board struct {
	List   []*Job
	Agenda []string
	byID   map[string]*Job
}

// Add puts j on the board (not on the agenda).
func (b *Board) Add(j *Job) {
	if b.byID == nil {
		b.byID = map[string]*Job{}
	}
	b.List = append(b.List, j)
	b.byID[j.ID] = j
}

// Get is the job of that id, nil if none.
func (b *Board) Get(id string) *Job { return b.byID[id] }

// Front puts the jobs of order at the head of the agenda, in that order,
// before the rest.
func (b *Board) Front(order []string) {
	rest := slices.DeleteFunc(slices.Clone(b.Agenda), func(id string) bool { return slices.Contains(order, id) })
	b.Agenda = append(order, rest...)
}

// Drop takes job id off the agenda.
func (b *Board) Drop(id string) {
	b.Agenda = slices.DeleteFunc(b.Agenda, func(x string) bool { return x == id })
}

// Busy says whether a job of the agenda works, is checked or waits for a
// human (busy), and whether one of those writes (writing).
func (b *Board) Busy() (writing, busy bool) {
	for _, id := range b.Agenda {
		j := b.byID[id]
		writing = writing || (j.Active() && j.Writes())
		busy = busy || j.Active()
	}
	return writing, busy
}

// Ready says whether the jobs j waits for are settled.
func (b *Board) Ready(j *Job) bool {
	for _, id := range slices.Concat(j.Deps, j.Wait) {
		if d := b.byID[id]; d != nil && !d.Settled() {
			return false
		}
	}
	return true
}

// DependsOn says whether j waits for job id in the workflow, directly or
// through others.
func (b *Board) DependsOn(j *Job, id string) bool {
	for _, d := range j.Deps {
		if d == id || (b.byID[d] != nil && b.DependsOn(b.byID[d], id)) {
			return true
		}
	}
	return false
}

// Rebuild sets the build steps that j waits for, done before changed
// works again, to run again after it: what j checks next must build first.
// It returns their ids.
func (b *Board) Rebuild(j, changed *Job) []string {
	var ids []string
	for _, s := range b.List {
		if s.Type == workflows.StepBuild && s.State == roleplan.Done && b.DependsOn(j, s.ID) && !b.DependsOn(changed, s.ID) {
			s.State, s.Wait = roleplan.Pending, []string{changed.ID}
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// SendBack has fixer fix what the check j found (with ctx), then j check
// again. A fixer at work (on another fix, or being evaluated) finishes
// first and then fixes this too: never two attempts of one job at once.
func (b *Board) SendBack(j, fixer *Job, ctx *roleplan.Context) {
	if fixer.Active() {
		fixer.Rerun = fixer.Rerun.With(ctx)
	} else {
		fixer.Next, fixer.State = ctx, roleplan.Pending
	}
	j.State = roleplan.Pending
	builds := b.Rebuild(j, fixer)
	j.Wait = append([]string{fixer.ID}, builds...)
	b.Front(slices.Concat([]string{fixer.ID}, builds, []string{j.ID}))
}

// LookAgain has r work again with ctx once the jobs after are done (the
// fixer, and the build steps it waits for that wait for the fix): next on
// the agenda, or, if it is at work on the tree before the fix, once done.
func (b *Board) LookAgain(r *Job, ctx *roleplan.Context, fixer *Job) {
	after := []string{fixer.ID}
	for _, s := range b.List {
		if s.Type == workflows.StepBuild && s.State == roleplan.Pending && b.DependsOn(r, s.ID) {
			after = append(after, s.ID)
		}
	}
	if r.Active() {
		r.Rerun, r.RerunAfter = ctx, after
		return
	}
	r.State, r.Next, r.Wait = roleplan.Pending, ctx, after
	b.Agenda = slices.Insert(slices.DeleteFunc(b.Agenda, func(x string) bool { return x == r.ID }), 1, r.ID)
}

// Reroute has the challenged job (to) work again with the challenge, then
// the challenger (from) check again.
func (b *Board) Reroute(from, to *Job, ch roleplan.Challenge) {
	switch {
	case to.Active():
		// At work on a fix a check ordered since it was challenged: it
		// takes the challenge up once that attempt is done.
		to.Rerun = withChallenge(to.Rerun, &ch)
	case to.State == roleplan.Pending && to.Next != nil:
		// Waiting to fix what a check found: one attempt does both.
		to.Next = withChallenge(to.Next, &ch)
	default:
		to.Next, to.State = &roleplan.Context{Challenge: &ch}, roleplan.Pending
	}
	from.Next, from.State = &roleplan.Context{Rechecking: &ch}, roleplan.Pending
	builds := b.Rebuild(from, to)
	from.Wait = append([]string{to.ID}, builds...)
	order := []string{to.ID}
	// The architect answers with plans: once the phase has run, its
	// implementers run the changed plans too (the unchanged ones are done).
	if phase := b.byID[roleplan.PhaseJob]; to.Role == workflows.RoleArchitect && phase != nil && phase != from && phase.State == roleplan.Done {
		phase.State, phase.Next = roleplan.Pending, &roleplan.Context{Rechecking: &ch}
		order = append(order, phase.ID)
		from.Wait = append(from.Wait, phase.ID)
	}
	b.Front(append(append(order, builds...), from.ID))
}

// withChallenge is c (nil: nothing else) with the challenge to answer.
func withChallenge(c *roleplan.Context, ch *roleplan.Challenge) *roleplan.Context {
	var out roleplan.Context
	if c != nil {
		out = *c
	}
	out.Challenge = ch
	return &out
}

// Challenged finds the job a challenge names: a role that ran before the
// challenger. The implementers' phase is not re-run for a challenge: one
// implementer agent answers it in the run's worktree. A name that is no
// role of the run means the role just before the challenger.
func (b *Board) Challenged(from *Job, name string) *Job {
	return b.challenged(from, name, func(j *Job) bool { return j.State == roleplan.Done || j.State == roleplan.Skipped })
}

// ChallengedSince is the job a challenge named when it was made, whatever
// it does now: a check may have sent it back to a fix while the human
// weighed the challenge.
func (b *Board) ChallengedSince(from *Job, name string) *Job {
	return b.challenged(from, name, func(*Job) bool { return true })
}

func (b *Board) challenged(from *Job, name string, may func(*Job) bool) *Job {
	name = strings.ToLower(strings.TrimSpace(name))
	var before []*Job
	for _, j := range b.List {
		if j == from {
			break
		}
		// Only an agent's work can be challenged: not a step left out
		// before it ran, nor hive's own build.
		if may(j) && j.Attempts > 0 && j.Type == "" {
			before = append(before, j)
		}
	}
	if len(before) == 0 {
		return nil
	}
	for _, j := range before {
		if j.Role == name || j.ID == name || strings.HasSuffix(name, "-"+j.Role) {
			if j.Phase {
				return b.Implementer()
			}
			return j
		}
	}
	if from.Phase || from.Role == workflows.RoleImplementer {
		if a := b.byID[workflows.RoleArchitect]; a != nil && slices.Contains(before, a) {
			return a
		}
	}
	// What a tester or a reviewer finds wrong is the implementation's.
	if from.Role == workflows.RoleTester || slices.Contains(workflows.Reviewing, from.Role) {
		if impl := b.Implementer(); impl != nil {
			return impl
		}
	}
	last := before[len(before)-1]
	if last.Phase {
		return b.Implementer()
	}
	return last
}

// Implementer is the job that fixes the implementation: the workflow's
// implementer, or, after a phase of parallel implementers, one implementer
// agent made for fixes.
func (b *Board) Implementer() *Job {
	if j := b.byID[workflows.RoleImplementer]; j != nil {
		return j
	}
	if b.byID[roleplan.PhaseJob] == nil {
		return nil
	}
	if j := b.byID[roleplan.FixJob]; j != nil {
		return j
	}
	j := New(roleplan.FixJob, workflows.RoleImplementer)
	b.Add(j)
	return j
}

// Fixer is the job that fixes what j's check found failing: its step's
// on_failure role (a job of the run, or one made for it), else the
// implementer.
func (b *Board) Fixer(j *Job) *Job {
	role := j.Step.OnFailure
	if role == "" || role == workflows.RoleImplementer {
		if impl := b.Implementer(); impl != nil || role != "" {
			return impl
		}
		// No implementer in the run: the role that wrote the code fixes
		// it (a planned "debugger, tester" names no on_failure).
		for _, f := range b.List {
			if (f.Role == workflows.RoleDebugger || f.Role == workflows.RoleMigrator) && f.Type == "" && !f.Phase {
				return f
			}
		}
		return nil
	}
	for _, f := range b.List {
		if f.Role == role && f.Type == "" && !f.Phase {
			return f
		}
	}
	f := New(role, role)
	b.Add(f)
	return f
}

// Gate has the fix_blocking steps still to come wait for job id too: a
// review added to the run.
func (b *Board) Gate(id string) {
	for _, g := range b.List {
		if g.Type == workflows.StepFixBlocking && !g.Settled() {
			g.Deps = append(g.Deps, id)
		}
	}
}

// Gated says whether a reviewing job leaves its blockers to a fix_blocking
// step still to come.
func (b *Board) Gated(j *Job) bool {
	for _, f := range b.List {
		if f.Type == workflows.StepFixBlocking && !f.Settled() && f != j {
			return true
		}
	}
	return false
}

// Spent is what every job has used.
func (b *Board) Spent() work.Spend {
	var s work.Spend
	for _, j := range b.List {
		s = s.Plus(j.Spend)
	}
	return s
}

// RoleSpent is what a role's jobs have cost.
func (b *Board) RoleSpent(role string) float64 {
	usd := 0.0
	for _, j := range b.List {
		if j.Role == role {
			usd += j.Spend.CostUSD
		}
	}
	return usd
}
