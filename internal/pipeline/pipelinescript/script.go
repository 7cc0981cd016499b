package pipelinescript

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Script is one script's reading state: its clock, a second on at every
// directive (and more with after=DUR), from 2026-01-01 00:00 UTC.
type Script struct {
	Clock time.Time
}

// New starts reading a script.
func New() *Script { return &Script{Clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

// Read reads directive d, with snap the machine's state before it: the
// event it gives the machine, stamped with the script's clock, or nil for
// a look at the state (State prints it).
func (s *Script) Read(t *testing.T, d *datadriven.TestData, snap roleplan.Snapshot) *roleplan.Event {
	t.Helper()
	s.Clock = s.Clock.Add(time.Second)
	if a, ok := d.Arg("after"); ok {
		dur, err := time.ParseDuration(a.Vals[0])
		if err != nil {
			t.Fatalf("%s: after=%s: %v", d.Pos, a.Vals[0], err)
		}
		s.Clock = s.Clock.Add(dur)
	}
	if d.Cmd == "state" {
		return nil
	}
	if d.Cmd != "start" && !snap.Started {
		t.Fatalf("%s: start first", d.Pos)
	}
	ev := event(t, d, snap)
	ev.Time = s.Clock
	if ev.Type == roleplan.EvLimited && ev.Limit != nil && !ev.Limit.Reset.IsZero() {
		ev.Limit.Reset = s.Clock.Add(ev.Limit.Reset.Sub(time.Time{}))
	}
	return &ev
}

// Render prints the machine's answer to one event as the scripts expect it.
func Render(cmds []roleplan.Command, err error) string {
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	for _, c := range cmds {
		b.WriteString(render(c))
		b.WriteByte('\n')
	}
	return b.String()
}

func event(t *testing.T, d *datadriven.TestData, snap roleplan.Snapshot) roleplan.Event {
	str := func(key string) string {
		if a, ok := d.Arg(key); ok {
			return strings.Join(a.Vals, ",")
		}
		return ""
	}
	list := func(key string) []string {
		if a, ok := d.Arg(key); ok {
			return a.Vals
		}
		return nil
	}
	num := func(key string) int {
		if s := str(key); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %s=%s: %v", d.Pos, key, s, err)
			}
			return n
		}
		return 0
	}
	job := ""
	if len(d.CmdArgs) > 0 && d.CmdArgs[0].Vals == nil {
		job = d.CmdArgs[0].Key
	}
	attempt := 0
	for _, j := range snap.Jobs {
		if j.ID == job {
			attempt = j.Attempts
		}
	}
	ev := roleplan.Event{Job: job, Attempt: attempt}
	switch d.Cmd {
	case "start":
		wf := Classic
		if name := str("workflow"); name != "" {
			var ok bool
			if wf, ok = workflows.Builtin(name); name == Pair.Name {
				wf, ok = Pair, true
			}
			if !ok {
				t.Fatalf("%s: no workflow %s", d.Pos, name)
			}
		}
		if roles := list("planned"); len(roles) > 0 {
			var err error
			var parallel [][]string
			if p := list("parallel"); len(p) > 0 {
				parallel = [][]string{p}
			}
			if wf, err = workflows.Planned(workflows.PlannerAnswer{Roles: roles, Parallel: parallel, Reasoning: "the script's"}); err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
		}
		wf.FixLoops = num("fix")
		rules := roleplan.Rules // rules=N: a run of an older hive
		if d.HasArg("rules") {
			rules = num("rules")
		}
		ev = roleplan.Event{Type: roleplan.EvStarted, Spec: &roleplan.Spec{Objective: "the objective", Workflow: wf, AutoAnswer: d.HasArg("yes"), Budget: budgetArgs(t, d), Rules: rules,
			Follow:      d.HasArg("follow"),
			NoInterview: d.HasArg("nointerview"), OnLimit: work.OnLimit(str("onlimit")),
			Routing: roleplan.Routing{Evaluate: d.HasArg("evaluate"), Floor: num("floor"), Proven: list("proven"), Quick: d.HasArg("quick")}}}
		for _, f := range list("facts") {
			k, v, _ := strings.Cut(f, ":")
			if ev.Spec.Facts == nil {
				ev.Spec.Facts = map[string]bool{}
			}
			ev.Spec.Facts[k] = v == "true"
		}
	case "started":
		ev.Type, ev.PID = roleplan.EvAgentStarted, num("pid")
	case "report":
		ev.Type = roleplan.EvReport
		ev.Report = &work.Report{Status: str("status"), ChallengedAgent: str("to"), Issue: str("issue"), Blocker: str("issue"),
			Options: list("options"), DefaultChoice: str("default"), CanProceedWithDefault: d.HasArg("proceed"), Concerns: list("concerns"),
			Extra: map[string]json.RawMessage{}}
		ev.Errors, ev.MaxAttempts = list("errors"), num("attempts")
		var issues []map[string]any
		for _, f := range list("findings") {
			p := strings.SplitN(f, ":", 4)
			line, _ := strconv.Atoi(p[2])
			issues = append(issues, map[string]any{"severity": p[0], "file": p[1], "line": line, "title": p[3]})
		}
		if issues != nil {
			ev.Report.Extra["issues"], _ = json.Marshal(issues)
		}
		if c := list("comments"); c != nil {
			// An approval with comments, as models write one: remarks
			// beside the issues, a string each.
			ev.Report.Extra["comments"], _ = json.Marshal(c)
		}
		var qs []roleplan.Question
		for _, q := range list("questions") {
			qs = append(qs, roleplan.Question{Question: q, Options: []string{"yes", "no"}, Default: "yes"})
		}
		if qs != nil {
			ev.Report.Extra["questions"], _ = json.Marshal(qs)
		}
	case "exited":
		ev.Type, ev.ExitCode = roleplan.EvAgentExited, num("code")
	case "usage":
		cost, _ := strconv.ParseFloat(str("cost"), 64)
		ev.Type, ev.Spend = roleplan.EvUsage, work.Spend{InputTokens: int64(num("in")), OutputTokens: int64(num("out")), CostUSD: cost}
		ev.MidTurn = d.HasArg("midturn")
		if n := num("attempt"); n > 0 {
			ev.Attempt = n
		}
	case "tool":
		ev.Type, ev.Tool, ev.Text = roleplan.EvToolCall, str("name"), "h "+str("input")
	case "linted":
		ev = roleplan.Event{Type: roleplan.EvLinted, Errors: list("errors")}
	case "phase":
		cost, _ := strconv.ParseFloat(str("cost"), 64)
		ev = roleplan.Event{Type: roleplan.EvPhaseDone, OK: d.HasArg("ok"), Reason: str("reason"), OverBudget: d.HasArg("overbudget"), Spend: work.Spend{CostUSD: cost},
			Fallback: d.HasArg("fallback")}
		if to := str("to"); to != "" {
			ev.Report = &work.Report{Status: work.ReportChallenge, ChallengedAgent: to, Issue: str("issue")}
		}
	case "tests":
		ev = roleplan.Event{Type: roleplan.EvTestsRan, Job: str("job"), Tests: &roleplan.Tests{Command: "go test ./...", Passed: 3}}
		if d.HasArg("unrunnable") {
			ev.Tests.ExitCode, ev.Tests.Unrunnable, ev.Tests.Output = 127, true, "sh: 1: pnpm: not found"
		}
		if d.HasArg("fail") {
			ev.Tests.ExitCode, ev.Tests.Failed, ev.Tests.Failing = 1, max(num("failed"), 1), []string{"TestHealth"}
		}
		if d.HasArg("none") {
			// What hive journals for a project without tests: exit 0,
			// nothing counted.
			ev.Tests = &roleplan.Tests{None: true, Output: "no tests found"}
		}
	case "built":
		ev = roleplan.Event{Type: roleplan.EvBuilt, Job: job, Attempt: attempt, Tests: &roleplan.Tests{Command: "go build ./..."}, Changed: num("changed")}
		if d.HasArg("unrunnable") {
			ev.Tests.ExitCode, ev.Tests.Unrunnable, ev.Tests.Output = 127, true, "exec: go: not found"
		}
		if d.HasArg("fail") {
			ev.Tests.ExitCode, ev.Tests.Output = 1, "main.go:3: undefined: x"
		}
		if d.HasArg("none") {
			ev.Tests = &roleplan.Tests{None: true, Output: "no build command found"}
		}
	case "evaluated":
		// evaluated JOB checks=N verdicts=ok,warn,block: the verdicts of
		// completeness, coherence and risk, in that order.
		e := &roleplan.Evaluation{Role: job, Produced: strings.Join(list("produced"), ", ")}
		if d.HasArg("checks") {
			n := num("checks")
			e.Checks = &confidence.Score{Role: job, Points: n, Max: confidence.MaxPoints,
				Checks: []confidence.Check{{Name: "hive's checks", OK: n == confidence.MaxPoints, Points: n, Max: confidence.MaxPoints, Detail: "as the script says"}}}
		}
		for i, v := range strings.Split(str("verdicts"), ",") {
			e.Verdicts = append(e.Verdicts, roleplan.Verdict{Aspect: roleplan.Aspects[i], Verdict: v, Notes: []string{roleplan.Aspects[i] + " says " + v}})
		}
		ev.Type, ev.Evaluation = roleplan.EvEvaluated, e
	case "answer":
		ev = roleplan.Event{Type: roleplan.EvAnswer, Text: str("text"), Job: job}
		if snap.Open != nil {
			ev.Checkpoint = snap.Open.ID
		}
	case "delivered":
		ev = roleplan.Event{Type: roleplan.EvDelivered, OK: d.HasArg("ok"), Reason: str("reason"), Notes: []string{"pushed"}}
		if ev.OK {
			ev.PR = &roleplan.PullRequest{Number: 9, URL: "https://github.test/acme/svc/pull/9", Branch: "hive/quick/x", State: roleplan.PROpen, Head: "h1"}
		}
	case "pr":
		state := map[bool]string{true: roleplan.PRMerged}[d.HasArg("merged")]
		if d.HasArg("closed") {
			state = roleplan.PRClosed
		}
		ev = roleplan.Event{Type: roleplan.EvPullRequest, PR: &roleplan.PullRequest{Number: 9, State: cmp.Or(state, roleplan.PROpen), Head: str("head")}}
		for _, c := range list("ci") {
			wf, head, _ := strings.Cut(c, "@")
			ev.CI = append(ev.CI, roleplan.CIFailure{Workflow: wf, Head: head, Log: "--- FAIL: TestHealth (0.00s)"})
		}
		for _, th := range list("threads") {
			p := strings.Split(th, ":")
			line, _ := strconv.Atoi(p[2])
			n, _ := strconv.Atoi(p[3])
			x := roleplan.Thread{ID: p[0], Path: p[1], Line: line, Resolved: len(p) > 4 && p[4] == "resolved", Outdated: len(p) > 4 && p[4] == "outdated"}
			for i := range n {
				x.Comments = append(x.Comments, roleplan.ThreadComment{Author: "ana", Body: fmt.Sprintf("comment %d", i+1)})
			}
			ev.Threads = append(ev.Threads, x)
		}
	case "pushed":
		ev = roleplan.Event{Type: roleplan.EvPushed, OK: d.HasArg("ok"), Reason: str("reason"), PR: &roleplan.PullRequest{Number: 9, Head: str("head")}}
	case "resume":
		ev = roleplan.Event{Type: roleplan.EvResumed}
	case "wake":
		ev = roleplan.Event{Type: roleplan.EvWake}
	case "limited":
		ev.Type, ev.Limit = roleplan.EvLimited, &work.Limit{Kind: work.LimitKind(str("kind")), Text: str("text"), Fallback: d.HasArg("fallback")}
		if r := str("reset"); r != "" {
			dur, err := time.ParseDuration(r)
			if err != nil {
				t.Fatalf("%s: reset=%s: %v", d.Pos, r, err)
			}
			ev.Limit.Reset = time.Time{}.Add(dur) // from the clock: TestScripts adds it
		}
	default:
		t.Fatalf("%s: unknown directive %s", d.Pos, d.Cmd)
	}
	if w := str("wait"); w != "" && (ev.Type == roleplan.EvStarted || ev.Type == roleplan.EvResumed) {
		dur, err := time.ParseDuration(w) // wait=DUR: how long the process waits for an answer
		if err != nil {
			t.Fatalf("%s: wait=%s: %v", d.Pos, w, err)
		}
		ev.Wait = &dur
	}
	return ev
}

// Classic is the full workflow as it was before the shell Hive's roles:
// the scripts of challenges and fix loops run on it.
var Classic = workflows.Workflow{Name: "classic", Steps: []workflows.Step{{Role: workflows.RoleArchitect}, {Role: workflows.RoleImplementer}, {Role: workflows.RoleComb},
	{Role: workflows.RoleTester}, {Role: workflows.RoleReviewer}, {Role: workflows.RoleDocumenter}}}

// Pair is the quick workflow as it was before its build step.
var Pair = workflows.Workflow{Name: "pair", Steps: []workflows.Step{{Role: workflows.RoleImplementer}, {Role: workflows.RoleTester}}}

// budgetArgs reads a start's budget.
func budgetArgs(t *testing.T, d *datadriven.TestData) roleplan.Budget {
	var b roleplan.Budget
	float := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", d.Pos, s, err)
		}
		return f
	}
	if a, ok := d.Arg("usd"); ok {
		b.USD = float(a.Vals[0])
	}
	if a, ok := d.Arg("tokens"); ok {
		b.Tokens = int64(float(a.Vals[0]))
	}
	if a, ok := d.Arg("roles"); ok {
		b.Roles = map[string]float64{}
		for _, v := range a.Vals {
			role, usd, _ := strings.Cut(v, ":")
			b.Roles[role] = float(usd)
		}
	}
	if a, ok := d.Arg("est"); ok {
		b.Estimates = map[string][]float64{}
		for _, v := range a.Vals {
			role, rungs, _ := strings.Cut(v, ":")
			for _, r := range strings.Split(rungs, "/") {
				b.Estimates[role] = append(b.Estimates[role], float(r))
			}
		}
	}
	return b
}

func render(c roleplan.Command) string {
	var b strings.Builder
	b.WriteString(string(c.Type))
	if c.Job != "" {
		fmt.Fprintf(&b, " %s", c.Job)
	}
	if c.Role != "" && c.Role != c.Job {
		fmt.Fprintf(&b, " role=%s", c.Role)
	}
	if c.Attempt > 0 {
		fmt.Fprintf(&b, " attempt=%d", c.Attempt)
	}
	if c.PID > 0 {
		fmt.Fprintf(&b, " pid=%d", c.PID)
	}
	if c.Outcome != "" {
		fmt.Fprintf(&b, " outcome=%s", c.Outcome)
	}
	if c.Interrupt {
		b.WriteString(" interrupt")
	}
	if c.Text != "" {
		fmt.Fprintf(&b, " %q", c.Text)
	}
	if c.BudgetUSD > 0 {
		fmt.Fprintf(&b, " budget=$%.2f", c.BudgetUSD)
	}
	if !c.At.IsZero() {
		fmt.Fprintf(&b, " at=%s", c.At.UTC().Format("15:04:05"))
	}
	if c.BudgetTokens > 0 {
		fmt.Fprintf(&b, " budget-tokens=%d", c.BudgetTokens)
	}
	if c.Fallback {
		b.WriteString(" fallback")
	}
	if c.Rung > 0 {
		fmt.Fprintf(&b, " rung=%d", c.Rung)
	}
	if x := c.Context; x != nil {
		if x.Challenge != nil {
			fmt.Fprintf(&b, " challenge-from=%s", x.Challenge.From)
		}
		if x.Rechecking != nil {
			fmt.Fprintf(&b, " rechecking=%s", x.Rechecking.To)
		}
		if x.Overruled != nil {
			b.WriteString(" overruled")
		}
		if x.Fix != nil {
			fmt.Fprintf(&b, " fix=%s", strings.Join(x.Fix.Failing, ","))
		}
		if len(x.ContractErrors) > 0 {
			fmt.Fprintf(&b, " contract-errors=%q", x.ContractErrors)
		}
		if len(x.LintErrors) > 0 {
			fmt.Fprintf(&b, " lint-errors=%d", len(x.LintErrors))
		}
		for _, dc := range x.Decisions {
			fmt.Fprintf(&b, " decision=%s(%s)", dc.Choice, dc.By)
		}
		if len(x.Warnings) > 0 {
			fmt.Fprintf(&b, " warnings=%q", x.Warnings)
		}
		if x.Retry != "" {
			fmt.Fprintf(&b, " retry=%q", x.Retry)
		}
		if x.Interrupted {
			b.WriteString(" interrupted")
		}
		if x.BuildFailed != nil {
			fmt.Fprintf(&b, " build-failed=%q", x.BuildFailed.Output)
		}
		for _, f := range x.Findings {
			fmt.Fprintf(&b, " finding=%s", f.ID)
		}
		for _, dc := range x.Interview {
			fmt.Fprintf(&b, " interview=%s(%s)", dc.Choice, dc.By)
		}
		for _, v := range x.Evaluation {
			fmt.Fprintf(&b, " evaluation=%s:%s", v.Aspect, v.Verdict)
		}
		if x.Feedback != "" {
			fmt.Fprintf(&b, " feedback=%q", x.Feedback)
		}
		for _, f := range x.CI {
			fmt.Fprintf(&b, " ci=%s@%s", f.Workflow, f.Head)
		}
		for _, th := range x.Review {
			fmt.Fprintf(&b, " review=%s(%s)", th.ID, th.Where())
		}
	}
	if c.PR != nil {
		fmt.Fprintf(&b, " pr=#%d@%s", c.PR.Number, c.PR.Head)
	}
	for _, id := range slices.Sorted(maps.Keys(c.Handled)) {
		fmt.Fprintf(&b, " handled=%s:%d", id, c.Handled[id])
	}
	for _, r := range c.Replies {
		fmt.Fprintf(&b, " reply=%s:%q", r.Thread, r.Text)
	}
	if cp := c.Checkpoint; cp != nil {
		fmt.Fprintf(&b, " #%d %s %q options=%s", cp.ID, cp.Kind, cp.Question, strings.Join(cp.Options, "|"))
		if cp.Default != "" {
			fmt.Fprintf(&b, " default=%s", cp.Default)
		}
		if cp.Previous != nil {
			fmt.Fprintf(&b, " previous=%q", cp.Previous.Issue)
		}
		if cp.Kind == roleplan.KindBudget || cp.Kind == roleplan.KindFindings || cp.Kind == roleplan.KindFollow || cp.Evaluation != nil {
			fmt.Fprintf(&b, " (%s)", cp.Details)
		}
	}
	return b.String()
}

// State prints the machine's state as the scripts' state directive shows it.
func State(s roleplan.Snapshot) string {
	var b strings.Builder
	for _, j := range s.Jobs {
		fmt.Fprintf(&b, "%s: %s attempts=%d", j.ID, j.State, j.Attempts)
		if j.Spend != (work.Spend{}) {
			fmt.Fprintf(&b, " in=%d out=%d cost=%.2f", j.Spend.InputTokens, j.Spend.OutputTokens, j.Spend.CostUSD)
		}
		if j.Evaluation != nil {
			fmt.Fprintf(&b, " confidence=%d", j.Evaluation.Confidence())
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "agenda: %s\n", strings.Join(s.Agenda, " "))
	if w := s.Limit; w != nil {
		fmt.Fprintf(&b, "waiting: %s until %s (since %s, %s)\n", w.Kind, w.Until.UTC().Format("15:04:05"), w.Since.UTC().Format("15:04:05"), w.Job)
	}
	if s.Open != nil {
		fmt.Fprintf(&b, "open: #%d %s on %s\n", s.Open.ID, s.Open.Kind, s.Open.Job)
	}
	for _, f := range s.Findings {
		fmt.Fprintf(&b, "finding: %s\n", roleplan.FindingsText([]roleplan.Finding{f}))
	}
	for _, c := range s.Challenges {
		fmt.Fprintf(&b, "challenge: %s -> %s round %d: %s\n", c.From, c.To, c.Round, c.Issue)
	}
	for _, d := range s.Decisions {
		fmt.Fprintf(&b, "decision: %s %q -> %s (%s)\n", d.Job, d.Question, d.Choice, d.By)
	}
	if s.FixLoops > 0 {
		fmt.Fprintf(&b, "fix loops: %d\n", s.FixLoops)
	}
	if bu := s.Budget; bu.USD > 0 || bu.Tokens > 0 || len(bu.Roles) > 0 {
		fmt.Fprintf(&b, "budget: $%.2f tokens=%d roles=%v spent $%.2f, %d tokens", bu.USD, bu.Tokens, bu.Roles, s.Spent.CostUSD, s.Spent.Tokens())
		if s.Rung > 0 {
			fmt.Fprintf(&b, " rung=%d", s.Rung)
		}
		b.WriteByte('\n')
	}
	if f := s.Follow; f != nil {
		fmt.Fprintf(&b, "follow: %s", f.Stage)
		if f.PR != nil {
			fmt.Fprintf(&b, " #%d %s head=%s", f.PR.Number, f.PR.State, f.PR.Head)
		}
		b.WriteByte('\n')
		for _, r := range f.Rounds {
			fmt.Fprintf(&b, "round %d on %s: ci=%q comments=%q pushed=%s\n", r.N, r.Head, r.CI, r.Threads, r.Pushed)
		}
	}
	if s.Finished {
		fmt.Fprintf(&b, "finished: %s %s\n", s.Outcome, s.Reason)
	}
	return b.String()
}
