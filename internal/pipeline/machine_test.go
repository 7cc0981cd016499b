package pipeline

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/hivectl/hive/internal/engine"
)

// TestScripts runs the scripts in testdata/scripts/: each directive feeds
// one event and prints the commands the machine returned. Regenerate the
// expected output with `go test ./internal/pipeline -run TestScripts -rewrite`.
//
//	start [workflow=full|quick] [yes] [fix=N] [usd=F] [tokens=N] [roles=(role:F,...)] [est=(role:F/F/F,...)]
//	                                             a run of "the objective", with a budget: the run's
//	                                             ceilings, the roles' own, a role's estimates per rung
//	started JOB [pid=N]                          its agent started (current attempt)
//	report JOB status=S [to=ROLE] [issue=(...)] [options=(a,b)] [default=X] [proceed] [concerns=(a,b)]
//	exited JOB [code=N]                          its agent ended
//	usage JOB in=N out=N cost=F [attempt=N]      a turn's tokens, the session's cost so far
//	tool JOB name=T input=I                      its agent called tool T (I stands for the fingerprint)
//	linted [errors=(a,b)]                        the architect's plans linted
//	phase ok|fail [reason=(...)] [to=ROLE issue=(...)] [overbudget] [cost=F]
//	                                             the implementers' phase ended (to: a challenge;
//	                                             overbudget: at its allotment, having spent cost)
//	tests pass|fail|unrunnable [failed=N]        the test command's result
//	answer text=(...)                            the human answers the open checkpoint
//	resume                                       a new hive process took over
//	state                                        the jobs, the agenda and the checkpoint
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		var m *Machine
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "start" {
				m = New()
			}
			if m == nil {
				t.Fatalf("%s: start first", d.Pos)
			}
			if d.Cmd == "state" {
				return state(m.Snapshot())
			}
			ev := event(t, d, m)
			cmds, err := m.Step(ev)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			var b strings.Builder
			for _, c := range cmds {
				b.WriteString(render(c))
				b.WriteByte('\n')
			}
			return b.String()
		})
	})
}

func event(t *testing.T, d *datadriven.TestData, m *Machine) Event {
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
	for _, j := range m.Snapshot().Jobs {
		if j.ID == job {
			attempt = j.Attempts
		}
	}
	ev := Event{Job: job, Attempt: attempt}
	switch d.Cmd {
	case "start":
		wf := Full
		if name := str("workflow"); name != "" {
			wf, _ = Builtin(name)
		}
		wf.FixLoops = num("fix")
		ev = Event{Type: EvStarted, Spec: &Spec{Objective: "the objective", Workflow: wf, AutoAnswer: d.HasArg("yes"), Budget: budgetArgs(t, d)}}
	case "started":
		ev.Type, ev.PID = EvAgentStarted, num("pid")
	case "report":
		ev.Type = EvReport
		ev.Report = &engine.Report{Status: str("status"), ChallengedAgent: str("to"), Issue: str("issue"), Blocker: str("issue"),
			Options: list("options"), DefaultChoice: str("default"), CanProceedWithDefault: d.HasArg("proceed"), Concerns: list("concerns")}
	case "exited":
		ev.Type, ev.ExitCode = EvAgentExited, num("code")
	case "usage":
		cost, _ := strconv.ParseFloat(str("cost"), 64)
		ev.Type, ev.Spend = EvUsage, engine.Spend{InputTokens: int64(num("in")), OutputTokens: int64(num("out")), CostUSD: cost}
		if n := num("attempt"); n > 0 {
			ev.Attempt = n
		}
	case "tool":
		ev.Type, ev.Tool, ev.Text = EvToolCall, str("name"), "h "+str("input")
	case "linted":
		ev = Event{Type: EvLinted, Errors: list("errors")}
	case "phase":
		cost, _ := strconv.ParseFloat(str("cost"), 64)
		ev = Event{Type: EvPhaseDone, OK: d.HasArg("ok"), Reason: str("reason"), OverBudget: d.HasArg("overbudget"), Spend: engine.Spend{CostUSD: cost}}
		if to := str("to"); to != "" {
			ev.Report = &engine.Report{Status: engine.ReportChallenge, ChallengedAgent: to, Issue: str("issue")}
		}
	case "tests":
		ev = Event{Type: EvTestsRan, Tests: &Tests{Command: "go test ./...", Passed: 3}}
		if d.HasArg("unrunnable") {
			ev.Tests.ExitCode, ev.Tests.Unrunnable, ev.Tests.Output = 127, true, "sh: 1: pnpm: not found"
		}
		if d.HasArg("fail") {
			ev.Tests.ExitCode, ev.Tests.Failed, ev.Tests.Failing = 1, max(num("failed"), 1), []string{"TestHealth"}
		}
	case "answer":
		ev = Event{Type: EvAnswer, Text: str("text")}
		if s := m.Snapshot(); s.Open != nil {
			ev.Checkpoint = s.Open.ID
		}
	case "resume":
		ev = Event{Type: EvResumed}
	default:
		t.Fatalf("%s: unknown directive %s", d.Pos, d.Cmd)
	}
	return ev
}

// budgetArgs reads a start's budget.
func budgetArgs(t *testing.T, d *datadriven.TestData) Budget {
	var b Budget
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

func render(c Command) string {
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
	if c.BudgetTokens > 0 {
		fmt.Fprintf(&b, " budget-tokens=%d", c.BudgetTokens)
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
	}
	if cp := c.Checkpoint; cp != nil {
		fmt.Fprintf(&b, " #%d %s %q options=%s", cp.ID, cp.Kind, cp.Question, strings.Join(cp.Options, "|"))
		if cp.Default != "" {
			fmt.Fprintf(&b, " default=%s", cp.Default)
		}
		if cp.Previous != nil {
			fmt.Fprintf(&b, " previous=%q", cp.Previous.Issue)
		}
		if cp.Kind == KindBudget {
			fmt.Fprintf(&b, " (%s)", cp.Details)
		}
	}
	return b.String()
}

func state(s Snapshot) string {
	var b strings.Builder
	for _, j := range s.Jobs {
		fmt.Fprintf(&b, "%s: %s attempts=%d", j.ID, j.State, j.Attempts)
		if j.Spend != (engine.Spend{}) {
			fmt.Fprintf(&b, " in=%d out=%d cost=%.2f", j.Spend.InputTokens, j.Spend.OutputTokens, j.Spend.CostUSD)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "agenda: %s\n", strings.Join(s.Agenda, " "))
	if s.Open != nil {
		fmt.Fprintf(&b, "open: #%d %s on %s\n", s.Open.ID, s.Open.Kind, s.Open.Job)
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
	if s.Finished {
		fmt.Fprintf(&b, "finished: %s %s\n", s.Outcome, s.Reason)
	}
	return b.String()
}
