package enginescript

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// Script is one script's reading state: its clock, a second on at every
// directive, from 2026-01-01 00:00 UTC.
type Script struct {
	Clock time.Time
}

// New starts reading a script.
func New() *Script { return &Script{Clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

// Step is what one directive asks for: an event to step the engine with,
// or a view of its state ("state" or "jobs").
type Step struct {
	Event *phase.Event
	View  string
}

// View prints what a view directive shows of snap.
func View(view string, snap phase.Snapshot) string {
	if view == "jobs" {
		return RenderJobs(snap.Jobs())
	}
	return RenderState(snap)
}

// attempt is the current attempt of plan id (or of the verifier) in snap:
// events name it unless the directive says attempt=N.
func attempt(snap phase.Snapshot, id string) int {
	if id == phase.VerifyID {
		return snap.Verify.Attempt
	}
	for _, p := range snap.Plans {
		if p.Spec.ID == id {
			return p.Attempt
		}
	}
	return 0
}

// human sets how the process of a run or resume waits for a human, and
// the engine version it names (this one's, unless version=N).
func human(t testing.TB, d *datadriven.TestData, ev *phase.Event) {
	ev.Version = phase.Version
	d.MaybeScanArgs(t, "version", &ev.Version)
	ev.Attended = !d.HasArg("unattended")
	if arg, ok := d.Arg("wait"); ok {
		var err error
		if ev.Wait, err = time.ParseDuration(arg.Vals[0]); err != nil {
			t.Fatalf("%s: wait=%s: %v", d.Pos, arg.Vals[0], err)
		}
	}
}

// Read turns directive d into a Step; snap is the engine's state before it.
func (s *Script) Read(t testing.TB, d *datadriven.TestData, snap phase.Snapshot) Step {
	s.Clock = s.Clock.Add(time.Second)
	clock := s.Clock
	if d.Cmd == "run" {
		spec := phase.RunSpec{Phase: "01", MaxConcurrent: 3, Dynamic: d.HasArg("dynamic"), SharedTree: d.HasArg("shared"),
			Team: d.HasArg("team"), AutoAnswer: d.HasArg("yes"),
			Worktrees: d.HasArg("worktrees"), Resolver: d.HasArg("resolver"), Gate: d.HasArg("gate"), Verify: d.HasArg("verify") || d.HasArg("verifier"), Verifier: d.HasArg("verifier")}
		d.MaybeScanArgs(t, "max", &spec.MaxConcurrent)
		d.MaybeScanArgs(t, "retries", &spec.Retries)
		d.MaybeScanArgs(t, "budget", &spec.Budget.USD)
		d.MaybeScanArgs(t, "tokens", &spec.Budget.Tokens)
		d.MaybeScanArgs(t, "planusd", &spec.Budget.PlanUSD)
		if arg, ok := d.Arg("rungs"); ok { // rungs=(task cost on each rung)
			for _, v := range arg.Vals {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s: rungs: %v", d.Pos, err)
				}
				spec.Budget.TaskUSD = append(spec.Budget.TaskUSD, f)
			}
		}
		if arg, ok := d.Arg("onlimit"); ok {
			spec.OnLimit = work.OnLimit(arg.Vals[0])
		}
		d.MaybeScanArgs(t, "maxcalls", &spec.Guard.MaxCalls)
		d.MaybeScanArgs(t, "handoff", &spec.Context.HandoffTokens)
		d.MaybeScanArgs(t, "window", &spec.Context.Window)
		if arg, ok := d.Arg("stall"); ok {
			var err error
			if spec.Stall, err = time.ParseDuration(arg.Vals[0]); err != nil {
				t.Fatalf("%s: stall=%s: %v", d.Pos, arg.Vals[0], err)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			spec.Plans = append(spec.Plans, parsePlanLine(t, line))
		}
		ev := phase.Event{Type: phase.EvRunStarted, Time: clock, Spec: &spec}
		human(t, d, &ev)
		return Step{Event: &ev}
	}
	if d.Cmd == "state" || d.Cmd == "jobs" {
		return Step{View: d.Cmd}
	}
	ev := phase.Event{Time: clock}
	if arg, ok := d.Arg("after"); ok && (d.Cmd == "resume" || d.Cmd == "wake") { // after=DURATION: the clock moves on first
		dur, err := time.ParseDuration(arg.Vals[0])
		if err != nil {
			t.Fatalf("%s: after=%s: %v", d.Pos, arg.Vals[0], err)
		}
		s.Clock = s.Clock.Add(dur)
		ev.Time = s.Clock
	}
	if d.Cmd == "resume" {
		ev.Type = phase.EvResumed
		human(t, d, &ev)
		return Step{Event: &ev}
	}
	if d.Cmd == "wake" {
		ev.Type = phase.EvWake
		return Step{Event: &ev}
	}
	if d.Cmd == "pause" {
		ev.Type = phase.EvPause
		return Step{Event: &ev}
	}
	if d.Cmd == "verified" {
		ev.Type = phase.EvVerified
		d.ScanArgs(t, "status", &ev.Text)
		if arg, ok := d.Arg("reason"); ok {
			ev.Reason = strings.Join(arg.Vals, ", ")
		}
		return Step{Event: &ev}
	}
	if len(d.CmdArgs) == 0 {
		t.Fatalf("%s: %s needs a plan id", d.Pos, d.Cmd)
	}
	ev.Plan = d.CmdArgs[0].Key
	ev.Attempt = attempt(snap, ev.Plan)
	d.MaybeScanArgs(t, "attempt", &ev.Attempt)
	if arg, ok := d.Arg("reason"); ok {
		ev.Reason = strings.Join(arg.Vals, ", ")
	}
	switch d.Cmd {
	case "started":
		ev.Type = phase.EvAgentStarted
		d.MaybeScanArgs(t, "pid", &ev.PID)
	case "progress":
		ev.Type = phase.EvProgress
		d.ScanArgs(t, "task", &ev.Task)
		d.MaybeScanArgs(t, "total", &ev.Total)
		ev.Text = fmt.Sprintf("Task %d complete", ev.Task)
	case "complete":
		ev.Type = phase.EvPlanComplete
	case "failed":
		ev.Type = phase.EvPlanFailed
	case "limited": // limited PLAN kind=usage|rate|overload|auth [reset=DURATION from now] [text=(…)]
		ev.Type = phase.EvLimited
		ev.Limit = &work.Limit{}
		var kind string
		d.ScanArgs(t, "kind", &kind)
		ev.Limit.Kind = work.LimitKind(kind)
		if arg, ok := d.Arg("reset"); ok {
			dur, err := time.ParseDuration(arg.Vals[0])
			if err != nil {
				t.Fatalf("%s: reset=%s: %v", d.Pos, arg.Vals[0], err)
			}
			ev.Limit.Reset = clock.Add(dur)
		}
		if arg, ok := d.Arg("text"); ok {
			ev.Limit.Text = strings.Join(arg.Vals, ", ")
		}
		ev.Limit.Fallback = d.HasArg("fallback") // met by the fallback agent
	case "exited":
		ev.Type = phase.EvAgentExited
		d.MaybeScanArgs(t, "code", &ev.ExitCode)
	case "check":
		ev.Type = phase.EvSpotChecked
		ev.OK = d.HasArg("ok")
	case "checkpoint", "deviation":
		ev.Type = phase.EvCheckpoint
		if d.Cmd == "deviation" {
			ev.Type = phase.EvDeviation
		}
		cp := &phase.Checkpoint{Standalone: d.HasArg("standalone")}
		d.MaybeScanArgs(t, "type", &cp.Type)
		d.MaybeScanArgs(t, "done", &cp.Done)
		d.MaybeScanArgs(t, "total", &cp.Total)
		d.MaybeScanArgs(t, "tool", &cp.Tool)
		d.MaybeScanArgs(t, "request", &cp.RequestID)
		if arg, ok := d.Arg("options"); ok {
			cp.Options = arg.Vals
		}
		ev.Checkpoint = cp
	case "answer":
		ev.Type = phase.EvAnswer
		ev.Attempt = 0
		if arg, ok := d.Arg("text"); ok {
			ev.Text = strings.Join(arg.Vals, ", ")
		}
		d.MaybeScanArgs(t, "id", &ev.CheckpointID)
		d.MaybeScanArgs(t, "by", &ev.By)
	case "merged":
		ev.Type, ev.OK = phase.EvMerged, d.HasArg("ok")
		if arg, ok := d.Arg("files"); ok {
			ev.Files = arg.Vals
		}
		if d.HasArg("fail") {
			ev.Reason = "git merge: fatal"
		}
	case "gate":
		ev.Type, ev.OK = phase.EvGateChecked, d.HasArg("ok")
		if !ev.OK {
			ev.Text = "--- FAIL: TestShelf\nFAIL"
		}
	case "silent":
		ev.Type, ev.Text = phase.EvSilent, "5m0s"
	case "commits":
		ev.Type, ev.OK = phase.EvCommitsChecked, d.HasArg("recent")
	case "report": // report PLAN status=S [summary=(…)] [blocker=(…)] [options=(a|b)] [default=X] [issue=(…)] [challenged=ROLE]
		ev.Type = phase.EvReport
		r := &work.Report{}
		d.ScanArgs(t, "status", &r.Status)
		for key, ptr := range map[string]*string{"summary": &r.Summary, "blocker": &r.Blocker, "default": &r.DefaultChoice,
			"issue": &r.Issue, "challenged": &r.ChallengedAgent, "suggestion": &r.Suggestion} {
			if arg, ok := d.Arg(key); ok {
				*ptr = strings.Join(arg.Vals, ", ")
			}
		}
		if arg, ok := d.Arg("options"); ok {
			r.Options = strings.Split(arg.Vals[0], "|")
		}
		r.CanProceedWithDefault = r.DefaultChoice != ""
		ev.Report = r
	case "usage", "spend":
		ev.Type = phase.EvUsage
		if d.Cmd == "spend" {
			ev.Type = phase.EvSpend
		}
		d.MaybeScanArgs(t, "in", &ev.InputTokens)
		d.MaybeScanArgs(t, "out", &ev.OutputTokens)
		d.MaybeScanArgs(t, "cost", &ev.CostUSD)
		if d.HasArg("turn") {
			ev.Priced = true
			d.ScanArgs(t, "turn", &ev.TurnUSD)
		}
		d.MaybeScanArgs(t, "cacheread", &ev.CacheReadTokens)
		d.MaybeScanArgs(t, "ctx", &ev.ContextTokens)
		d.MaybeScanArgs(t, "window", &ev.ContextWindow)
	case "compacted": // compacted PLAN pre=N post=M
		ev.Type, ev.Text = phase.EvCompacted, "auto"
		d.ScanArgs(t, "pre", &ev.PreTokens)
		d.ScanArgs(t, "post", &ev.ContextTokens)
	case "tool": // tool PLAN name=T [input=X]
		ev.Type = phase.EvToolCall
		d.ScanArgs(t, "name", &ev.Tool)
		if arg, ok := d.Arg("input"); ok {
			in := strings.Join(arg.Vals, ",")
			ev.Text = "h:" + strings.ReplaceAll(in, " ", "_") + " " + in
		}
	default:
		t.Fatalf("%s: unknown directive %q", d.Pos, d.Cmd)
	}
	return Step{Event: &ev}
}

func parsePlanLine(t testing.TB, line string) phase.PlanSpec {
	fields := strings.Fields(line)
	ps := phase.PlanSpec{ID: fields[0], Tasks: 1}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		list := func() []string { return strings.Split(strings.Trim(v, "()"), ",") }
		var err error
		switch k {
		case "wave":
			ps.Wave, err = strconv.Atoi(v)
		case "tasks":
			ps.Tasks, err = strconv.Atoi(v)
		case "est":
			ps.Estimate, err = time.ParseDuration(v)
		case "deps":
			ps.DependsOn = list()
		case "files":
			ps.Files = list()
		case "done":
			ps.Done = true
		case "stop": // stop=(TASK:TYPE:GATE:opt1|opt2)
			for _, st := range list() {
				f := strings.Split(st, ":")
				for len(f) < 4 {
					f = append(f, "")
				}
				n, _ := strconv.Atoi(f[0])
				stop := phase.Stop{Task: n, Type: f[1], Gate: f[2]}
				if f[3] != "" {
					stop.Options = strings.Split(f[3], "|")
				}
				ps.Stops = append(ps.Stops, stop)
			}
		default:
			t.Fatalf("plan line %q: unknown field %q", line, k)
		}
		if err != nil {
			t.Fatalf("plan line %q: %v", line, err)
		}
	}
	return ps
}

// Render prints the engine's answer to one event as the scripts expect.
func Render(cmds []phase.Command, err error) string {
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	for _, c := range cmds {
		b.WriteString(string(c.Type))
		if c.Plan != "" {
			b.WriteString(" " + c.Plan)
		}
		if c.Wave != 0 {
			fmt.Fprintf(&b, " wave=%d", c.Wave)
		}
		if c.Attempt != 0 {
			fmt.Fprintf(&b, " attempt=%d", c.Attempt)
		}
		if c.PID != 0 {
			fmt.Fprintf(&b, " pid=%d", c.PID)
		}
		if c.State != "" {
			b.WriteString(" " + string(c.State))
		}
		if c.After != "" {
			b.WriteString(" after=" + c.After)
		}
		if !c.At.IsZero() {
			b.WriteString(" at=" + c.At.Format("15:04:05"))
		}
		if c.Kill {
			b.WriteString(" kill")
		}
		if c.Interrupt {
			b.WriteString(" interrupt")
		}
		if c.Rung != 0 {
			fmt.Fprintf(&b, " rung=%d", c.Rung)
		}
		if c.MaxUSD != 0 {
			fmt.Fprintf(&b, " max=$%.2f", c.MaxUSD)
		}
		if c.Fallback {
			b.WriteString(" fallback")
		}
		if c.Checkpoint != nil {
			cp := c.Checkpoint
			fmt.Fprintf(&b, " #%d %s/%s task=%d", cp.ID, cp.Kind, cp.Type, cp.Task)
			if cp.Tool != "" || cp.RequestID != "" {
				fmt.Fprintf(&b, " tool=%s request=%s", cp.Tool, cp.RequestID)
			}
			if cp.Gate != "" {
				b.WriteString(" gate=" + cp.Gate)
			}
			if len(cp.Options) > 0 {
				b.WriteString(" options=" + strings.Join(cp.Options, "|"))
			}
			if cp.Standalone {
				b.WriteString(" standalone")
			}
			if cp.Answer != "" {
				fmt.Fprintf(&b, " answer=%q by=%s", cp.Answer, cp.AnsweredBy)
			}
		}
		if c.Role != "" {
			b.WriteString(" role=" + c.Role)
		}
		if c.Continuation != nil {
			b.WriteString(" continuation")
			if c.Continuation.Checkpoint != nil {
				fmt.Fprintf(&b, "(#%d %q)", c.Continuation.Checkpoint.ID, c.Continuation.Checkpoint.Answer)
			}
			if len(c.Continuation.Conflict) > 0 {
				fmt.Fprintf(&b, " conflict=%s", strings.Join(c.Continuation.Conflict, ","))
			}
			if c.Continuation.Rollover {
				b.WriteString(" rollover")
			}
			if n := c.Continuation.Notes; n != nil {
				fmt.Fprintf(&b, " notes=%q", n.Summary)
			}
			if len(c.Continuation.Answered) > 0 {
				fmt.Fprintf(&b, " answered=%d", len(c.Continuation.Answered))
			}
			if c.Continuation.Fix != "" {
				fmt.Fprintf(&b, " fix=%q", c.Continuation.Fix)
			}
		}
		if c.Message != "" {
			b.WriteString(" " + string(c.Message))
		}
		if c.Text != "" {
			fmt.Fprintf(&b, " text=%q", c.Text)
		}
		if c.Reason != "" {
			b.WriteString(": " + c.Reason)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}

// RenderState prints a snapshot as the scripts' state directive expects.
func RenderState(s phase.Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wave=%d finished=%v", s.CurrentWave, s.Finished)
	if s.Outcome != "" {
		b.WriteString(" outcome=" + s.Outcome)
	}
	if s.Fallback {
		b.WriteString(" fallback")
	}
	if w := s.Limit; w != nil {
		fmt.Fprintf(&b, " limit=%s until=%s since=%s job=%s", w.Kind, w.Until.UTC().Format("15:04:05"), w.Since.UTC().Format("15:04:05"), w.Job)
	}
	b.WriteString("\n")
	for _, p := range s.Plans {
		fmt.Fprintf(&b, "%s wave=%d %s attempt=%d tasks=%d/%d", p.Spec.ID, p.Spec.Wave, p.State, p.Attempt, p.TasksDone, p.Spec.Tasks)
		if p.Stage != phase.StageWork {
			b.WriteString(" stage=" + string(p.Stage))
		}
		if p.InputTokens+p.OutputTokens > 0 || p.CostUSD > 0 {
			fmt.Fprintf(&b, " tokens=%d/%d cost=%.2f", p.InputTokens, p.OutputTokens, p.CostUSD)
		}
		if c := p.Context; c.Tokens > 0 || c.Peak > 0 || c.Rollovers > 0 || c.Compactions > 0 {
			fmt.Fprintf(&b, " context=%d/%d handoff=%d peak=%d", c.Tokens, c.Window, c.Handoff, c.Peak)
			if c.Rollovers > 0 {
				fmt.Fprintf(&b, " rollovers=%d", c.Rollovers)
			}
			if c.Compactions > 0 {
				fmt.Fprintf(&b, " compactions=%d", c.Compactions)
			}
			if c.Rolling {
				b.WriteString(" rolling")
			}
		}
		if p.Reason != "" {
			b.WriteString(": " + p.Reason)
		}
		b.WriteString("\n")
	}
	for i, cp := range s.Queue {
		fmt.Fprintf(&b, "queue %d of %d: #%d %s %s/%s\n", i+1, len(s.Queue), cp.ID, cp.Plan, cp.Kind, cp.Type)
	}
	if s.Pausing || s.Paused {
		fmt.Fprintf(&b, "pausing=%v paused=%v\n", s.Pausing, s.Paused)
	}
	if s.Resolved > 0 {
		fmt.Fprintf(&b, "resolved %d\n", s.Resolved)
	}
	if v := s.Verification; v != nil {
		fmt.Fprintf(&b, "verification %s: %s\n", v.Status, v.Details)
	}
	if s.Budget.USD > 0 || s.Budget.Tokens > 0 {
		fmt.Fprintf(&b, "budget $%.2f tokens=%d spent $%.2f tokens=%d rung=%d\n", s.Budget.USD, s.Budget.Tokens, s.Spent.CostUSD, s.Spent.Tokens(), s.Rung)
	}
	return b.String()
}

// RenderJobs prints jobs as the scripts' jobs directive expects.
func RenderJobs(jobs []phase.Job) string {
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "%s %s %s attempts=%d", j.ID, j.Kind, j.State, j.Attempts)
		if j.Stage != "" {
			b.WriteString(" stage=" + j.Stage)
		}
		if j.PID != 0 {
			fmt.Fprintf(&b, " pid=%d", j.PID)
		}
		if j.InputTokens+j.OutputTokens > 0 || j.CostUSD > 0 {
			fmt.Fprintf(&b, " tokens=%d/%d cost=%.2f", j.InputTokens, j.OutputTokens, j.CostUSD)
		}
		b.WriteString("\n")
	}
	return b.String()
}
