package pipeline

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// TestDeepWalks drives the machine deep with events drawn from its own
// state: reports of every status for the jobs it started, answers to the
// open checkpoint, the checks' results, findings, challenges, limits,
// resumes, the pull request's events, and now and then an event out of
// place; over specs of every kind (built-in, planned with parallel roles
// and custom workflows; budgets, --yes, Follow, older rules). Where
// TestRandomWalks checks what the machine decides on plausible walks, this
// test checks that no walk, however odd, breaks it:
//
//   - Step never panics: the event that panics is journaled first, so the
//     run would panic again at every resume;
//   - a fresh machine stepping the events' JSON, as a resume replays the
//     journal, answers each with the same commands, error and snapshot;
//   - once the run has ended, only the late events of its agents and
//     process (usage, exits, a resume, a wake) are accepted, and the run
//     stays ended.
//
// A failure gives the seed, the event and the events so far, one JSON a
// line, to replay. HIVE_DEEPWALK_SEEDS sets how many seeds run (default
// deepWalkSeeds), HIVE_DEEPWALK_FROM the first: HIVE_DEEPWALK_FROM=S
// HIVE_DEEPWALK_SEEDS=1 replays seed S alone.
func TestDeepWalks(t *testing.T) {
	from, n := deepEnv(t, "HIVE_DEEPWALK_FROM", 0), deepEnv(t, "HIVE_DEEPWALK_SEEDS", deepWalkSeeds)
	tally := &deepTally{checkpoints: map[roleplan.CheckpointKind]int{}}
	failures := 0
	for seed := from; seed < from+n; seed++ {
		events, at, what := deepWalk(seed, tally)
		if at < 0 {
			continue
		}
		failures++
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d, event %d: %s\nreplay with HIVE_DEEPWALK_FROM=%d HIVE_DEEPWALK_SEEDS=1; the events, one a line:\n", seed, at, what, seed)
		for _, raw := range events[:at+1] {
			b.Write(raw)
			b.WriteByte('\n')
		}
		t.Error(b.String())
		if failures == 3 {
			t.Fatal("more seeds may fail: stopped at 3")
		}
	}
	t.Logf("seeds %d..%d: %d events (%d refused), %d runs ended, checkpoints %v, %d second challenges accepted while the challenged job was sent to a fix",
		from, from+n-1, tally.events, tally.refused, tally.ended, tally.checkpoints, tally.acceptedWhileFixing)
	if from != 0 || n < deepWalkSeeds {
		return // the floors below hold for the default seeds
	}
	// The walks must keep reaching the deep states they are here for, as
	// the vocabulary and the machine change.
	if uint64(tally.ended) < n/2 {
		t.Errorf("%d of %d runs ended: the walks hardly reach the end of a run", tally.ended, n)
	}
	for _, k := range []roleplan.CheckpointKind{roleplan.KindChallenge, roleplan.KindFindings, roleplan.KindBudget, roleplan.KindNeedsInput,
		roleplan.KindEvaluation, roleplan.KindFollow, roleplan.KindBuild, roleplan.KindTests} {
		if tally.checkpoints[k] < 5 {
			t.Errorf("%d %s checkpoints: the walks hardly reach them", tally.checkpoints[k], k)
		}
	}
	if tally.acceptedWhileFixing == 0 {
		t.Error("no second challenge was accepted while the challenged job was sent to a fix: the walks no longer reach the state that once crashed the machine (script challenge_while_fixing)")
	}
}

// deepWalkSeeds keeps the test at about 6 seconds on one core.
const deepWalkSeeds = 2500

func deepEnv(t *testing.T, name string, def uint64) uint64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want a number: %v", name, v, err)
	}
	return n
}

// deepTally is what the walks reached, to tell that they still go deep.
type deepTally struct {
	events, refused, ended int
	checkpoints            map[roleplan.CheckpointKind]int
	// acceptedWhileFixing counts second challenges accepted while a check
	// had sent the challenged job to a fix: the lookup the machine made
	// there before the fix of script challenge_while_fixing found no job,
	// and the machine crashed.
	acceptedWhileFixing int
}

// lateEvents are those a run that has ended still takes: its agents'
// last usage and exits, a new process's resume, a wake it had asked for.
var lateEvents = []roleplan.EventType{roleplan.EvUsage, roleplan.EvAgentExited, roleplan.EvResumed, roleplan.EvWake}

// deepWalk walks one seed. It returns the events as journaled and, if a
// check fails, the index of the event and what failed (else -1).
func deepWalk(seed uint64, tally *deepTally) (events [][]byte, at int, what string) {
	g := &deepGen{r: rand.New(rand.NewPCG(seed, 0xD1FF)), clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		cost: map[string]float64{}, life: map[string]int{}, prun: 1}
	live, replay := New(), New()
	spec := g.spec()
	g.temper(spec.Workflow)
	first := roleplan.Event{Type: roleplan.EvStarted, Spec: spec, Time: g.clock, Wait: g.wait()}
	if g.chance(0.02) {
		first = roleplan.Event{Type: roleplan.EvUsage, Job: "x"} // before the start: refused
	}
	ev := first
	afterEnd := 0
	for i := range 60 + g.pick(240) {
		if i > 0 {
			g.tick()
			ev.Time = g.clock
		}
		raw, err := json.Marshal(ev)
		if err != nil {
			return events, i, "the event does not marshal: " + err.Error()
		}
		events = append(events, raw)
		before := live.Snapshot()
		if acceptsChallengeWhileFixing(before, ev) {
			tally.acceptedWhileFixing++
		}
		got := deepStep(live, ev)
		if got.panic != "" {
			return events, i, "Step panics: " + got.panic
		}
		// The replay steps the journal's JSON, not the generator's values:
		// whatever the JSON loses, the replay shows.
		var again roleplan.Event
		if err := json.Unmarshal(raw, &again); err != nil {
			return events, i, "the event does not unmarshal: " + err.Error()
		}
		if d := deepStep(replay, again).differs(got); d != "" {
			return events, i, "a replay of the events answers differently: " + d
		}
		tally.events++
		if got.err != "" {
			tally.refused++
		}
		after := live.Snapshot()
		if before.Finished {
			if got.err == "" && !slices.Contains(lateEvents, ev.Type) {
				return events, i, fmt.Sprintf("%s accepted after the run finished", ev.Type)
			}
			if !after.Finished || after.Outcome != before.Outcome {
				return events, i, fmt.Sprintf("%s after the run finished (%s) left it finished %v (%s)", ev.Type, before.Outcome, after.Finished, after.Outcome)
			}
		}
		if after.Open != nil && (before.Open == nil || before.Open.ID != after.Open.ID) {
			tally.checkpoints[after.Open.Kind]++
		}
		if after.Finished {
			if afterEnd++; afterEnd == 1 {
				tally.ended++
			}
			if afterEnd > 4 {
				break // a few late events, in or out of place, then the next seed
			}
		}
		if !after.Started && i > 2 {
			break
		}
		ev = g.next(after)
		if !after.Started {
			ev = roleplan.Event{Type: roleplan.EvStarted, Spec: spec}
		}
	}
	return events, -1, ""
}

// acceptsChallengeWhileFixing says whether ev accepts a second challenge
// while the job it challenges is no longer done: a check has sent it to a
// fix since (or it is at that fix). Before the fix of script
// challenge_while_fixing, the machine looked for the challenged job among
// the jobs done, found none, and crashed.
func acceptsChallengeWhileFixing(s roleplan.Snapshot, ev roleplan.Event) bool {
	cp := s.Open
	if ev.Type != roleplan.EvAnswer || cp == nil || cp.Kind != roleplan.KindChallenge || ev.Checkpoint != cp.ID ||
		!strings.EqualFold(strings.TrimSpace(ev.Text), roleplan.AnswerAccept) {
		return false
	}
	for _, j := range s.Jobs {
		if j.Role == cp.Challenge.To && j.Type == "" && j.Attempts > 0 && j.State != roleplan.Done && j.State != roleplan.Skipped {
			return true
		}
	}
	return false
}

// deepReply is one machine's answer to one event, as JSON.
type deepReply struct{ cmds, err, snap, panic string }

func deepStep(m *Machine, ev roleplan.Event) (r deepReply) {
	defer func() {
		if p := recover(); p != nil {
			r.panic = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	cmds, err := m.Step(ev)
	r.cmds = deepJSON(cmds)
	if err != nil {
		r.err = err.Error()
	}
	r.snap = deepJSON(m.Snapshot())
	return r
}

// differs is "" when the replay r answered as the live machine did.
func (r deepReply) differs(live deepReply) string {
	var d []string
	if r.panic != "" {
		d = append(d, "the replay panics: "+r.panic)
	}
	if r.err != live.err {
		d = append(d, fmt.Sprintf("error: live %q, replay %q", live.err, r.err))
	}
	if r.cmds != live.cmds {
		d = append(d, "commands:\n  live   "+live.cmds+"\n  replay "+r.cmds)
	}
	if r.snap != live.snap {
		d = append(d, "snapshot:\n  live   "+live.snap+"\n  replay "+r.snap)
	}
	return strings.Join(d, "\n")
}

func deepJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "does not marshal: " + err.Error()
	}
	return string(b)
}

// deepGen draws events from the machine's state, mostly plausible, with
// enough odd ones (a wrong attempt, an unknown job, a checkpoint's id off
// by one, answers a checkpoint refuses) to reach the corners.
type deepGen struct {
	r     *rand.Rand
	clock time.Time
	pid   int
	cost  map[string]float64 // JOB/ATTEMPT → the session's cost so far
	life  map[string]int     // JOB/ATTEMPT → 1 started, 2 reported
	prun  int64              // the phase's journal run
	head  int                // the pull request's head
	// The walk's temper (see temper).
	slow, contentious bool
	laggard           string
}

// temper draws the walk's temper: a slow human lets the jobs at work go
// on while a checkpoint is open; contentious agents challenge each other
// often; the laggard role's agent works long while the others go on. A
// third of the walks are tangled, all three at once: they reach what
// happens to a job while a human weighs a question about it (a second
// challenge accepted after a check sent the challenged job to a fix once
// crashed the machine: walks of no temper reached that state once in
// 2,000, and never as it crashed).
func (g *deepGen) temper(w workflows.Workflow) {
	tangled := g.chance(0.35)
	g.slow, g.contentious = tangled || g.chance(0.15), tangled || g.chance(0.15)
	if !tangled && !g.chance(0.2) {
		return
	}
	// Mostly a checking role: those work beside others.
	var roles []string
	for _, st := range w.Steps {
		if st.Role == workflows.RoleTester || slices.Contains(workflows.Reviewing, st.Role) {
			roles = append(roles, st.Role)
		}
	}
	if len(roles) == 0 || g.chance(0.2) {
		roles = append(roles, w.Steps[g.pick(len(w.Steps))].Role)
	}
	g.laggard = oneOf(g, roles...)
}

func (g *deepGen) pick(n int) int        { return g.r.IntN(n) }
func (g *deepGen) chance(p float64) bool { return g.r.Float64() < p }
func oneOf[T any](g *deepGen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

// wait is how long a process waits for an answer (roleplan.Event.Wait):
// none said (a hive that decided it in its shell), at once, a while, never.
func (g *deepGen) wait() *time.Duration {
	if g.chance(0.3) {
		return nil
	}
	w := oneOf(g, 0, 5*time.Minute, 30*time.Minute, -time.Second)
	return &w
}
func deepKey(job string, attempt int) string { return job + "/" + strconv.Itoa(attempt) }

// tick moves the clock: mostly seconds, now and then hours (a limit's
// reset, a human away).
func (g *deepGen) tick() {
	if g.chance(0.03) {
		g.clock = g.clock.Add(time.Duration(1+g.pick(180)) * time.Minute)
		return
	}
	g.clock = g.clock.Add(time.Duration(1+g.pick(5)) * time.Second)
}

// workflow draws a built-in workflow, a planner's (some with reviewing
// roles beside the tester) or a custom one with builds and fix_blocking,
// then varies its steps.
func (g *deepGen) workflow() workflows.Workflow {
	var w workflows.Workflow
	switch k := g.pick(16); {
	case k < 2:
		w = classic
	case k == 2:
		w = pair
	case k < 10:
		w = workflows.Builtins[g.pick(len(workflows.Builtins))]
	case k < 13:
		// Reviewing roles beside each other or the tester; the first is
		// script challenge_while_fixing's.
		answers := []workflows.PlannerAnswer{
			{Roles: []string{"implementer", "reviewer", "security"}, Parallel: [][]string{{"reviewer", "security"}}},
			{Roles: []string{"implementer", "tester", "reviewer", "security"}, Parallel: [][]string{{"tester", "reviewer", "security"}}},
			{Roles: []string{"architect", "implementer", "tester", "reviewer"}, Parallel: [][]string{{"tester", "reviewer"}}},
			{Roles: []string{"implementer", "tester", "reviewer"}, Parallel: [][]string{{"tester", "reviewer"}}},
			{Roles: []string{"debugger", "reviewer", "tester", "browser-validator"}, Parallel: [][]string{{"reviewer", "tester", "browser-validator"}}},
			{Roles: []string{"interviewer", "migrator", "security", "tester", "documenter"}, Parallel: [][]string{{"security", "tester"}}},
		}
		a := answers[g.pick(len(answers))]
		a.Reasoning = "drawn"
		pw, err := workflows.Planned(a)
		if err != nil {
			panic(err)
		}
		w = pw
	case k < 15:
		pool := slices.Clone(workflows.Roles)
		g.r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		roles := pool[:1+g.pick(5)]
		var par [][]string
		if len(roles) >= 3 && g.chance(0.5) {
			i := g.pick(len(roles) - 1)
			par = [][]string{{roles[i], roles[i+1]}}
		}
		w = classic // the planner refuses some draws
		if pw, err := workflows.Planned(workflows.PlannerAnswer{Roles: roles, Parallel: par, Reasoning: "drawn"}); err == nil {
			w = pw
		}
	default:
		w = workflows.Workflow{Name: "custom"}
		w.Steps = append(w.Steps, workflows.Step{Role: oneOf(g, workflows.RoleImplementer, workflows.RoleDebugger, workflows.RoleMigrator)})
		w.Steps = append(w.Steps, workflows.Step{Type: workflows.StepBuild, OnFailure: oneOf(g, "", workflows.RoleImplementer, workflows.RoleDebugger, workflows.RoleDocumenter)})
		w.Steps = append(w.Steps, workflows.Step{Role: workflows.RoleTester, OnFailure: oneOf(g, "", workflows.RoleDebugger, workflows.RoleComb)})
		w.Steps = append(w.Steps, workflows.Step{Role: workflows.RoleReviewer, After: []string{workflows.StepBuild}})
		if g.chance(0.5) {
			w.Steps = append(w.Steps, workflows.Step{Role: workflows.RoleSecurity, After: []string{workflows.StepBuild}})
		}
		if g.chance(0.5) {
			w.Steps = append(w.Steps, workflows.Step{Role: workflows.RoleBrowserValidator, After: []string{workflows.RoleTester}, Condition: workflows.CondHasFrontend})
		}
		w.Steps = append(w.Steps, workflows.Step{Type: workflows.StepFixBlocking})
		w.Steps = append(w.Steps, workflows.Step{Role: workflows.RoleDocumenter, Name: "docs-2"})
	}
	// A deep copy (the built-ins are shared), then a few steps varied.
	w.Steps = slices.Clone(w.Steps)
	for i := range w.Steps {
		s := &w.Steps[i]
		s.After = slices.Clone(s.After)
		if s.Required != nil {
			s.Required = new(*s.Required)
		}
		if !g.chance(0.5) {
			continue
		}
		switch g.pick(8) {
		case 0:
			s.Checkpoint = true
		case 1:
			s.Required = new(false)
		case 2:
			s.Required = new(true)
		case 3:
			s.Task = "the step's task " + strconv.Itoa(i)
		case 4:
			if s.Type == "" {
				s.Prompt = "variant-" + s.Role
			}
		case 5:
			if s.Type == workflows.StepBuild || s.Role == workflows.RoleTester {
				s.OnFailure = oneOf(g, "", workflows.RoleImplementer, workflows.RoleDebugger, workflows.RoleComb)
			}
		case 6:
			s.Condition = oneOf(g, workflows.CondHasFrontend, workflows.CondHasTests)
		}
	}
	w.FixLoops = oneOf(g, 0, 0, 1, 2, 3)
	return w
}

// spec draws a run's spec: its workflow, facts, budget, loop guard,
// routing, limits and delivery, and now and then older or newer rules or
// a step of no role (refused).
func (g *deepGen) spec() *roleplan.Spec {
	s := &roleplan.Spec{Objective: "the objective", Workflow: g.workflow(), Rules: roleplan.Rules}
	s.AutoAnswer = g.chance(0.3)
	s.NoInterview = g.chance(0.3)
	s.Follow = g.chance(0.35)
	if g.chance(0.3) {
		s.PhaseDir = ".hive/phases/p1"
	}
	if g.chance(0.15) {
		s.Rules = g.pick(4)
	}
	if g.chance(0.02) {
		s.Rules = roleplan.Rules + 1
	}
	s.OnLimit = oneOf(g, work.OnLimit(""), work.OnLimitWait, work.OnLimitFallback, work.OnLimitFallback, work.OnLimitStop)
	if g.chance(0.6) {
		s.Facts = map[string]bool{}
		if g.chance(0.8) {
			s.Facts[workflows.CondHasFrontend] = g.chance(0.5)
		}
		if g.chance(0.8) {
			s.Facts[workflows.CondHasTests] = g.chance(0.5)
		}
	}
	if g.chance(0.55) {
		b := &s.Budget
		if g.chance(0.8) {
			b.USD = float64(g.pick(500)+20) / 100
		}
		if g.chance(0.2) {
			b.Tokens = int64(g.pick(40000) + 2000)
		}
		if g.chance(0.4) {
			b.Roles = map[string]float64{}
			for range 1 + g.pick(3) {
				b.Roles[oneOf(g, workflows.Roles...)] = float64(g.pick(200)+5) / 100
			}
		}
		if g.chance(0.5) {
			b.Estimates = map[string][]float64{}
			for range 1 + g.pick(4) {
				var est []float64
				for range 1 + g.pick(3) {
					est = append(est, float64(g.pick(150)+1)/100)
				}
				slices.Sort(est)
				slices.Reverse(est)
				b.Estimates[oneOf(g, workflows.Roles...)] = est
			}
		}
	}
	if g.chance(0.3) {
		s.Guard = work.LoopGuard{WarnRepeat: 1 + g.pick(2), StopRepeat: 3 + g.pick(2), MaxCalls: 4 + g.pick(8)}
	}
	if g.chance(0.45) {
		s.Routing = roleplan.Routing{Evaluate: g.chance(0.8), Floor: oneOf(g, 0, 0, 40, 70, 90), Quick: g.chance(0.4)}
		for _, r := range []string{workflows.RoleReviewer, workflows.RoleDocumenter, workflows.RoleSecurity, workflows.RoleComb, workflows.RoleTester} {
			if g.chance(0.4) {
				s.Routing.Proven = append(s.Routing.Proven, r)
			}
		}
	}
	if g.chance(0.2) {
		s.Base, s.Branch, s.Publish, s.Closes = "abc123", "hive/x/y", oneOf(g, "", "push", "pr"), "Closes acme/svc#3"
		s.NoMerge, s.AllowDirty, s.Agent, s.CheckpointWait, s.Remote = g.chance(0.5), g.chance(0.5), oneOf(g, "", "codex"), "10m0s", "origin"
		s.Tools = []string{"rg", "jq"}
		s.Context = []roleplan.ContextFile{{Name: "notes.md", Text: "be careful"}}
	}
	if g.chance(0.05) {
		s.Workflow.Steps = append(s.Workflow.Steps, workflows.Step{Role: "nobody"})
	}
	return s
}

// next draws the next event from the state: mostly one of a job at work
// or an answer to the open checkpoint; now and then a resume, a wake, the
// end of a limit's wait, or noise.
func (g *deepGen) next(s roleplan.Snapshot) roleplan.Event {
	var active []roleplan.Job
	for _, j := range s.Jobs {
		if j.State == roleplan.Running || j.State == roleplan.Checking {
			active = append(active, j)
		}
	}
	switch {
	case g.chance(0.05):
		return g.noise(s)
	case g.chance(0.03):
		return roleplan.Event{Type: roleplan.EvResumed, Wait: g.wait()}
	case s.Limit != nil && g.chance(0.3):
		if g.chance(0.7) {
			g.clock = s.Limit.Until.Add(time.Duration(g.pick(3)) * time.Second)
			if g.chance(0.2) {
				g.clock = s.Limit.Until.Add(-time.Minute) // woken early
			}
			return roleplan.Event{Type: roleplan.EvWake}
		}
		return roleplan.Event{Type: roleplan.EvAnswer, Job: roleplan.LimitJob, Text: oneOf(g, "resume-now", "resume-now", "later")}
	case g.chance(0.02):
		return roleplan.Event{Type: roleplan.EvWake}
	case s.Open != nil && (len(active) == 0 || g.chance(0.5) && (!g.slow || g.chance(0.2))):
		return g.answer(s)
	case len(active) == 0:
		return g.noise(s)
	}
	j := active[g.pick(len(active))]
	if j.Role == g.laggard && len(active) > 1 && g.chance(0.85) {
		return g.next(s) // another job's turn
	}
	var ev roleplan.Event
	switch {
	case j.State == roleplan.Running && j.Phase:
		ev = g.phase(j)
	case j.State == roleplan.Running && j.Type == "":
		ev = g.running(s, j)
	case j.State == roleplan.Checking:
		ev = g.checking(s, j)
	default:
		ev = g.noise(s)
	}
	// Now and then the usage of another job's agent comes first.
	if g.chance(0.05) && ev.Type != roleplan.EvUsage {
		for _, o := range s.Jobs {
			if o.Attempts > 0 && o.Type == "" {
				k := deepKey(o.ID, o.Attempts)
				g.cost[k] += 0.3
				return roleplan.Event{Type: roleplan.EvUsage, Job: o.ID, Attempt: o.Attempts, Spend: work.Spend{OutputTokens: 50, CostUSD: g.cost[k]}}
			}
		}
	}
	return ev
}

// answer draws an answer to the open checkpoint: mostly one it offers,
// some it refuses; an abort, a quit or a stop rarely (most humans go on).
func (g *deepGen) answer(s roleplan.Snapshot) roleplan.Event {
	cp := s.Open
	ev := roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: cp.ID}
	if g.chance(0.03) {
		ev.Checkpoint = cp.ID + oneOf(g, -1, 1)
	}
	var text string
	switch cp.Kind {
	case roleplan.KindBudget:
		switch g.pick(7) {
		case 0:
			text = "raise"
		case 1, 2:
			text = fmt.Sprintf("raise %.2f", cp.Spent+0.2+g.r.Float64()*3)
		case 3:
			text = fmt.Sprintf("$%.2f", cp.Spent+1)
		case 4:
			text = fmt.Sprintf("raise %.2f", cp.Spent*0.5) // refused: under what is spent
		case 5:
			text = oneOf(g, "stop", "abort", "STOP")
		default:
			text = oneOf(g, "more please", "raise x", "")
		}
		if cp.TokenCeiling && g.chance(0.5) {
			text = fmt.Sprintf("raise %d", int(cp.Spent)+5000)
		}
	case roleplan.KindFindings:
		id := "F9"
		if len(cp.Findings) > 0 {
			id = cp.Findings[g.pick(len(cp.Findings))].ID
		}
		text = oneOf(g, "fix", "fix", "view", "accept it is internal", "accept "+id+" it is fine", "accept", "defer", "defer "+id,
			"continue", "quit", "Fix", "whatever", "accept f1 ok")
	case roleplan.KindNeedsInput:
		switch {
		case len(cp.Options) > 0 && g.chance(0.6):
			text = oneOf(g, cp.Options...)
		case g.chance(0.1):
			text = "  "
		default:
			text = oneOf(g, "use postgres", "yes", "no")
		}
	case roleplan.KindReview, roleplan.KindEvaluation:
		text = oneOf(g, "continue", "continue", "details", "reject add tests", "reject", "abort", "retry", "Continue", "details now", "nope")
	default:
		opts := slices.Clone(cp.Options)
		opts = append(opts, opts...)
		opts = append(opts, "RETRY", "maybe")
		text = oneOf(g, opts...)
	}
	if ending := strings.ToLower(strings.TrimSpace(text)); (ending == "abort" || ending == "quit" || ending == "stop") && g.chance(0.85) {
		return g.answer(s)
	}
	if g.chance(0.03) {
		text = " " + text + " "
	}
	ev.Text = text
	return ev
}

// running draws an event of a role's agent at work: mostly the next of
// its life (started, usage, report, exit), now and then any of them, a
// tool call or a limit.
func (g *deepGen) running(s roleplan.Snapshot, j roleplan.Job) roleplan.Event {
	ev := roleplan.Event{Job: j.ID, Attempt: j.Attempts}
	k := deepKey(j.ID, j.Attempts)
	var what string
	switch stage := g.life[k]; {
	case g.chance(0.35):
		what = oneOf(g, "started", "usage", "usage", "tool", "limited", "report", "exited", "exited")
	case stage == 0:
		what = oneOf(g, "started", "started", "usage")
	case stage == 1:
		what = oneOf(g, "usage", "usage", "report", "report", "report", "tool")
	default:
		what = oneOf(g, "exited", "exited", "exited", "usage")
	}
	if what == "limited" && !g.chance(0.3) {
		what = "usage"
	}
	switch what {
	case "started":
		g.pid++
		ev.Type, ev.PID = roleplan.EvAgentStarted, 1000+g.pid
		g.life[k] = max(g.life[k], 1)
	case "usage":
		ev.Type = roleplan.EvUsage
		add := float64(g.pick(60)) / 100
		if g.chance(0.1) {
			add = float64(g.pick(300)) / 100
		}
		g.cost[k] += add
		ev.Spend = work.Spend{InputTokens: int64(g.pick(3000)), OutputTokens: int64(g.pick(1000)), CacheReadTokens: int64(g.pick(100)), CostUSD: g.cost[k], CLICostUSD: 0.01}
		ev.MidTurn = g.chance(0.2)
		ev.Model = oneOf(g, "", "opus")
		if g.chance(0.1) && j.Attempts > 1 {
			ev.Attempt = j.Attempts - 1 // a replaced attempt's late usage
		}
	case "tool":
		ev.Type, ev.Tool, ev.Text = roleplan.EvToolCall, oneOf(g, "Bash", "Read"), "h "+oneOf(g, "ls", "ls", "cat x")
	case "limited":
		ev.Type = roleplan.EvLimited
		l := &work.Limit{Kind: oneOf(g, work.LimitUsage, work.LimitRate, work.LimitOverload, work.LimitAuth), Text: "limit hit", Fallback: g.chance(0.2)}
		if g.chance(0.6) {
			l.Reset = g.clock.Add(time.Duration(1+g.pick(120)) * time.Minute)
		}
		if g.chance(0.3) {
			l.Window = "five_hour"
		}
		ev.Limit = l
	case "report":
		ev.Type = roleplan.EvReport
		ev.Report, ev.Errors, ev.MaxAttempts = g.report(s, j)
		g.life[k] = 2
	case "exited":
		ev.Type = roleplan.EvAgentExited
		ev.ExitCode = oneOf(g, 0, 0, 1, 137)
		ev.Reason = oneOf(g, "", "", "killed")
	}
	return ev
}

// report draws j's HIVE_REPORT: every status; challenges of any job, role
// or none; questions; reviewers' issues of every severity, some
// malformed; now and then a report that breaks the contract.
func (g *deepGen) report(s roleplan.Snapshot, j roleplan.Job) (*work.Report, []string, int) {
	r := &work.Report{Summary: oneOf(g, "", "did the work", "changed  the\nhandler"), Extra: map[string]json.RawMessage{}}
	r.Status = oneOf(g, work.ReportComplete, work.ReportComplete, work.ReportComplete, work.ReportPartial, work.ReportBlocked,
		work.ReportChallenge, work.ReportNeedsInput, "")
	if g.contentious && g.chance(0.5) {
		r.Status = work.ReportChallenge
	}
	if g.chance(0.3) {
		r.Concerns = []string{"concern " + strconv.Itoa(g.pick(3))}
	}
	if g.chance(0.3) {
		r.Files = []string{"a.go", "b.go"}[:1+g.pick(2)]
	}
	switch r.Status {
	case work.ReportChallenge:
		var names []string
		for _, o := range s.Jobs {
			names = append(names, o.ID, o.Role)
		}
		names = append(names, "", "nobody", "the-implementer", j.Role)
		r.ChallengedAgent = oneOf(g, names...)
		if i := slices.IndexFunc(s.Jobs, func(o roleplan.Job) bool { return o.ID == j.ID }); g.contentious && i > 0 && g.chance(0.7) {
			r.ChallengedAgent = s.Jobs[g.pick(i)].Role // someone upstream, most likely to be found
		}
		r.Issue = oneOf(g, "the design is wrong", "missing   validation")
		r.Evidence = oneOf(g, "", "line 3")
		r.Suggestion = oneOf(g, "", "add a check")
	case work.ReportNeedsInput:
		r.Blocker = oneOf(g, "", "which database?", "pick one")
		if g.chance(0.7) {
			r.Options = []string{"postgres", "sqlite", "mysql"}[:1+g.pick(3)]
		}
		r.DefaultChoice = oneOf(g, "", "", "postgres")
		r.CanProceedWithDefault = g.chance(0.5)
	case work.ReportBlocked:
		r.Blocker = oneOf(g, "", "no access to the API")
	}
	if j.Role == workflows.RoleInterviewer && g.chance(0.8) {
		var qs []roleplan.Question
		for i := range g.pick(4) {
			qs = append(qs, roleplan.Question{Question: oneOf(g, "q"+strconv.Itoa(i)+"?", " "), Options: []string{"yes", "no"}, Default: oneOf(g, "", "yes"), Why: "why"})
		}
		r.Extra["questions"], _ = json.Marshal(qs)
	}
	if slices.Contains(workflows.Reviewing, j.Role) && g.chance(0.85) {
		var issues []map[string]any
		for range g.pick(4) {
			issues = append(issues, map[string]any{"severity": oneOf(g, "blocker", "blocker", "high", "medium", "low", "critical", "Blocker "),
				"file": oneOf(g, "", "a.go", "b.go"), "line": oneOf[any](g, 3, 0, -1, "12"), "title": oneOf(g, "sql injection", "no limit", "typo", ""),
				"description": oneOf(g, "", "desc")})
		}
		if issues != nil {
			r.Extra["issues"], _ = json.Marshal(issues)
		}
		if g.chance(0.3) {
			r.Extra["comments"], _ = json.Marshal([]any{"nit: naming", map[string]any{"comment": "consider caching", "severity": oneOf(g, "", "high", "weird")}})
		}
		if g.chance(0.1) {
			r.Extra["findings"], _ = json.Marshal([]any{map[string]any{"title": "old finding", "severity": "blocker"}})
		}
	}
	if g.chance(0.12) {
		return r, []string{"status: missing", "files: not a list"}[:1+g.pick(2)], oneOf(g, 0, 1, 2, 3)
	}
	return r, nil, 0
}

// phase draws the end of the implementers' phase: completed, failed,
// over its allotment, with a challenge of the plans, or cut off by a
// limit; the phase's journal run now and then a new one.
func (g *deepGen) phase(j roleplan.Job) roleplan.Event {
	if g.chance(0.15) {
		l := &work.Limit{Kind: oneOf(g, work.LimitUsage, work.LimitRate, work.LimitAuth), Text: "phase limit"}
		if g.chance(0.5) {
			l.Reset = g.clock.Add(time.Duration(1+g.pick(60)) * time.Minute)
		}
		return roleplan.Event{Type: roleplan.EvLimited, Job: j.ID, Attempt: j.Attempts, Limit: l}
	}
	ev := roleplan.Event{Type: roleplan.EvPhaseDone, Job: oneOf(g, "", j.ID), Attempt: oneOf(g, 0, j.Attempts, j.Attempts)}
	if g.chance(0.5) {
		g.prun = oneOf(g, g.prun, g.prun+1)
	}
	ev.PhaseRun = g.prun
	ev.Spend = work.Spend{InputTokens: int64(g.pick(50000)), CostUSD: float64(g.pick(300)) / 100}
	ev.Fallback = g.chance(0.1)
	if g.chance(0.5) {
		ev.Plans = []roleplan.PlanRun{{ID: "p1", State: oneOf(g, phase.PlanState("completed"), "failed"), Started: g.clock, Spend: work.Spend{CostUSD: 0.1}}}
	}
	switch g.pick(6) {
	case 0, 1, 2:
		ev.OK = true
	case 3:
		ev.Reason = oneOf(g, "", "plan p2 failed")
	case 4:
		ev.OverBudget = true
		ev.Reason = oneOf(g, "", "budget reached: its allotment")
	case 5:
		ev.Report = &work.Report{Status: work.ReportChallenge, ChallengedAgent: oneOf(g, "architect", "", "reviewer"), Issue: "the plans conflict"}
	}
	return ev
}

// checking draws what hive's own check of j found: its evaluation, its
// build, the architect's lint, the tests; or the pull request's event.
func (g *deepGen) checking(s roleplan.Snapshot, j roleplan.Job) roleplan.Event {
	ev := roleplan.Event{Job: j.ID, Attempt: oneOf(g, 0, j.Attempts, j.Attempts)}
	switch {
	case j.Evaluating:
		ev.Type, ev.Evaluation = roleplan.EvEvaluated, g.evaluation(j)
	case j.Type == roleplan.StepFollow:
		return g.follow(s, j)
	case j.Type == workflows.StepBuild:
		ev.Type = roleplan.EvBuilt
		ev.Tests = &roleplan.Tests{Command: "go build ./..."}
		switch g.pick(6) {
		case 0:
			ev.Tests.ExitCode, ev.Tests.Output = 1, "main.go:3: undefined: x"
		case 1:
			ev.Tests.ExitCode, ev.Tests.Output = 1, "main.go:9: syntax"
		case 2:
			ev.Tests.ExitCode, ev.Tests.Unrunnable, ev.Tests.Output = 127, true, "exec: go: not found"
		case 3:
			ev.Tests = &roleplan.Tests{None: true, Output: "no build command found"}
		}
		ev.Changed = oneOf(g, 0, 3, 11, 25)
	case j.Role == workflows.RoleArchitect:
		ev.Type = roleplan.EvLinted
		if g.chance(0.4) {
			ev.Errors = []string{"plan p1: line 3: no task", "plan p2: line 9: cycle"}[:1+g.pick(2)]
		}
		if g.chance(0.5) {
			ev.Job = ""
		}
	default:
		ev.Type = roleplan.EvTestsRan
		if g.chance(0.3) {
			ev.Job = ""
		}
		ev.Tests = &roleplan.Tests{Command: "go test ./...", Passed: 3}
		switch g.pick(6) {
		case 0, 1:
			ev.Tests.ExitCode, ev.Tests.Failed, ev.Tests.Failing = 1, g.pick(3), []string{"TestHealth", "TestA"}[:g.pick(3)%2+g.pick(2)]
			ev.Tests.Output = "--- FAIL"
		case 2:
			ev.Tests.ExitCode, ev.Tests.Unrunnable, ev.Tests.Output = 127, true, "sh: pnpm: not found"
		case 3:
			ev.Tests = &roleplan.Tests{None: true, Output: "no tests found"}
		}
	}
	return ev
}

func (g *deepGen) evaluation(j roleplan.Job) *roleplan.Evaluation {
	e := &roleplan.Evaluation{Role: j.Role, Produced: oneOf(g, "", "3 files changed")}
	if g.chance(0.6) {
		n := g.pick(confidence.MaxPoints + 1)
		e.Checks = &confidence.Score{Role: j.Role, Points: n, Max: confidence.MaxPoints,
			Checks: []confidence.Check{{Name: "lint", OK: n > 40, Points: n, Max: confidence.MaxPoints, Detail: "d"}}}
	}
	for _, a := range roleplan.Aspects {
		v := roleplan.Verdict{Aspect: a, Verdict: oneOf(g, "ok", "ok", "ok", "warn", "block", ""), Notes: []string{a + " note"}}
		if v.Verdict == "" {
			v.Error, v.Notes = "timed out", nil
		}
		e.Verdicts = append(e.Verdicts, v)
	}
	if g.chance(0.3) {
		e.Spend = work.Spend{InputTokens: 100, CostUSD: float64(g.pick(10)) / 100}
	}
	e.SelfReported = oneOf(g, 0, 0.8)
	return e
}

// follow draws what the followed pull request's command found, mostly
// for the stage the run is at: delivered or not; merged, closed, or open
// with CI failures (on its head or a stale one) and review threads; a fix
// pushed or refused.
func (g *deepGen) follow(s roleplan.Snapshot, j roleplan.Job) roleplan.Event {
	stage := roleplan.StageDeliver
	if s.Follow != nil {
		stage = s.Follow.Stage
	}
	if g.chance(0.1) {
		stage = oneOf(g, roleplan.StageDeliver, roleplan.StageWatch, roleplan.StagePush)
	}
	head := func() string { return "h" + strconv.Itoa(g.head) }
	ev := roleplan.Event{Job: oneOf(g, "", j.ID), Attempt: oneOf(g, 0, j.Attempts)}
	switch stage {
	case roleplan.StageDeliver:
		ev.Type = roleplan.EvDelivered
		ev.Notes = []string{"pushed hive/x"}
		if g.chance(0.8) {
			g.head++
			ev.OK = true
			ev.PR = &roleplan.PullRequest{Number: 9, URL: "https://github.test/acme/svc/pull/9", Branch: "hive/quick/x", State: roleplan.PROpen, Head: head()}
		} else {
			ev.Reason = oneOf(g, "", "gh: not logged in")
		}
	case roleplan.StageWatch:
		ev.Type = roleplan.EvPullRequest
		cur := head()
		ev.PR = &roleplan.PullRequest{Number: 9, State: oneOf(g, roleplan.PROpen, roleplan.PROpen, roleplan.PROpen, roleplan.PROpen, roleplan.PRMerged, roleplan.PRClosed), Head: cur}
		if g.chance(0.6) {
			ev.CI = append(ev.CI, roleplan.CIFailure{Workflow: "ci", Head: oneOf(g, cur, cur, "h0"), URL: oneOf(g, "", "https://ci/1"), Log: "--- FAIL: TestX"})
		}
		if g.chance(0.6) {
			for i := range 1 + g.pick(2) {
				th := roleplan.Thread{ID: "T" + strconv.Itoa(i), Path: oneOf(g, "", "a.go"), Line: oneOf(g, 0, 4), Resolved: g.chance(0.15), Outdated: g.chance(0.15)}
				for c := range 1 + g.pick(3) {
					th.Comments = append(th.Comments, roleplan.ThreadComment{Author: oneOf(g, "", "ana"), Body: "comment " + strconv.Itoa(c+1)})
				}
				ev.Threads = append(ev.Threads, th)
			}
		}
	default:
		ev.Type = roleplan.EvPushed
		if g.chance(0.8) {
			g.head++
			ev.OK = true
			ev.PR = &roleplan.PullRequest{Number: 9, Head: head()}
		} else {
			ev.Reason = oneOf(g, "", "rejected: non-fast-forward")
			if g.chance(0.5) {
				ev.PR = &roleplan.PullRequest{Number: 9, Head: head()}
			}
		}
	}
	return ev
}

// noise draws an event of any type for any job, attempt or checkpoint,
// whether it fits the state or not (a note, a bogus type, a second start).
func (g *deepGen) noise(s roleplan.Snapshot) roleplan.Event {
	var ids []string
	for _, j := range s.Jobs {
		ids = append(ids, j.ID)
	}
	ids = append(ids, "nobody", "", roleplan.FollowJob, roleplan.LimitJob)
	ev := roleplan.Event{Type: oneOf(g, roleplan.EvStarted, roleplan.EvAgentStarted, roleplan.EvReport, roleplan.EvAgentExited, roleplan.EvUsage,
		roleplan.EvToolCall, roleplan.EvLimited, roleplan.EvWake, roleplan.EvLinted, roleplan.EvPhaseDone, roleplan.EvTestsRan, roleplan.EvBuilt,
		roleplan.EvAnswer, roleplan.EvEvaluated, roleplan.EvDelivered, roleplan.EvPullRequest, roleplan.EvPushed, roleplan.EvNote, "bogus", roleplan.EvResumed),
		Job: oneOf(g, ids...), Attempt: oneOf(g, 0, 1, 2, 3)}
	switch ev.Type {
	case roleplan.EvStarted:
		if g.chance(0.5) {
			ev.Spec = g.spec()
		}
	case roleplan.EvReport:
		if g.chance(0.7) {
			ev.Report = &work.Report{Status: work.ReportComplete}
		}
	case roleplan.EvUsage:
		ev.Spend = work.Spend{InputTokens: 10, CostUSD: 0.05}
	case roleplan.EvLimited:
		if g.chance(0.7) {
			ev.Limit = &work.Limit{Kind: work.LimitRate}
		}
	case roleplan.EvTestsRan, roleplan.EvBuilt:
		if g.chance(0.7) {
			ev.Tests = &roleplan.Tests{Command: "x", ExitCode: g.pick(2)}
		}
	case roleplan.EvAnswer:
		ev.Checkpoint = g.pick(5)
		ev.Text = oneOf(g, "retry", "continue", "resume-now", "")
	case roleplan.EvEvaluated:
		if g.chance(0.5) {
			ev.Evaluation = &roleplan.Evaluation{Role: "x", Verdicts: []roleplan.Verdict{{Aspect: "risk", Verdict: "ok"}}}
		}
	case roleplan.EvPullRequest, roleplan.EvDelivered, roleplan.EvPushed:
		ev.OK = g.chance(0.5)
		if g.chance(0.5) {
			ev.PR = &roleplan.PullRequest{Number: 1, Head: "hz", State: roleplan.PROpen}
		}
	case roleplan.EvPhaseDone:
		ev.OK = g.chance(0.5)
	}
	return ev
}
