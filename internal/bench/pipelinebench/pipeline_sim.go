package pipelinebench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/bench/pipelinebench/objectives"
	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// One run of the pipeline bench: hive's real pipeline machine routes an
// objective while a scripted, seeded policy plays every role, the planner
// and the evaluators, and the fixture repository's real test results
// (objectives.Outcomes) say what the tests show of the code the roles wrote.

// benchPolicy is how the scripted roles behave: the chances the issue
// names p (Right), q (Catch), r (Flag) and f (FalseAlarm), and the rest.
type benchPolicy struct {
	Right     map[string]float64 // p by class: an implementer writes the correct variant first time
	StubShare float64            // of the wrong attempts, the share that leave a stub
	Design    float64            // the share of an implementer's error an architect's plans remove
	Feedback  float64            // the share of the error that a fix with feedback removes
	Regress   float64            // a fix of correct code (a false alarm) breaks it
	Catch     float64            // q: a tester adds the case that shows the subtle bug
	Warned    float64            // the share of the tester's misses that an evaluator's warning in its context prevents
	Flag      float64            // r: a reviewer flags wrong code as a blocker
	// FalseAlarm (f) is the chance a reviewer flags correct code.
	FalseAlarm       float64
	SecFlag, SecFals float64 // the security role's r and f
	CombCatch        float64 // the comb fixes a subtle bug it sees
	// Each evaluator's verdict, as chances of ok, warn and block, on correct
	// code, on subtly wrong code and on a stub; the roles that write no
	// code are judged as correct code is.
	EvalGood, EvalSubtle, EvalStub [3]float64
	LintFail                       float64 // the architect's plans fail the lint
	HumanCatch                     float64 // a human at a checkpoint sees wrong code and rejects it
	PlannerRight                   float64 // the planner answers the class's roles; else an answer out of its schema
}

var defaultPolicy = benchPolicy{
	Right:     map[string]float64{objectives.ClassTypo: 0.9, objectives.ClassSmall: 0.8, objectives.ClassBug: 0.7, objectives.ClassFeature: 0.55},
	StubShare: 0.4, Design: 0.3, Feedback: 0.6, Regress: 0.05,
	Catch: 0.6, Warned: 0.5, Flag: 0.5, FalseAlarm: 0.1, SecFlag: 0.2, SecFals: 0.05, CombCatch: 0.2,
	EvalGood: [3]float64{0.85, 0.12, 0.03}, EvalSubtle: [3]float64{0.3, 0.4, 0.3}, EvalStub: [3]float64{0.1, 0.3, 0.6},
	LintFail: 0.1, HumanCatch: 0.6, PlannerRight: 0.9,
}

// harshPolicy is worse at everything: implementers right less often,
// testers and reviewers catching less, evaluators and humans noisier. The
// bench reports the goals under it too, to show how much they rest on the
// defaults.
var harshPolicy = func() benchPolicy {
	p := defaultPolicy
	p.Right = map[string]float64{objectives.ClassTypo: 0.75, objectives.ClassSmall: 0.6, objectives.ClassBug: 0.5, objectives.ClassFeature: 0.35}
	p.Catch, p.Flag, p.FalseAlarm, p.CombCatch, p.HumanCatch, p.PlannerRight = 0.4, 0.35, 0.2, 0.1, 0.4, 0.7
	p.EvalSubtle, p.EvalGood = [3]float64{0.45, 0.35, 0.2}, [3]float64{0.75, 0.18, 0.07}
	return p
}()

// String says the policy in a line, for the report.
func (p benchPolicy) String() string {
	return fmt.Sprintf("p %.2f/%.2f/%.2f/%.2f (typo/small/bug/feature), q %.2f, r %.2f, f %.2f, evaluators block %.2f of subtle bugs, %.2f of correct work",
		p.Right[objectives.ClassTypo], p.Right[objectives.ClassSmall], p.Right[objectives.ClassBug], p.Right[objectives.ClassFeature], p.Catch, p.Flag, p.FalseAlarm, p.EvalSubtle[2], p.EvalGood[2])
}

// The token size model: a role's agent session works a number of turns
// (its role's typical count, log-normally spread), each reading the agent's
// system prompt and tools (cached) and the conversation so far, and
// writing a little; the planner and each evaluator are one short call.
var roleTurns = map[string]int{
	workflows.RoleArchitect: 10, workflows.RoleImplementer: 12, workflows.RoleDebugger: 12, workflows.RoleComb: 6,
	workflows.RoleTester: 9, workflows.RoleReviewer: 7, workflows.RoleSecurity: 6, workflows.RoleDocumenter: 5,
}

const (
	turnBase      = 14_000 // a turn's system prompt, tools and project memory
	turnGrowth    = 1_500  // what each turn adds to the conversation
	turnOutput    = 400
	plannerTokens = 3_000 + 250 // objective, index and history in; the plan out
	evalTokens    = 2_500 + 150 // the role's work in; a verdict out
)

// plannedRoles is the planner's answer for each class of objective when it
// answers as its prompt (roles/prompts/planner.md) asks.
var plannedRoles = map[string]workflows.PlannerAnswer{
	objectives.ClassTypo:  {Roles: []string{workflows.RoleImplementer}, Reasoning: "a change of a word: the implementer alone"},
	objectives.ClassSmall: {Roles: []string{workflows.RoleImplementer, workflows.RoleTester}, Reasoning: "a small change: implement, then test the edge"},
	objectives.ClassBug:   {Roles: []string{workflows.RoleDebugger, workflows.RoleTester}, Reasoning: "a bug: reproduce and fix it, then test"},
	// The planner's prompt keeps the architect for work across files; each
	// feature here is one function in one file.
	objectives.ClassFeature: {Roles: []string{workflows.RoleImplementer, workflows.RoleTester, workflows.RoleReviewer}, Parallel: [][]string{{workflows.RoleTester, workflows.RoleReviewer}}, Reasoning: "a new function in one file: implement it, then test beside review"},
}

// benchConfig is one way to run the objectives.
type benchConfig struct {
	Name     string
	Evaluate bool
	// workflow chooses the run's workflow; calls is how many planner
	// calls that took.
	workflow func(o objectives.Objective, pol benchPolicy, rng *rand.Rand) (w workflows.Workflow, calls int)
}

var benchConfigs = []benchConfig{
	{Name: "implementer only", workflow: func(objectives.Objective, benchPolicy, *rand.Rand) (workflows.Workflow, int) {
		return workflows.Workflow{Name: "implementer-only", Steps: []workflows.Step{{Role: workflows.RoleImplementer, After: []string{}}}}, 0
	}},
	{Name: "fixed full", workflow: func(objectives.Objective, benchPolicy, *rand.Rand) (workflows.Workflow, int) {
		return workflows.Full, 0
	}},
	{Name: "planned", Evaluate: true, workflow: plannedWorkflow},
}

// plannedWorkflow plays the planner: a good answer for the objective's
// class, or one out of its schema, which hive asks once more for and then
// replaces by its rules (workflows.Pick), as `hive run --plan` does.
func plannedWorkflow(o objectives.Objective, pol benchPolicy, rng *rand.Rand) (workflows.Workflow, int) {
	for call := 1; call <= 2; call++ {
		if rng.Float64() < pol.PlannerRight {
			if w, err := workflows.Planned(plannedRoles[o.Class]); err == nil {
				return w, call
			}
		}
	}
	w, _ := workflows.Pick(o.Text)
	return w, 2
}

// simResult is one run's outcome.
type simResult struct {
	Config, Fn, Lang, Class string
	Workflow                string
	Pass                    bool   // the hidden tests pass on the code the run ended with
	Variant                 string // the code the run ended with
	Evaluated               bool   // hive's evaluation judged the code that was delivered
	EvalTokens              int64  // what the evaluators' calls billed
	Outcome                 string
	Tokens                  int64
	Checkpoints             int
	Computed                float64 // hive's computed confidence in the result, 0..1
	SelfReported            float64 // the last writer's own confidence, 0..1
}

// simRun is the world of one run: the code the roles have written, and
// what was billed.
type simRun struct {
	rng  *rand.Rand
	pol  benchPolicy
	obj  objectives.Objective
	lang string
	out  objectives.Outcomes
	m    *pipeline.Machine

	variant     string          // the function as it stands: "" until written (the stub is there)
	testerCases bool            // the tester's cases are in the repository
	changed     map[string]bool // files changed since the base
	plans       []confidence.Plan
	lintErrors  []string
	findings    map[string][]confidence.Finding // reviewing job → its last findings

	tokens      int64
	evaluations int
	checkpoints int
	phaseRuns   int64
	writerEval  *roleplan.Evaluation // the evaluation of the last job that wrote code
	self        float64
	queue       []roleplan.Command
}

// simulate runs objective obj of lang under cfg with the seeded policy.
func simulate(cfg benchConfig, obj objectives.Objective, lang string, out objectives.Outcomes, pol benchPolicy, rng *rand.Rand) (simResult, error) {
	r := &simRun{rng: rng, pol: pol, obj: obj, lang: lang, out: out, m: pipeline.New(), changed: map[string]bool{}, findings: map[string][]confidence.Finding{}}
	w, calls := cfg.workflow(obj, pol, rng)
	r.tokens += int64(calls) * plannerTokens
	spec := &roleplan.Spec{Objective: obj.Text, Workflow: w, AutoAnswer: true, NoInterview: true,
		Facts: map[string]bool{workflows.CondHasFrontend: false, workflows.CondHasTests: true}}
	if cfg.Evaluate {
		spec.Routing = roleplan.Routing{Evaluate: true, Floor: 60, Quick: workflows.IsQuick(obj.Text)}
	}
	if err := r.step(roleplan.Event{Type: roleplan.EvStarted, Spec: spec}); err != nil {
		return simResult{}, err
	}
	for steps := 0; !r.m.Finished(); steps++ {
		if len(r.queue) == 0 || steps > 5000 {
			return simResult{}, fmt.Errorf("%s, %s in %s: the run stalled with nothing to do (%d steps)", cfg.Name, obj.Fn, lang, steps)
		}
		c := r.queue[0]
		r.queue = r.queue[1:]
		if err := r.execute(c); err != nil {
			return simResult{}, fmt.Errorf("%s, %s in %s: %s %s: %w", cfg.Name, obj.Fn, lang, c.Type, c.Job, err)
		}
	}
	snap := r.m.Snapshot()
	res := simResult{Config: cfg.Name, Fn: obj.Fn, Lang: lang, Class: obj.Class, Workflow: w.String(), Outcome: snap.Outcome,
		Pass: r.suite(objectives.SuiteHidden).Failed == 0, Variant: cmp.Or(r.variant, objectives.VariantStub), Evaluated: r.writerEval != nil,
		Tokens: r.tokens, Checkpoints: r.checkpoints, SelfReported: r.self,
		EvalTokens: int64(r.evaluations*len(roleplan.Aspects)) * evalTokens}
	e := r.writerEval
	if e == nil {
		checks := r.writerChecks()
		e = &roleplan.Evaluation{Checks: &checks}
	}
	res.Computed = float64(e.Confidence()) / 100
	return res, nil
}

func (r *simRun) step(ev roleplan.Event) error {
	cmds, err := r.m.Step(ev)
	r.queue = append(r.queue, cmds...)
	return err
}

func (r *simRun) steps(evs ...roleplan.Event) error {
	for _, ev := range evs {
		if err := r.step(ev); err != nil {
			return fmt.Errorf("%s refused: %w", ev.Type, err)
		}
	}
	return nil
}

// execute plays one command of the machine.
func (r *simRun) execute(c roleplan.Command) error {
	switch c.Type {
	case roleplan.CmdStartAgent:
		return r.agent(c)
	case roleplan.CmdRunPhase:
		plans := len(r.plans)
		var spend int64
		for range max(1, plans) {
			spend += r.session(workflows.RoleImplementer, false)
		}
		r.write(c.Context, true)
		r.self = 0.8 + 0.17*r.rng.Float64() // the implementers' own word on their plans
		r.phaseRuns++
		return r.steps(roleplan.Event{Type: roleplan.EvPhaseDone, Job: c.Job, OK: true, PhaseRun: r.phaseRuns, Spend: spendOf(spend)})
	case roleplan.CmdLint:
		return r.steps(roleplan.Event{Type: roleplan.EvLinted, Job: c.Job, Errors: r.lintErrors})
	case roleplan.CmdBuild:
		return r.steps(roleplan.Event{Type: roleplan.EvBuilt, Job: c.Job, Attempt: c.Attempt, Changed: len(r.changed),
			Tests: &roleplan.Tests{Command: "build", ExitCode: 0}})
	case roleplan.CmdRunTests:
		t := r.tests()
		exit := 0
		if t.Failed > 0 {
			exit = 1
		}
		return r.steps(roleplan.Event{Type: roleplan.EvTestsRan, Job: c.Job, Attempt: c.Attempt,
			Tests: &roleplan.Tests{Command: strings.Join(objectives.Langs[r.lang].Test, " "), ExitCode: exit, Passed: t.Passed, Failed: t.Failed}})
	case roleplan.CmdEvaluate:
		e := r.evaluate(c.Job, c.Role)
		if writes(c.Role) || c.Job == roleplan.PhaseJob {
			r.writerEval = e
		}
		return r.steps(roleplan.Event{Type: roleplan.EvEvaluated, Job: c.Job, Attempt: c.Attempt, Evaluation: e})
	case roleplan.CmdCheckpoint:
		r.checkpoints++
		return r.steps(roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: c.Checkpoint.ID, Text: r.human(c.Checkpoint)})
	}
	return nil // notes, stops and the end need no answer
}

// writes says whether a role changes the code.
func writes(role string) bool {
	return slices.Contains([]string{workflows.RoleImplementer, workflows.RoleDebugger, workflows.RoleMigrator, workflows.RoleComb}, role)
}

// agent plays a role's agent session: its work, its usage, its report.
func (r *simRun) agent(c roleplan.Command) error {
	ctx := c.Context
	if ctx == nil {
		ctx = &roleplan.Context{}
	}
	fix := feedback(ctx)
	tokens := r.session(c.Role, fix)
	report := &work.Report{Status: work.ReportComplete, Summary: "done", Confidence: 0.8 + 0.17*r.rng.Float64()}
	switch role := c.Role; {
	case role == workflows.RoleImplementer || role == workflows.RoleDebugger || role == workflows.RoleMigrator:
		r.write(ctx, false)
	case role == workflows.RoleComb:
		if r.variant == objectives.VariantSubtle && r.rng.Float64() < r.pol.CombCatch {
			r.variant = objectives.VariantCorrect
			r.changed[r.source()] = true
		}
	case role == workflows.RoleTester:
		catch := r.pol.Catch
		if len(ctx.Warnings) > 0 { // an evaluator's warning says where to look
			catch += (1 - catch) * r.pol.Warned
		}
		if !r.testerCases && r.rng.Float64() < catch {
			r.testerCases = true
			r.changed["cases/tester.test.json"] = true
		}
	case role == workflows.RoleReviewer || role == workflows.RoleSecurity:
		report.Extra = map[string]json.RawMessage{"issues": r.review(c.Job, role, len(ctx.Findings) > 0)}
	case role == workflows.RoleArchitect:
		r.design()
	}
	if writes(c.Role) {
		r.self = report.Confidence
		if r.variant == objectives.VariantStub {
			report.Confidence = 0.6 + 0.3*r.rng.Float64() // a stub's author is a little less sure
			r.self = report.Confidence
		}
	}
	return r.steps(
		roleplan.Event{Type: roleplan.EvAgentStarted, Job: c.Job, Attempt: c.Attempt, PID: 1000 + c.Attempt},
		roleplan.Event{Type: roleplan.EvUsage, Job: c.Job, Attempt: c.Attempt, Spend: spendOf(tokens)},
		roleplan.Event{Type: roleplan.EvReport, Job: c.Job, Attempt: c.Attempt, Report: report},
		roleplan.Event{Type: roleplan.EvAgentExited, Job: c.Job, Attempt: c.Attempt})
}

// feedback says whether a session works on something found wrong.
func feedback(ctx *roleplan.Context) bool {
	return ctx.Fix != nil || ctx.BuildFailed != nil || len(ctx.Findings) > 0 || len(ctx.Evaluation) > 0 || ctx.Feedback != "" || ctx.Challenge != nil
}

// write plays an implementer: the correct variant with the class's chance,
// better after an architect's design, much better with feedback on what is
// wrong; a fix of correct code (a false alarm) may break it.
func (r *simRun) write(ctx *roleplan.Context, designed bool) {
	p := r.pol.Right[r.obj.Class]
	if designed {
		p += (1 - p) * r.pol.Design
	}
	switch {
	case r.variant == objectives.VariantCorrect && ctx != nil && feedback(ctx):
		p = 1 - r.pol.Regress
	case r.variant != "" && ctx != nil && feedback(ctx):
		p += (1 - p) * r.pol.Feedback
	}
	switch {
	case r.rng.Float64() < p:
		r.variant = objectives.VariantCorrect
	case r.rng.Float64() < r.pol.StubShare:
		r.variant = objectives.VariantStub
	default:
		r.variant = objectives.VariantSubtle
	}
	r.changed[r.source()] = true
}

// design plays the architect: a plan per part of the work, whose tasks
// mostly say how to verify them and when they are done, and reference the
// function's file (or, now and then, a file that is not there).
func (r *simRun) design() {
	r.plans = nil
	n := 1
	if r.obj.Class == objectives.ClassFeature {
		n = 2
	}
	for i := range n {
		ref := "@" + r.source()
		if r.rng.Float64() < 0.1 {
			ref = "@docs/design-" + fmt.Sprint(i) + ".md"
		}
		p := confidence.Plan{Text: "Objective: " + r.obj.Text + "\nContext: " + ref}
		for t := range 2 + r.rng.IntN(2) {
			task := confidence.Task{Action: fmt.Sprintf("write part %d of %s", t+1, r.obj.Fn)}
			if r.rng.Float64() < 0.9 {
				task.Verify, task.Done = strings.Join(objectives.Langs[r.lang].Test, " "), "the visible cases pass"
			}
			if r.rng.Float64() < 0.1 {
				task.Action += " and handle errors properly"
			}
			p.Tasks = append(p.Tasks, task)
		}
		r.plans = append(r.plans, p)
	}
	r.lintErrors = nil
	if r.rng.Float64() < r.pol.LintFail {
		r.lintErrors = []string{"01-01-PLAN.md:12: task 2 has no <verify>"}
	}
}

// review plays a reviewing role: wrong code is flagged with chance r (a
// stub more often), correct code with chance f, a finding cites the
// function's file at a real line, or at one past its end when it is a
// false alarm half the time. Asked to look again after a fix, it reports
// what it still sees.
func (r *simRun) review(job, role string, again bool) json.RawMessage {
	flag, falseAlarm := r.pol.Flag, r.pol.FalseAlarm
	if role == workflows.RoleSecurity {
		flag, falseAlarm = r.pol.SecFlag, r.pol.SecFals
	}
	if r.variant == objectives.VariantStub {
		flag = min(1, flag+0.3)
	}
	if again {
		falseAlarm *= 0.2
	}
	lines := strings.Count(r.code(), "\n")
	var found []confidence.Finding
	switch {
	case r.variant != objectives.VariantCorrect && r.rng.Float64() < flag:
		found = append(found, confidence.Finding{File: r.source(), Line: 1 + r.rng.IntN(lines)})
	case r.variant == objectives.VariantCorrect && r.rng.Float64() < falseAlarm:
		line := 1 + r.rng.IntN(lines)
		if r.rng.IntN(2) == 0 {
			line = lines + 5
		}
		found = append(found, confidence.Finding{File: r.source(), Line: line})
	}
	r.findings[job] = found
	var issues []map[string]any
	for _, f := range found {
		issues = append(issues, map[string]any{"severity": roleplan.SevBlocker, "file": f.File, "line": f.Line, "title": r.obj.Fn + " gets an edge case wrong"})
	}
	data, _ := json.Marshal(issues)
	return data
}

// evaluate is hive's judgement of a job's attempt: the role's mechanical
// checks, computed by the confidence package from the repository as the
// roles left it, and three noisy evaluators.
func (r *simRun) evaluate(job, role string) *roleplan.Evaluation {
	e := &roleplan.Evaluation{Role: role, SelfReported: r.self}
	var checks confidence.Score
	switch {
	case writes(role) || job == roleplan.PhaseJob:
		checks = r.writerChecks()
	case role == workflows.RoleTester:
		checks = confidence.Tester(r.run(r.tests()), slices.Sorted(maps.Keys(r.changed)))
	case role == workflows.RoleReviewer || role == workflows.RoleSecurity:
		checks = confidence.Reviewer(role, r.findings[job], func(file string) (int, bool) {
			if file != r.source() {
				return 0, false
			}
			return strings.Count(r.code(), "\n"), true
		})
	case role == workflows.RoleArchitect:
		checks = confidence.Architect(r.lintErrors, r.plans, func(p string) bool { return p == r.source() })
	}
	if checks.Max > 0 {
		e.Checks = &checks
	}
	odds := r.pol.EvalGood
	if writes(role) || job == roleplan.PhaseJob {
		switch r.variant {
		case objectives.VariantSubtle:
			odds = r.pol.EvalSubtle
		case objectives.VariantStub, "":
			odds = r.pol.EvalStub
		}
	}
	for _, a := range roleplan.Aspects {
		v := roleplan.Verdict{Aspect: a, Verdict: roleplan.VerdictOK, Tokens: evalTokens}
		switch x := r.rng.Float64(); {
		case x < odds[2]:
			v.Verdict, v.Notes = roleplan.VerdictBlock, []string{"an edge case of " + r.obj.Fn + " looks wrong"}
		case x < odds[2]+odds[1]:
			v.Verdict, v.Notes = roleplan.VerdictWarn, []string{"check the edges of " + r.obj.Fn}
		}
		e.Verdicts = append(e.Verdicts, v)
		r.tokens += evalTokens
	}
	r.evaluations++
	return e
}

// writerChecks are the implementer's checks of the code as it stands.
func (r *simRun) writerChecks() confidence.Score {
	planned := []string{r.source()}
	var added []string
	if r.changed[r.source()] {
		added = strings.Split(r.code(), "\n")
	}
	build := confidence.Run{Ran: true, OK: true, Command: "build"}
	return confidence.Implementer(build, r.run(r.tests()), planned, slices.Sorted(maps.Keys(r.changed)), added)
}

// human answers a checkpoint: one that shows a role's work is rejected
// when the human sees the code is wrong (with HumanCatch), else the run
// goes on with the first answer the checkpoint takes.
func (r *simRun) human(cp *roleplan.Checkpoint) string {
	if (cp.Kind == roleplan.KindEvaluation || cp.Kind == roleplan.KindReview) && r.variant != objectives.VariantCorrect && r.rng.Float64() < r.pol.HumanCatch {
		return roleplan.AnswerReject + " " + r.obj.Fn + " fails an edge case: check it against its spec"
	}
	for _, a := range []string{roleplan.AnswerContinue, roleplan.AnswerOverride, "accept the human looked and keeps it", roleplan.AnswerRetry} {
		if cp.Check(a) == nil {
			return a
		}
	}
	return cp.Options[0]
}

// session bills a role's agent session from the size model; a session
// that fixes something works about two thirds as long.
func (r *simRun) session(role string, fix bool) int64 {
	base := float64(cmp.Or(roleTurns[role], 8))
	if fix {
		base *= 2.0 / 3
	}
	turns := max(2, int(math.Round(base*math.Exp(0.3*r.rng.NormFloat64()))))
	var tokens int64
	for t := range turns {
		tokens += turnBase + int64(t)*turnGrowth + turnOutput
	}
	r.tokens += tokens
	return tokens
}

// usdPerToken is the budget group's blend of input, cache and output
// prices (budgetbench), which turns a session's tokens into its cost.
const usdPerToken = 4e-6

func spendOf(tokens int64) work.Spend {
	return work.Spend{InputTokens: tokens * 9 / 10, OutputTokens: tokens / 10, CostUSD: float64(tokens) * usdPerToken}
}

// tests are the repository's tests as they stand: the visible cases, and
// the tester's once added.
func (r *simRun) tests() objectives.SuiteResult {
	t := r.suite(objectives.SuiteVisible)
	if r.testerCases {
		tc := r.suite(objectives.SuiteTester)
		t.Passed, t.Failed = t.Passed+tc.Passed, t.Failed+tc.Failed
	}
	return t
}

func (r *simRun) run(t objectives.SuiteResult) confidence.Run {
	return confidence.Run{Ran: true, OK: t.Failed == 0, Passed: t.Passed, Failed: t.Failed, Command: strings.Join(objectives.Langs[r.lang].Test, " ")}
}

// suite is how the function as it stands fares on a suite, measured.
func (r *simRun) suite(s string) objectives.SuiteResult {
	return r.out[r.lang][cmp.Or(r.variant, objectives.VariantStub)][r.obj.Fn][s]
}

func (r *simRun) source() string { return objectives.Langs[r.lang].Source(r.obj.Fn) }
func (r *simRun) code() string {
	return r.obj.CodeIn(r.lang, cmp.Or(r.variant, objectives.VariantStub))
}
