package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/pipeline/budget"
	"github.com/hivectl/hive/internal/pipeline/findings"
	"github.com/hivectl/hive/internal/pipeline/follow"
	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Machine is the pipeline's state machine. It is not safe for concurrent
// use: one goroutine owns it, as the engine.
type Machine struct {
	// now is the time of the latest event; waits the run's wait for its
	// provider's limit, if any (rules 2).
	now      time.Time
	waits    work.Waits
	spec     roleplan.Spec
	started  bool
	finished bool
	outcome  string
	reason   string

	// jobs: the run's jobs and their agenda.
	jobs jobs.Board

	handoffs   map[string]roleplan.Challenge // "FROM>TO" → the first challenge of that handoff
	challenges []roleplan.Challenge
	decisions  []roleplan.Decision
	warnings   []string
	fixLoops   int
	tests      *roleplan.Tests
	plans      []roleplan.PlanRun   // the phase's plans, as its last run ended
	phaseRuns  map[int64]work.Spend // what each phase run had spent when it last ended
	open       *roleplan.Checkpoint
	queue      []*roleplan.Checkpoint // questions raised while another was open
	findings   findings.Findings
	nextCP     int
	budget     budget.State
	// serial: a computed confidence under the floor; the rest of the
	// run works one job at a time.
	serial bool
	// follow: the run's pull request, once FollowJob delivered it.
	follow *follow.Follow
	// attendance: when nobody's answer stops the run (attend.go).
	attendance attendance
	// publish and noMerge: what the process that resumed the run last was
	// told, for its handover (roleplan.HandoverOf).
	publish string
	noMerge bool
}

// New returns a machine waiting for EvStarted.
func New() *Machine {
	return &Machine{handoffs: map[string]roleplan.Challenge{}}
}

// Step applies one journaled event and returns the commands to carry out.
// An event that does not fit the state is refused with an error and
// changes nothing.
func (m *Machine) Step(ev roleplan.Event) ([]roleplan.Command, error) {
	out, err := m.step(ev)
	if err != nil || !m.started || m.finished {
		return out, err
	}
	if ev.Type == roleplan.EvStarted || ev.Type == roleplan.EvResumed {
		m.attendance = attendance{wait: ev.Wait} // the process's, which has waited for nobody yet
	}
	// A question raised while another was open is asked once that one is
	// answered; with none open, whatever may start now starts.
	if m.open == nil && len(m.queue) > 0 {
		cp := m.queue[0]
		m.queue = m.queue[1:]
		if cp.Kind == roleplan.KindBudget && m.spec.Rules >= queuedBudgetRules {
			out = append(out, m.budgetTurn(cp)...)
		} else {
			m.open = cp
			out = append(out, roleplan.Command{Type: roleplan.CmdCheckpoint, Job: m.open.Job, Checkpoint: m.open})
		}
	} else {
		out = append(out, m.advance()...)
	}
	return append(out, m.attendance.idle(m.open, m.now)...), nil
}

func (m *Machine) step(ev roleplan.Event) ([]roleplan.Command, error) {
	if !m.started && ev.Type != roleplan.EvStarted {
		return nil, fmt.Errorf("%s before the run started", ev.Type)
	}
	if !ev.Time.IsZero() {
		m.now = ev.Time
	}
	if m.finished && ev.Type != roleplan.EvUsage && ev.Type != roleplan.EvAgentExited && ev.Type != roleplan.EvResumed && ev.Type != roleplan.EvWake {
		return nil, fmt.Errorf("%s after the run finished", ev.Type)
	}
	switch ev.Type {
	case roleplan.EvStarted:
		return m.start(ev)
	case roleplan.EvResumed:
		m.publish, m.noMerge = ev.Publish, ev.NoMerge
		return m.resume(), nil
	case roleplan.EvWake:
		return m.wake(), nil
	case roleplan.EvAnswer:
		if ev.Job == roleplan.LimitJob && m.jobs.Get(roleplan.LimitJob) == nil {
			return m.resumeNow(ev)
		}
		return m.answer(ev)
	case roleplan.EvLinted, roleplan.EvPhaseDone, roleplan.EvTestsRan:
		return m.checked(ev)
	case roleplan.EvBuilt:
		return m.built(ev)
	case roleplan.EvEvaluated:
		return m.evaluated(ev)
	case roleplan.EvDelivered, roleplan.EvPullRequest, roleplan.EvPushed:
		return m.follow.Step(ops{m}, m.jobs.Get(roleplan.FollowJob), ev, m.spec.Workflow.Loops())
	}
	j := m.jobs.Get(ev.Job)
	if j == nil {
		return nil, fmt.Errorf("%s of unknown job %q", ev.Type, ev.Job)
	}
	if ev.Type == roleplan.EvUsage {
		// Every attempt's usage counts, a replaced one's too: its turn
		// was spent. Tokens are the turn's; the cost is the session's so far.
		if j.Costs == nil {
			j.Costs = map[int]float64{}
		}
		turn := ev.Spend
		turn.CostUSD, turn.CLICostUSD = max(0, ev.Spend.CostUSD-j.Costs[ev.Attempt]), 0
		j.Spend = j.Spend.Plus(turn)
		j.Costs[ev.Attempt] = max(j.Costs[ev.Attempt], ev.Spend.CostUSD)
		m.budget.Turns.Spent(j.ID, ev.Attempt, turn.CostUSD, !ev.MidTurn) // a role's session is one turn
		return m.spend(j), nil
	}
	if ev.Type == roleplan.EvAgentExited {
		m.budget.Turns.Gone(j.ID, ev.Attempt)
	}
	if ev.Attempt != j.Attempts {
		return nil, nil // an earlier attempt's late output: its work was replaced
	}
	switch ev.Type {
	case roleplan.EvAgentStarted:
		j.PID, j.Seen = ev.PID, true
	case roleplan.EvToolCall:
		return m.toolCall(j, ev), nil
	case roleplan.EvLimited:
		return m.limited(j, ev), nil
	case roleplan.EvReport:
		if ev.Report == nil {
			return nil, fmt.Errorf("report of %s without its HIVE_REPORT", j.ID)
		}
		j.Report = ev.Report
		if len(ev.Errors) > 0 {
			// A report that breaks the role's contract is never the work
			// done: the agent is told what to fix.
			j.Reported, j.Broken, j.MaxInvalid = nil, ev.Errors, ev.MaxAttempts
			break
		}
		j.Reported, j.Broken = ev.Report, nil
		m.waits.Progress() // the provider answers again
	case roleplan.EvAgentExited:
		j.PID = 0
		if j.State != roleplan.Running || m.finished {
			return nil, nil
		}
		if j.Switching {
			// Cut off at a usage limit: it starts again on the fallback.
			j.Switching, j.State = false, roleplan.Pending
			return m.advance(), nil
		}
		if j.Reported == nil && j.Broken != nil {
			return m.invalidReport(j), nil
		}
		if j.Reported == nil {
			why := fmt.Sprintf("the agent exited (code %d) without a HIVE_REPORT", ev.ExitCode)
			if ev.Reason != "" {
				why += ": " + ev.Reason
			}
			return m.crashed(j, why), nil
		}
		j.Crashes, j.Invalid = 0, 0
		return m.route(j, j.Reported), nil
	default:
		return nil, fmt.Errorf("unknown event %q", ev.Type)
	}
	return nil, nil
}

// toolCall applies the loop guard to a tool call of j's agent (seed 003
// §5): a role agent runs one turn, so what the guard would tell it is
// noted for the human; a loop interrupts it and asks the human.
func (m *Machine) toolCall(j *jobs.Job, ev roleplan.Event) []roleplan.Command {
	if j.State != roleplan.Running || m.open != nil || m.finished {
		return nil
	}
	tell, stop := j.Guard.Call(m.spec.Guard, ev.Tool, ev.Text, "write your HIVE_REPORT with status blocked and what blocks you")
	switch {
	case stop != "":
		out := []roleplan.Command{{Type: roleplan.CmdStopAgent, Job: j.ID, Attempt: j.Attempts, PID: j.PID, Interrupt: true, Text: stop}}
		return append(out, m.ask(j, roleplan.KindBlocked, j.Role+" was stopped: "+stop, "", []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})...)
	case tell != "":
		return []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: "loop guard: " + tell}}
	}
	return nil
}

func (m *Machine) start(ev roleplan.Event) ([]roleplan.Command, error) {
	if m.started {
		return nil, fmt.Errorf("the run already started")
	}
	if ev.Spec == nil {
		return nil, fmt.Errorf("%s without its spec", ev.Type)
	}
	if err := ev.Spec.Workflow.Validate("workflow " + ev.Spec.Workflow.Name); err != nil {
		return nil, err
	}
	if ev.Spec.Rules > roleplan.Rules {
		return nil, fmt.Errorf("the run was started by a newer hive, whose rules are version %d (this hive follows version %d): resume it with that hive or a newer one", ev.Spec.Rules, roleplan.Rules)
	}
	m.spec, m.started = *ev.Spec, true
	m.budget = budget.New(m.spec.Budget)
	w := m.spec.Workflow
	architect := w.Has(workflows.RoleArchitect)
	ids := map[string]string{} // step id → job id
	var out []roleplan.Command
	for i, s := range w.Steps {
		j := &jobs.Job{Job: roleplan.Job{ID: s.ID(), Role: s.Role, Type: s.Type, Prompt: s.Prompt, State: roleplan.Pending}, Step: s}
		if s.Type == "" && s.Role == workflows.RoleImplementer && architect {
			j.ID, j.Phase = roleplan.PhaseJob, true
		}
		ids[s.ID()] = j.ID
		for _, d := range w.After(i) {
			// A step left out passes on what it waited for.
			if dj := m.jobs.Get(ids[d]); dj != nil && dj.State == roleplan.Skipped {
				j.Deps = append(j.Deps, dj.Deps...)
			} else {
				j.Deps = append(j.Deps, ids[d])
			}
		}
		j.Deps = slices.Compact(slices.Sorted(slices.Values(j.Deps)))
		m.jobs.Add(j)
		switch {
		case s.Condition != "" && !m.holds(s.Condition):
			j.State = roleplan.Skipped
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("left out: the repository has no %s (condition %s)", strings.TrimPrefix(s.Condition, "has_"), s.Condition)})
		case m.provenOut(s):
			j.State = roleplan.Skipped
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("routing: left out of a quick objective: the %s's recent runs in this project all passed with high confidence", s.Role)})
		case s.Role == workflows.RoleInterviewer && m.spec.NoInterview:
			j.State = roleplan.Skipped
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: "no interview (--no-interview or --yes): the objective is taken as it is written"})
		default:
			m.jobs.Agenda = append(m.jobs.Agenda, j.ID)
		}
	}
	return out, nil
}

// holds says whether a step's condition holds of the repository; one hive
// has no fact for holds, as in the shell Hive.
func (m *Machine) holds(cond string) bool {
	v, ok := m.spec.Facts[cond]
	return !ok || v
}

// followJob is the job that follows the run's pull request, made once the
// roles are done; nil when the run does not follow one or already has.
func (m *Machine) followJob() *jobs.Job {
	if !m.spec.Follow || m.spec.Rules < followRules || m.jobs.Get(roleplan.FollowJob) != nil {
		return nil
	}
	f, j := follow.Start(&m.jobs)
	m.follow = f
	return j
}

// advance starts every job of the agenda whose steps before it are
// settled, in the agenda's order, one that writes only while no other
// does; it ends the run when nothing is left. Nothing starts while a
// human is asked.
func (m *Machine) advance() []roleplan.Command {
	if m.open != nil || m.finished {
		return nil
	}
	if len(m.jobs.Agenda) == 0 {
		j := m.followJob()
		if j == nil {
			return m.finish(roleplan.OutcomeComplete, "")
		}
		m.jobs.Agenda = []string{j.ID}
	}
	writing, busy := m.jobs.Busy()
	var out []roleplan.Command
	for _, id := range slices.Clone(m.jobs.Agenda) { // a job may settle as it starts
		j := m.jobs.Get(id)
		if j.State != roleplan.Pending || !m.jobs.Ready(j) || (j.Writes() && writing) || (m.serial && busy) {
			continue
		}
		writing = writing || j.Writes()
		busy = true
		out = append(out, m.run(j)...)
		if m.open != nil || m.finished {
			break // held by the budget
		}
	}
	if !busy && m.waiting() {
		return out // the wait's end starts them
	}
	if !busy {
		// Every job left waits for another that will not run: a bug,
		// said rather than waited on for ever.
		return m.finish(roleplan.OutcomeFailed, "nothing can start: "+strings.Join(m.jobs.Agenda, ", ")+" wait for each other")
	}
	return out
}

// run starts a job's next attempt, within the budget: a job that it
// cannot pay for waits for a raise.
func (m *Machine) run(j *jobs.Job) []roleplan.Command {
	if m.waiting() && j.Type != workflows.StepBuild && j.Type != roleplan.StepFollow {
		// The provider's limit holds every session: the job starts when
		// the wait is over (wake).
		j.State = roleplan.Pending
		return nil
	}
	next, why, c, held := m.budget.Dispatch(&m.jobs, j, m.spec.Rules >= turnRules)
	if held {
		return m.askBudget(j, why, c)
	}
	j.Attempts++
	j.State, j.Reported, j.Seen, j.Interrupted, j.Guard, j.Wait, j.Broken = roleplan.Running, nil, false, false, work.CallGuard{}, nil, nil
	j.Switching = false // a resume may start it before the cut-off agent's exit came
	j.Evaluating = false
	ctx := j.Next
	j.Next = nil
	defer func() { j.Told = ctx }()
	switch j.Type {
	case workflows.StepBuild:
		j.State = roleplan.Checking
		return []roleplan.Command{{Type: roleplan.CmdBuild, Job: j.ID, Attempt: j.Attempts}}
	case workflows.StepFixBlocking:
		return m.findings.FixBlocking(ops{m}, j, m.spec.AutoAnswer)
	case roleplan.StepFollow:
		return []roleplan.Command{m.follow.Command(&m.jobs, j)}
	}
	if interview := m.interview(); len(interview) > 0 && j.Role != workflows.RoleInterviewer {
		if ctx == nil {
			ctx = &roleplan.Context{}
		}
		ctx.Interview = interview
	}
	if j.Step.Task != "" {
		if ctx == nil {
			ctx = &roleplan.Context{}
		}
		ctx.Task = j.Step.Task
	}
	if len(m.warnings) > 0 && j.Role != workflows.RoleArchitect {
		if ctx == nil {
			ctx = &roleplan.Context{}
		}
		ctx.Warnings = append([]string(nil), m.warnings...)
	}
	// The answers to a role's questions hold for all its later runs.
	if ctx == nil || len(ctx.Decisions) == 0 {
		for _, d := range m.decisions {
			if d.Job == j.ID {
				if ctx == nil {
					ctx = &roleplan.Context{}
				}
				ctx.Decisions = append(ctx.Decisions, d)
			}
		}
	}
	if j.Phase {
		return []roleplan.Command{{Type: roleplan.CmdRunPhase, Job: j.ID, Role: j.Role, Attempt: j.Attempts, Context: ctx, BudgetUSD: next.USD, BudgetTokens: next.Tokens,
			Fallback: m.waits.FellBack}}
	}
	m.budget.Turns.Started(j.ID, j.Attempts)
	return []roleplan.Command{{Type: roleplan.CmdStartAgent, Job: j.ID, Role: j.Role, Prompt: j.Prompt, Attempt: j.Attempts, Context: ctx,
		BudgetUSD: next.USD, BudgetTokens: next.Tokens, Rung: next.Rung, Fallback: m.waits.FellBack}}
}

// route decides what a finished agent's report means.
func (m *Machine) route(j *jobs.Job, r *work.Report) []roleplan.Command {
	switch r.Status {
	case work.ReportChallenge:
		return m.challenge(j, r)
	case work.ReportNeedsInput:
		return m.needsInput(j, r)
	case work.ReportBlocked:
		why := words.First(r.Blocker, r.Summary, "no reason given")
		if j.Step.Optional() {
			return m.leaveOut(j, "it is blocked: "+why)
		}
		return m.ask(j, roleplan.KindBlocked, j.Role+" is blocked: "+why, strings.Join(r.Concerns, "\n"), []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})
	case work.ReportPartial:
		for _, c := range r.Concerns {
			m.warnings = append(m.warnings, j.Role+": "+c)
		}
	}
	if j.Role == workflows.RoleInterviewer {
		return m.interviewed(j, r)
	}
	return m.worked(j)
}

// leaveOut settles a step that is not required and failed: the run goes
// on without it.
func (m *Machine) leaveOut(j *jobs.Job, why string) []roleplan.Command {
	note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("%s left out (not required): %s", j.ID, why)}
	return append([]roleplan.Command{note}, m.done(j, roleplan.Skipped)...)
}

// worked: the role did its work. The architect's plans are linted and the
// tester's verdict is checked by running the tests, mechanically, before
// the next role.
func (m *Machine) worked(j *jobs.Job) []roleplan.Command {
	switch j.Role {
	case workflows.RoleArchitect:
		j.State = roleplan.Checking
		return []roleplan.Command{{Type: roleplan.CmdLint, Job: j.ID, Attempt: j.Attempts}}
	case workflows.RoleTester:
		j.State = roleplan.Checking
		return []roleplan.Command{{Type: roleplan.CmdRunTests, Job: j.ID, Attempt: j.Attempts}}
	}
	if slices.Contains(workflows.Reviewing, j.Role) {
		m.findings.Record(j, j.Reported)
		routed := m.routeSecurity(j)
		if !m.jobs.Gated(j) {
			return append(routed, m.findings.Gate(ops{m}, j, []string{j.ID}, m.spec.AutoAnswer)...)
		}
		return append(routed, m.done(j, roleplan.Done)...)
	}
	return m.done(j, roleplan.Done)
}

// SecondReviewFiles: a change of more files gets a second review.
const SecondReviewFiles = 10

// routeSecondReview is adaptive routing (seed 003 §3): a change of more
// than SecondReviewFiles files gets a second reviewer beside the first;
// a fix_blocking step still to come waits for it too.
func (m *Machine) routeSecondReview(changed int) []roleplan.Command {
	const id = workflows.RoleReviewer + "-2"
	first := m.jobs.Get(workflows.RoleReviewer)
	if changed <= SecondReviewFiles || first == nil || first.Type != "" || first.State == roleplan.Skipped || m.jobs.Get(id) != nil {
		return nil
	}
	second := jobs.New(id, workflows.RoleReviewer)
	second.Deps = slices.Clone(first.Deps)
	m.jobs.Add(second)
	m.jobs.Agenda = append(m.jobs.Agenda, id)
	m.jobs.Gate(id)
	return []roleplan.Command{{Type: roleplan.CmdNote, Job: id, Text: fmt.Sprintf("routing: %d files changed (more than %d) add a second review", changed, SecondReviewFiles)}}
}

// routeSecurity is adaptive routing (seed 003 §3): a reviewer's open high
// or blocker finding, in a run with no security audit, adds one after the
// reviewer; a fix_blocking step still to come waits for it too. The note
// says why, and a replay of the journal decides the same.
func (m *Machine) routeSecurity(j *jobs.Job) []roleplan.Command {
	if j.Role != workflows.RoleReviewer || m.jobs.Get(workflows.RoleSecurity) != nil {
		return nil
	}
	f, severe := m.findings.Severe(j.ID)
	if !severe {
		return nil
	}
	sec := jobs.New(workflows.RoleSecurity, workflows.RoleSecurity)
	sec.Deps = []string{j.ID}
	m.jobs.Add(sec)
	m.jobs.Agenda = append([]string{sec.ID}, m.jobs.Agenda...)
	m.jobs.Gate(sec.ID)
	return []roleplan.Command{{Type: roleplan.CmdNote, Job: sec.ID, Text: fmt.Sprintf("routing: the reviewer's %s finding %s (%s) adds a security audit", f.Severity, f.ID, words.OneLine(f.Title))}}
}

// done settles a job and goes on. A step with a checkpoint first asks a
// human to look at its work, unless --yes.
func (m *Machine) done(j *jobs.Job, s roleplan.JobState) []roleplan.Command {
	if s == roleplan.Done && m.evaluates(j) && j.Evaluated != j.Attempts {
		return m.evaluate(j)
	}
	if s == roleplan.Done && j.Step.Checkpoint && !j.Reviewed && !m.spec.AutoAnswer {
		what := j.Role + " finished"
		if r := j.Reported; r != nil && r.Summary != "" {
			what += ": " + words.OneLine(r.Summary)
		}
		details := m.reviewDetails(j)
		if j.Evaluation != nil {
			details = strings.TrimSpace(j.Evaluation.Text(false) + "\n\n" + details)
		}
		return m.ask(j, roleplan.KindReview, what+". Look at its work before the run goes on", details,
			[]string{roleplan.AnswerContinue, roleplan.AnswerDetails, roleplan.AnswerReject, roleplan.AnswerAbort}, func(cp *roleplan.Checkpoint) { cp.Evaluation = j.Evaluation })
	}
	if s == roleplan.Done && j.Rerun != nil {
		j.State, j.Next, j.Wait, j.Rerun = roleplan.Pending, j.Rerun, j.RerunAfter, nil
		return m.advance()
	}
	j.State, j.Reviewed = s, false
	m.jobs.Agenda = slices.DeleteFunc(m.jobs.Agenda, func(id string) bool { return id == j.ID })
	return m.advance()
}

// reviewDetails says what a step produced, for its checkpoint.
func (m *Machine) reviewDetails(j *jobs.Job) string {
	var lines []string
	if r := j.Reported; r != nil {
		if len(r.Files) > 0 {
			lines = append(lines, "files: "+strings.Join(r.Files, ", "))
		}
		for _, c := range r.Concerns {
			lines = append(lines, "concern: "+c)
		}
	}
	if j.Role == workflows.RoleArchitect && m.spec.PhaseDir != "" {
		lines = append(lines, "plans: "+m.spec.PhaseDir)
	}
	return strings.Join(lines, "\n")
}

// crashed: an agent ended without a report. It is replaced once; then the
// human decides.
func (m *Machine) crashed(j *jobs.Job, why string) []roleplan.Command {
	j.Crashes++
	if j.Crashes == 1 {
		j.Next = j.CutOff(why)
		return append([]roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: why + "; starting it again"}}, m.run(j)...)
	}
	if j.Step.Optional() {
		return m.leaveOut(j, fmt.Sprintf("it ended %d times without a report: %s", j.Crashes, why))
	}
	return m.ask(j, roleplan.KindBlocked, fmt.Sprintf("%s ended %d times without a report: %s", j.Role, j.Crashes, why), "", []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})
}

// invalidReport: the agent's report broke its role's contract. The role
// runs again with the errors, up to the contract's attempts; then a human
// decides, continue (the run goes on without the role's work) by default:
// --yes takes it, so that a report never blocks a run nobody watches.
func (m *Machine) invalidReport(j *jobs.Job) []roleplan.Command {
	j.Invalid++
	most := j.MaxInvalid
	if most <= 0 {
		most = 2
	}
	errs := j.Broken
	if j.Invalid < most {
		j.Next = j.Again(fmt.Sprintf("your report broke the %s's contract (%d of %d attempts)", j.Role, j.Invalid, most))
		j.Next.ContractErrors = errs
		note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("the report breaks the %s's contract (%s): starting it again with the errors", j.Role, words.OneLine(strings.Join(errs, "; ")))}
		return append([]roleplan.Command{note}, m.run(j)...)
	}
	if j.Step.Optional() {
		return m.leaveOut(j, fmt.Sprintf("its report broke the contract %d times", j.Invalid))
	}
	q := fmt.Sprintf("%s's report broke its contract %d times", j.Role, j.Invalid)
	options := []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort}
	if m.spec.AutoAnswer {
		m.decisions = append(m.decisions, roleplan.Decision{Job: j.ID, Question: q, Options: options, Choice: roleplan.AnswerContinue, By: "default"})
		note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("%s (%s): --yes takes the default, %s: the run goes on without the %s's work",
			q, words.OneLine(strings.Join(errs, "; ")), roleplan.AnswerContinue, j.Role)}
		return append([]roleplan.Command{note}, m.done(j, roleplan.Skipped)...)
	}
	return m.ask(j, roleplan.KindBlocked, q, strings.Join(errs, "\n"), options, func(cp *roleplan.Checkpoint) { cp.Default = roleplan.AnswerContinue })
}

// challenge routes a role's challenge of an earlier one (seed 003 Phase 1):
// the challenged role runs again with the challenge, then the challenger
// checks again; a second challenge of the same handoff goes to a human
// with both sides.
func (m *Machine) challenge(j *jobs.Job, r *work.Report) []roleplan.Command {
	to := m.jobs.Challenged(j, r.ChallengedAgent)
	if to == nil {
		return m.ask(j, roleplan.KindBlocked, fmt.Sprintf("%s challenged %q, which has not run before it: %s", j.Role, r.ChallengedAgent, r.Issue),
			r.Evidence, []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})
	}
	if to == j {
		return m.ask(j, roleplan.KindBlocked, fmt.Sprintf("%s challenged its own work (%q): %s", j.Role, r.ChallengedAgent, r.Issue),
			r.Evidence, []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})
	}
	key := j.ID + ">" + to.ID
	first, again := m.handoffs[key]
	ch := roleplan.Challenge{From: j.Role, To: to.Role, Issue: r.Issue, Evidence: r.Evidence, Suggestion: r.Suggestion, Round: 1}
	if again {
		ch.Round = 2
	}
	m.challenges = append(m.challenges, ch)
	note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("%s challenges %s: %s", ch.From, ch.To, words.OneLine(ch.Issue))}
	if !again {
		m.handoffs[key] = ch
		return append([]roleplan.Command{note}, m.reroute(j, to, ch)...)
	}
	out := []roleplan.Command{note}
	cmds := m.ask(j, roleplan.KindChallenge, fmt.Sprintf("%s challenges %s a second time", ch.From, ch.To), ch.Issue,
		[]string{roleplan.AnswerAccept, roleplan.AnswerOverride, roleplan.AnswerAbort}, func(cp *roleplan.Checkpoint) { cp.Challenge, cp.Previous = &ch, &first })
	return append(out, cmds...)
}

// reroute runs the challenged job with the challenge, then the challenger.
func (m *Machine) reroute(from, to *jobs.Job, ch roleplan.Challenge) []roleplan.Command {
	m.jobs.Reroute(from, to, ch)
	return m.advance()
}

// maxDefaults is how many of a job's questions are answered by their
// defaults before the human is asked.
const maxDefaults = 3

// needsInput takes the default of a question when it may (--yes, or the
// role says it can proceed with it), else asks the human; either way the
// role runs again with the decision.
func (m *Machine) needsInput(j *jobs.Job, r *work.Report) []roleplan.Command {
	q := words.First(r.Blocker, r.Summary, j.Role+" needs a decision")
	def := r.DefaultChoice
	if def == "" && m.spec.AutoAnswer && len(r.Options) > 0 {
		def = r.Options[0]
	}
	defaults := 0
	for _, d := range m.decisions {
		if d.Job == j.ID && d.By == "default" {
			defaults++
		}
	}
	// A role that keeps asking is not answered by default for ever.
	if def != "" && (m.spec.AutoAnswer || r.CanProceedWithDefault) && defaults < maxDefaults {
		return m.decide(j, roleplan.Decision{Job: j.ID, Question: q, Options: r.Options, Choice: def, By: "default"})
	}
	return m.ask(j, roleplan.KindNeedsInput, q, "", r.Options, func(cp *roleplan.Checkpoint) { cp.Default = def })
}

func (m *Machine) decide(j *jobs.Job, d roleplan.Decision) []roleplan.Command {
	m.decisions = append(m.decisions, d)
	if j.Next == nil {
		j.Next = &roleplan.Context{}
	}
	for _, earlier := range m.decisions {
		if earlier.Job == j.ID {
			j.Next.Decisions = append(j.Next.Decisions, earlier)
		}
	}
	note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("decision (%s): %s → %s", d.By, words.OneLine(d.Question), d.Choice)}
	return append([]roleplan.Command{note}, m.run(j)...)
}

// checked takes the result of hive's own check of a job: the lint of the
// architect's plans, the phase of the implementers, the tests.
func (m *Machine) checked(ev roleplan.Event) ([]roleplan.Command, error) {
	want := words.First(ev.Job, map[roleplan.EventType]string{roleplan.EvLinted: workflows.RoleArchitect, roleplan.EvPhaseDone: roleplan.PhaseJob, roleplan.EvTestsRan: workflows.RoleTester}[ev.Type])
	j := m.jobs.Get(want)
	state := roleplan.Checking
	if ev.Type == roleplan.EvPhaseDone {
		state = roleplan.Running
	}
	if j == nil || j.State != state || (ev.Attempt != 0 && ev.Attempt != j.Attempts) {
		return nil, fmt.Errorf("%s while %s is not being checked", ev.Type, want)
	}
	switch ev.Type {
	case roleplan.EvLinted:
		if len(ev.Errors) == 0 {
			return m.done(j, roleplan.Done), nil
		}
		j.Lints++
		if j.Lints <= 2 {
			j.Next = &roleplan.Context{LintErrors: ev.Errors}
			note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("the plans do not lint (%d error(s)): back to the architect", len(ev.Errors))}
			return append([]roleplan.Command{note}, m.run(j)...), nil
		}
		return m.ask(j, roleplan.KindLint, fmt.Sprintf("the architect's plans still do not lint after %d corrections", j.Lints-1),
			strings.Join(ev.Errors, "\n"), []string{roleplan.AnswerRetry, roleplan.AnswerAbort}), nil
	case roleplan.EvPhaseDone:
		if ev.Fallback && m.spec.Rules >= fallbackRules {
			m.waits.FellBack = true // the roles after the phase start on the fallback too
		}
		if len(ev.Plans) > 0 {
			m.plans = append([]roleplan.PlanRun(nil), ev.Plans...)
		}
		// A phase run resumed after a raise or a crash reports its whole
		// spend again: only what is new counts.
		if m.phaseRuns == nil {
			m.phaseRuns = map[int64]work.Spend{}
		}
		j.Spend = j.Spend.Plus(ev.Spend.Minus(m.phaseRuns[ev.PhaseRun]))
		if ev.PhaseRun != 0 {
			m.phaseRuns[ev.PhaseRun] = ev.Spend
		}
		if ev.OverBudget {
			// The phase run resumes where its plans stopped once raised.
			j.Next = &roleplan.Context{}
			if c, over := m.budget.Reached(&m.jobs, j.Role); over {
				return m.askBudget(j, c.String(), c), nil
			}
			why := strings.TrimPrefix(words.First(ev.Reason, "its allotment is spent"), "budget reached: ")
			return m.askBudget(j, "the implementers' phase: "+why, m.budget.CeilingOf(&m.jobs, j.Role)), nil
		}
		if ev.Report != nil && ev.Report.Status == work.ReportChallenge {
			return m.challenge(j, ev.Report), nil
		}
		if ev.OK {
			return m.done(j, roleplan.Done), nil
		}
		return m.ask(j, roleplan.KindPhase, "the implementers' phase did not complete: "+words.First(ev.Reason, "no reason given"), "",
			[]string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort}), nil
	}
	t := ev.Tests
	if t == nil {
		return nil, fmt.Errorf("%s without its result", ev.Type)
	}
	m.tests = t
	if t.None {
		// No test ran: the tester's work is not verified, so the step is
		// skipped (never passed) and the run goes on without it.
		return m.done(j, roleplan.Skipped), nil
	}
	if t.ExitCode == 0 {
		return m.done(j, roleplan.Done), nil
	}
	if t.Unrunnable {
		return m.ask(j, roleplan.KindTests, "the tests could not run: "+t.Command, t.Output,
			[]string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort}), nil
	}
	if m.fixLoops < m.spec.Workflow.Loops() && m.jobs.Fixer(j) != nil {
		return m.fixLoop(j, t), nil
	}
	return m.ask(j, roleplan.KindTests, fmt.Sprintf("the tests still fail after %d fix loop(s)", m.fixLoops), failing(t),
		[]string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort}), nil
}

// built takes the result of a build step: a failure goes to the step's
// on_failure role with the output, then the build runs again, up to the
// workflow's fix loops; then a human decides.
func (m *Machine) built(ev roleplan.Event) ([]roleplan.Command, error) {
	j := m.jobs.Get(ev.Job)
	if j == nil || j.Type != workflows.StepBuild || j.State != roleplan.Checking || (ev.Attempt != 0 && ev.Attempt != j.Attempts) {
		return nil, fmt.Errorf("%s while %q is not building", ev.Type, ev.Job)
	}
	t := ev.Tests
	if t == nil {
		return nil, fmt.Errorf("%s without its result", ev.Type)
	}
	options := []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort}
	switch {
	case t.None:
		// Nothing to build: nothing passed either.
		return append(m.routeSecondReview(ev.Changed), m.done(j, roleplan.Skipped)...), nil
	case t.ExitCode == 0:
		return append(m.routeSecondReview(ev.Changed), m.done(j, roleplan.Done)...), nil
	case t.Unrunnable:
		return m.ask(j, roleplan.KindBuild, "the build could not run: "+t.Command, t.Output, options), nil
	case j.Fixes >= m.spec.Workflow.Loops():
		return m.ask(j, roleplan.KindBuild, fmt.Sprintf("the build still fails after %d fix loop(s): %s", j.Fixes, t.Command), t.Output, options), nil
	}
	fixer := m.jobs.Fixer(j)
	if fixer == nil {
		return m.ask(j, roleplan.KindBuild, "the build fails and the workflow has no role to fix it: "+t.Command, t.Output, options), nil
	}
	j.Fixes++
	return m.sendBack(j, fixer, &roleplan.Context{BuildFailed: t}, fmt.Sprintf("build fix loop %d of %d: %s failed (exit %d), back to the %s",
		j.Fixes, m.spec.Workflow.Loops(), t.Command, t.ExitCode, fixer.Role)), nil
}

// sendBack has fixer fix what the check j found (with ctx), then j check
// again (jobs.Board.SendBack), and says so with text.
func (m *Machine) sendBack(j, fixer *jobs.Job, ctx *roleplan.Context, text string) []roleplan.Command {
	m.jobs.SendBack(j, fixer, ctx)
	return []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: text}}
}

// fixLoop sends failing tests back to the implementer (or the tester's
// on_failure role), then has the tester verify again (seed 003 §3.5).
func (m *Machine) fixLoop(tester *jobs.Job, t *roleplan.Tests) []roleplan.Command {
	impl := m.jobs.Fixer(tester)
	if impl == nil {
		return m.ask(tester, roleplan.KindTests, "the tests fail and the workflow has no implementer to fix them", failing(t),
			[]string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})
	}
	m.fixLoops++
	of := fmt.Sprintf("%d of %d", m.fixLoops, m.spec.Workflow.Loops())
	if m.fixLoops > m.spec.Workflow.Loops() {
		of = fmt.Sprintf("%d (one more, as the human asked)", m.fixLoops)
	}
	failing := fmt.Sprintf("%d failing test(s)", max(t.Failed, len(t.Failing)))
	if t.Failed == 0 && len(t.Failing) == 0 {
		failing = fmt.Sprintf("the failing tests (exit %d)", t.ExitCode)
	}
	cmds := m.sendBack(tester, impl, &roleplan.Context{Fix: t}, fmt.Sprintf("fix loop %s: %s back to the %s", of, failing, impl.Role))
	tester.Next = &roleplan.Context{Retry: "the " + impl.Role + " fixed the failing tests; verify again"}
	return cmds
}

// ask opens a checkpoint on j; while another is open, it is asked once
// that one is answered.
func (m *Machine) ask(j *jobs.Job, kind roleplan.CheckpointKind, question, details string, options []string, with ...func(*roleplan.Checkpoint)) []roleplan.Command {
	m.nextCP++
	j.State = roleplan.Waiting
	cp := &roleplan.Checkpoint{ID: m.nextCP, Job: j.ID, Kind: kind, Question: question, Details: details, Options: options}
	for _, f := range with {
		f(cp)
	}
	if m.open != nil {
		m.queue = append(m.queue, cp)
		return nil
	}
	m.open = cp
	return []roleplan.Command{{Type: roleplan.CmdCheckpoint, Job: j.ID, Checkpoint: cp}}
}

// answer applies a human's answer to the open checkpoint.
func (m *Machine) answer(ev roleplan.Event) ([]roleplan.Command, error) {
	cp := m.open
	if cp == nil || ev.Checkpoint != cp.ID {
		return nil, fmt.Errorf("no open checkpoint %d", ev.Checkpoint)
	}
	if err := cp.Check(ev.Text); err != nil {
		return nil, err
	}
	text := strings.TrimSpace(ev.Text)
	j := m.jobs.Get(cp.Job)
	m.open = nil
	if cp.Kind == roleplan.KindBudget {
		stop, factor, _ := cp.Raise(text)
		if stop {
			j.State = roleplan.Skipped
			return m.finish(roleplan.OutcomeAborted, "stopped at the budget: "+strings.TrimPrefix(cp.Question, "budget reached: ")), nil
		}
		return m.budgetAnswered(j, cp, factor), nil
	}
	if cp.Kind == roleplan.KindFindings {
		return m.findings.Answer(ops{m}, j, cp, text), nil
	}
	if cp.Kind == roleplan.KindNeedsInput && cp.Interview {
		return m.answered(j, roleplan.Decision{Job: j.ID, Question: cp.Question, Options: cp.Options, Choice: text, By: "human"}), nil
	}
	if cp.Kind == roleplan.KindNeedsInput {
		return m.decide(j, roleplan.Decision{Job: j.ID, Question: cp.Question, Options: cp.Options, Choice: text, By: "human"}), nil
	}
	if cp.Kind == roleplan.KindReview || cp.Kind == roleplan.KindEvaluation {
		if out, ok := m.reviewAnswer(j, cp, text); ok {
			return out, nil
		}
	}
	choice := strings.ToLower(text)
	if cp.Kind == roleplan.KindFollow && choice == roleplan.AnswerRetry {
		return m.follow.Retry(ops{m}, j, m.spec.Workflow.Loops()), nil
	}
	switch choice {
	case roleplan.AnswerAbort:
		j.State = roleplan.Skipped
		return m.finish(roleplan.OutcomeAborted, "aborted at "+j.Role+": "+cp.Question), nil
	case roleplan.AnswerContinue:
		if cp.Kind == roleplan.KindReview {
			j.Reviewed = true
			return m.done(j, roleplan.Done), nil
		}
		return m.done(j, roleplan.Skipped), nil
	case roleplan.AnswerAccept:
		return m.reroute(j, m.jobs.ChallengedSince(j, cp.Challenge.To), *cp.Challenge), nil
	case roleplan.AnswerOverride:
		j.Next = &roleplan.Context{Overruled: cp.Challenge}
		return m.run(j), nil
	}
	// retry
	switch cp.Kind {
	case roleplan.KindBuild:
		// The human fixed the build, or made it runnable: build again.
		j.State, j.Fixes = roleplan.Checking, 0
		return []roleplan.Command{{Type: roleplan.CmdBuild, Job: j.ID, Attempt: j.Attempts}}, nil
	case roleplan.KindTests:
		if m.tests != nil && m.tests.Unrunnable {
			// The human made the tests runnable: run them again.
			j.State = roleplan.Checking
			return []roleplan.Command{{Type: roleplan.CmdRunTests, Job: j.ID, Attempt: j.Attempts}}, nil
		}
		return m.fixLoop(j, m.tests), nil
	case roleplan.KindLint:
		j.Lints = 0
	}
	j.Next = j.Again("the human asked for another attempt after: " + cp.Question)
	if cp.Kind == roleplan.KindBlocked {
		// The human is asked after a job's second crash in a row (its
		// last attempt was cut off) or after reports that broke the
		// contract too often (it ended its turn).
		j.Next.Interrupted = j.Writes() && j.Crashes >= 2
		j.Crashes, j.Invalid = 0, 0
	}
	if cp.Kind == roleplan.KindLint {
		j.Next.LintErrors = strings.Split(cp.Details, "\n")
	}
	return m.run(j), nil
}

// resume takes the run over in a new process: agents of the old one are
// ended, and what was under way is done again, never what finished.
func (m *Machine) resume() []roleplan.Command {
	m.budget.Turns.Ended() // the previous process's agents are ended
	if m.finished {
		return nil
	}
	out := m.limitResumed()
	for _, j := range m.jobs.List {
		if j.State == roleplan.Running && !j.Phase && j.PID > 0 {
			out = append(out, roleplan.Command{Type: roleplan.CmdStopAgent, Job: j.ID, Attempt: j.Attempts, PID: j.PID})
			j.PID = 0
		}
	}
	if m.open != nil {
		out = append(out, roleplan.Command{Type: roleplan.CmdCheckpoint, Job: m.open.Job, Checkpoint: m.open})
	}
	for _, id := range slices.Clone(m.jobs.Agenda) {
		if m.finished {
			break
		}
		out = append(out, m.redo(m.jobs.Get(id))...)
	}
	return out
}

// redo does again what was under way of j when hive stopped.
func (m *Machine) redo(j *jobs.Job) []roleplan.Command {
	switch {
	case j.State == roleplan.Checking && j.Evaluating:
		return []roleplan.Command{{Type: roleplan.CmdEvaluate, Job: j.ID, Role: j.Role, Attempt: j.Attempts}}
	case j.State == roleplan.Checking && j.Role == workflows.RoleArchitect:
		return []roleplan.Command{{Type: roleplan.CmdLint, Job: j.ID, Attempt: j.Attempts}}
	case j.State == roleplan.Checking && j.Type == roleplan.StepFollow:
		return []roleplan.Command{m.follow.Command(&m.jobs, j)}
	case j.State == roleplan.Checking && j.Type == workflows.StepBuild:
		return []roleplan.Command{{Type: roleplan.CmdBuild, Job: j.ID, Attempt: j.Attempts}}
	case j.State == roleplan.Checking:
		return []roleplan.Command{{Type: roleplan.CmdRunTests, Job: j.ID, Attempt: j.Attempts}}
	case j.State == roleplan.Running && (j.Phase || j.Type != ""):
		// The phase's own journal resumes it: nothing it finished runs again.
		j.Attempts--
		j.Next = j.Told
		return m.run(j)
	case j.State == roleplan.Running && !j.Seen && j.Reported == nil:
		// Its start was decided but never seen (the answer that decided it
		// came while no hive ran): start it now.
		j.Attempts--
		j.Next = j.Told
		return m.run(j)
	case j.State == roleplan.Running && j.Reported != nil:
		// Its report was journaled: the work is done, only its exit was lost.
		return m.route(j, j.Reported)
	case j.State == roleplan.Running:
		j.Next = j.CutOff("hive was restarted while this agent worked; its commits so far are kept")
		return m.run(j)
	}
	return nil
}

// finish ends the run; agents still at work (beside the one that ended
// it) are stopped.
func (m *Machine) finish(outcome, reason string) []roleplan.Command {
	m.finished, m.outcome, m.reason = true, outcome, reason
	var out []roleplan.Command
	for _, j := range m.jobs.List {
		if j.State == roleplan.Running && !j.Phase && j.Type == "" {
			out = append(out, roleplan.Command{Type: roleplan.CmdStopAgent, Job: j.ID, Attempt: j.Attempts, PID: j.PID})
		}
	}
	return append(out, roleplan.Command{Type: roleplan.CmdFinished, Outcome: outcome, Text: reason})
}

// failing lists the failing tests, or the output's tail.
func failing(t *roleplan.Tests) string {
	if t == nil {
		return ""
	}
	if len(t.Failing) > 0 {
		return strings.Join(t.Failing, "\n")
	}
	return t.Output
}
