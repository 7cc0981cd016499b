package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/engine/sched"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
	"pgregory.net/rapid"
)

// TestProperties drives the engine over random DAGs with a random
// environment (agents complete, fail, crash; spot-checks pass or fail; hive
// resumes) and checks the scheduling invariants after every step, then that
// replaying the same events gives the same commands and state.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		spec := genSpec(rt)
		e := New()
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var events []phase.Event
		var outputs [][]phase.Command
		step := func(ev phase.Event) []phase.Command {
			clock = clock.Add(time.Second)
			ev.Time = clock
			cmds, err := e.Step(ev)
			if err != nil {
				rt.Fatalf("step %+v: %v", ev, err)
			}
			events = append(events, ev)
			outputs = append(outputs, cmds)
			checkInvariants(rt, e, spec, cmds)
			return cmds
		}
		// The environment: agents started and not yet settled, and spot-checks out.
		type key struct {
			plan    string
			attempt int
			job     phase.CommandType // what a check answers: spot-check, merge, gate, verify
		}
		var agents []key
		var checks []key
		// ending are agents that said their last word (PLAN COMPLETE or
		// FAILED): their turn's end is still to come.
		var ending []key
		var open []*phase.Checkpoint // checkpoints waiting for an answer
		closed := map[int]int{}      // checkpoint id -> times closed
		finished, paused := false, false
		apply := func(cmds []phase.Command) {
			for _, c := range cmds {
				switch c.Type {
				case phase.CmdCheckpointOpened:
					dup := false
					for _, o := range open {
						dup = dup || o.ID == c.Checkpoint.ID
					}
					if !dup {
						open = append(open, c.Checkpoint)
					}
				case phase.CmdCheckpointClosed:
					closed[c.Checkpoint.ID]++
					if closed[c.Checkpoint.ID] > 1 {
						rt.Fatalf("checkpoint %d closed twice", c.Checkpoint.ID)
					}
					for i, o := range open {
						if o.ID == c.Checkpoint.ID {
							open = append(open[:i], open[i+1:]...)
							break
						}
					}
				case phase.CmdRunFinished:
					finished = true
				case phase.CmdPaused:
					paused = true
				case phase.CmdStartAgent:
					agents = append(agents, key{c.Plan, c.Attempt, ""})
				case phase.CmdSend:
					// The live agent goes on with the answer, even if the
					// driver thought its last message was final.
					k, known := key{c.Plan, c.Attempt, ""}, false
					for _, a := range agents {
						known = known || a == k
					}
					if !known {
						agents = append(agents, k)
					}
				case phase.CmdSpotCheck, phase.CmdMerge, phase.CmdGate, phase.CmdVerify:
					checks = append(checks, key{c.Plan, c.Attempt, c.Type})
				}
			}
		}
		// how the process waits for a human: attended, or not, for a while
		humanWait := func(ev phase.Event) phase.Event {
			ev.Attended = rapid.Bool().Draw(rt, "attended")
			ev.Wait = rapid.SampledFrom([]time.Duration{-1, 0, time.Minute}).Draw(rt, "wait")
			return ev
		}
		apply(step(humanWait(phase.Event{Type: phase.EvRunStarted, Spec: &spec, Version: phase.Version})))
		for i := 0; i < 3000 && !finished; i++ {
			if len(agents) == 0 && len(checks) == 0 && len(open) == 0 && len(ending) == 0 && !paused {
				break
			}
			var ev phase.Event
			switch {
			case paused:
				ev = humanWait(phase.Event{Type: phase.EvResumed, Version: phase.Version})
				agents, checks, ending, paused = nil, nil, nil, false
			case len(open) > 0 && (len(agents)+len(checks) == 0 || rapid.IntRange(0, 3).Draw(rt, "answer-now") == 0):
				cp := open[rapid.IntRange(0, len(open)-1).Draw(rt, "which")]
				text := rapid.SampledFrom([]string{"approved", "option-a", "fix the header"}).Draw(rt, "text")
				if cp.Type == "decision" && len(cp.Options) > 0 {
					text = cp.Options[0]
				}
				if cp.Kind == phase.KindFailure {
					text = rapid.SampledFrom([]string{"retry", "skip", "skip", "abort"}).Draw(rt, "choice")
				}
				if cp.Kind == phase.KindMerge {
					text = rapid.SampledFrom([]string{"done", "done", "abort"}).Draw(rt, "merge-choice")
				}
				if cp.Kind == phase.KindVerify {
					text = rapid.SampledFrom([]string{"approved", "gaps"}).Draw(rt, "verify-choice")
				}
				if cp.Kind == phase.KindBudget {
					text = fmt.Sprintf("raise %.2f", e.budget.USD+2*e.budget.Spent().CostUSD+float64(rapid.IntRange(1, 20).Draw(rt, "raise")))
					if rapid.IntRange(0, 4).Draw(rt, "budget-stop") == 0 {
						text = "stop"
					}
				}
				ev = phase.Event{Type: phase.EvAnswer, Plan: cp.Plan, Text: text}
			case len(ending) > 0 && (len(agents)+len(checks) == 0 || rapid.IntRange(0, 3).Draw(rt, "end-now") == 0):
				k := ending[0]
				ending = ending[1:]
				ev = phase.Event{Type: phase.EvUsage, Plan: k.plan, Attempt: k.attempt, Priced: true, TurnUSD: float64(rapid.IntRange(0, 2).Draw(rt, "last-turn-usd"))}
			case len(checks) > 0 && (len(agents) == 0 || rapid.Bool().Draw(rt, "check-first")):
				j := rapid.IntRange(0, len(checks)-1).Draw(rt, "check")
				k := checks[j]
				checks = append(checks[:j], checks[j+1:]...)
				ok := rapid.IntRange(0, 9).Draw(rt, "ok") > 0
				switch k.job {
				case phase.CmdMerge:
					ev = phase.Event{Type: phase.EvMerged, Plan: k.plan, Attempt: k.attempt, OK: ok}
					if !ok && rapid.Bool().Draw(rt, "conflict") {
						ev.Files = []string{"a.go"}
					}
				case phase.CmdGate:
					ev = phase.Event{Type: phase.EvGateChecked, Plan: k.plan, Attempt: k.attempt, OK: ok, Text: "FAIL"}
				case phase.CmdVerify:
					ev = phase.Event{Type: phase.EvVerified, Text: rapid.SampledFrom([]string{phase.VerifyPassed, phase.VerifyHumanNeeded, phase.VerifyGapsFound}).Draw(rt, "status")}
				default:
					ev = phase.Event{Type: phase.EvSpotChecked, Plan: k.plan, Attempt: k.attempt, OK: ok, Reason: "no SUMMARY"}
				}
			default:
				j := rapid.IntRange(0, len(agents)-1).Draw(rt, "agent")
				k := agents[j]
				ev = phase.Event{Plan: k.plan, Attempt: k.attempt}
				switch rapid.IntRange(0, 17).Draw(rt, "what") {
				case 13:
					ev = phase.Event{Type: phase.EvWake}
				case 14:
					// A turn ends, its context somewhere between empty and past the handoff point.
					ev.Type, ev.ContextTokens = phase.EvUsage, int64(rapid.IntRange(0, 120_000).Draw(rt, "context"))
					ev.Priced, ev.TurnUSD = true, float64(rapid.IntRange(0, 4).Draw(rt, "turn-usd"))
				case 15:
					ev.Type, ev.Report = phase.EvReport, &work.Report{Status: work.ReportPartial, Summary: "notes"}
				case 16:
					ev = phase.Event{Type: phase.EvPause}
					if rapid.IntRange(0, 5).Draw(rt, "pause-now") > 0 {
						ev = phase.Event{Type: phase.EvWake}
					}
				case 17:
					ev.Type, ev.PreTokens, ev.ContextTokens, ev.Text = phase.EvCompacted, 150_000, 15_000, "auto"

				case 10:
					ev.Type = phase.EvCheckpoint
					ev.Checkpoint = &phase.Checkpoint{Type: rapid.SampledFrom([]string{"human-verify", "decision", "human-action"}).Draw(rt, "type"),
						Options: []string{"option-a", "option-b"}, Standalone: rapid.Bool().Draw(rt, "standalone")}
				case 11:
					ev.Type = phase.EvDeviation
					ev.Checkpoint = &phase.Checkpoint{}
				case 12:
					ev.Type = phase.EvSilent
				case 0:
					ev.Type = phase.EvPlanFailed
					agents = append(agents[:j], agents[j+1:]...)
					ending = append(ending, k)
				case 1:
					ev.Type, ev.ExitCode = phase.EvAgentExited, 3
					agents = append(agents[:j], agents[j+1:]...)
				case 2:
					ev = humanWait(phase.Event{Type: phase.EvResumed})
					agents, ending = nil, nil // the old agents are gone; restarts come as new start-agent commands
					checks = nil
				case 3, 4:
					ev.Type, ev.Task = phase.EvProgress, 1
				default:
					ev.Type = phase.EvPlanComplete
					agents = append(agents[:j], agents[j+1:]...)
					ending = append(ending, k)
				}
			}
			apply(step(ev))
		}
		snap := e.Snapshot()
		if !finished {
			rt.Fatalf("run did not finish: %+v", snap)
		}
		for _, p := range snap.Plans {
			if !p.State.Final() {
				rt.Fatalf("plan %s ended %s", p.Spec.ID, p.State)
			}
		}
		// Replay: the same events give the same commands and the same state.
		r := New()
		for i, ev := range events {
			cmds, err := r.Step(ev)
			if err != nil {
				rt.Fatalf("replay %d: %v", i, err)
			}
			if !reflect.DeepEqual(cmds, outputs[i]) {
				rt.Fatalf("replay %d (%s): commands differ:\n%v\n%v", i, ev.Type, cmds, outputs[i])
			}
		}
		if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
			rt.Fatalf("replayed state differs:\n%+v\n%+v", got, snap)
		}
		// Export and restore at a random point, through JSON: the restored
		// engine gives the same commands for the rest of the events and
		// ends in the same state.
		cut := rapid.IntRange(0, len(events)).Draw(rt, "cut")
		x := New()
		for _, ev := range events[:cut] {
			x.Step(ev)
		}
		data, err := json.Marshal(x.Export())
		if err != nil {
			rt.Fatalf("export: %v", err)
		}
		var st phase.State
		if err := json.Unmarshal(data, &st); err != nil {
			rt.Fatalf("read the export back: %v", err)
		}
		y, err := Restore(st)
		if err != nil {
			rt.Fatalf("restore after %d events: %v", cut, err)
		}
		for i, ev := range events[cut:] {
			cmds, err := y.Step(ev)
			if err != nil {
				rt.Fatalf("restored, event %d: %v", cut+i, err)
			}
			if !reflect.DeepEqual(cmds, outputs[cut+i]) {
				rt.Fatalf("restored after %d events, event %d (%s): commands differ:\n%v\n%v", cut, cut+i, ev.Type, cmds, outputs[cut+i])
			}
		}
		if got := y.Snapshot(); !reflect.DeepEqual(got, snap) {
			rt.Fatalf("restored after %d events, the state differs:\n%+v\n%+v", cut, got, snap)
		}
	})
}

func genSpec(rt *rapid.T) phase.RunSpec {
	n := rapid.IntRange(1, 25).Draw(rt, "plans")
	spec := phase.RunSpec{
		Phase:         "01",
		MaxConcurrent: rapid.IntRange(1, 5).Draw(rt, "max"),
		Dynamic:       rapid.Bool().Draw(rt, "dynamic"),
		SharedTree:    rapid.Bool().Draw(rt, "shared"),
		Team:          rapid.Bool().Draw(rt, "team"),
		AutoAnswer:    rapid.Bool().Draw(rt, "yes"),
		Retries:       rapid.IntRange(0, 2).Draw(rt, "retries"),
		Worktrees:     rapid.Bool().Draw(rt, "worktrees"),
		Context:       phase.ContextLimits{HandoffTokens: int64(rapid.SampledFrom([]int{0, 50_000}).Draw(rt, "handoff"))},
	}
	if rapid.IntRange(0, 2).Draw(rt, "budgeted") == 0 {
		spec.Budget.USD = float64(rapid.IntRange(2, 20).Draw(rt, "budget-usd"))
	}
	if spec.Worktrees {
		spec.SharedTree = false
		spec.Resolver = rapid.Bool().Draw(rt, "resolver")
		spec.Gate = rapid.Bool().Draw(rt, "gate")
		spec.Verify = rapid.Bool().Draw(rt, "verify")
	}
	files := []string{"a.go", "b.go", "c.go", "d/", "d/e.go"}
	for i := 0; i < n; i++ {
		ps := phase.PlanSpec{ID: fmt.Sprintf("01-%02d", i+1), Tasks: rapid.IntRange(1, 5).Draw(rt, "tasks"), Done: rapid.IntRange(0, 9).Draw(rt, "done") == 0}
		for j := 0; j < i; j++ {
			if rapid.IntRange(0, 3).Draw(rt, "edge") == 0 {
				ps.DependsOn = append(ps.DependsOn, spec.Plans[j].ID)
			}
		}
		for _, f := range files {
			if rapid.IntRange(0, 4).Draw(rt, "file") == 0 {
				ps.Files = append(ps.Files, f)
			}
		}
		if rapid.Bool().Draw(rt, "declared-wave") {
			ps.Wave = rapid.IntRange(1, 4).Draw(rt, "wave")
		}
		spec.Plans = append(spec.Plans, ps)
	}
	return spec
}

func checkInvariants(rt *rapid.T, e *Engine, spec phase.RunSpec, cmds []phase.Command) {
	snap := e.Snapshot()
	// Snapshots share the copies of plans that did not change: they must
	// equal one made from scratch.
	for _, p := range e.plans {
		p.Dirty = true
	}
	if fresh := e.Snapshot(); !reflect.DeepEqual(snap, fresh) {
		rt.Fatalf("a snapshot kept a stale plan:\n%+v\n%+v", snap, fresh)
	}
	byID := map[string]*phase.PlanStatus{}
	running := 0
	for _, p := range snap.Plans {
		byID[p.Spec.ID] = p
		if p.State == phase.Running || p.State == phase.Waiting {
			running++
		}
	}
	if running > spec.MaxConcurrent {
		rt.Fatalf("%d plans running, limit %d", running, spec.MaxConcurrent)
	}
	for _, c := range cmds {
		if snap.Pausing && c.Type == phase.CmdStartAgent {
			rt.Fatalf("%s started while the run pauses: %+v", c.Plan, cmds)
		}
	}
	for _, c := range cmds {
		if c.Type != phase.CmdStartAgent {
			continue
		}
		p := byID[c.Plan]
		for _, d := range p.Spec.DependsOn {
			if byID[d].State != phase.Complete {
				rt.Fatalf("%s started while its dependency %s is %s", c.Plan, d, byID[d].State)
			}
		}
		if !spec.Dynamic {
			for _, q := range snap.Plans {
				if q.Spec.Wave < p.Spec.Wave && !q.State.Final() {
					rt.Fatalf("rigid: %s (wave %d) started while %s (wave %d) is %s", c.Plan, p.Spec.Wave, q.Spec.ID, q.Spec.Wave, q.State)
				}
			}
		}
	}
	if spec.SharedTree && running > 1 && !snap.Aborted {
		var rs []*phase.PlanStatus
		for _, p := range snap.Plans {
			if p.State == phase.Running || p.State == phase.Waiting {
				rs = append(rs, p)
			}
		}
		for i := range rs {
			if len(rs[i].Spec.Files) == 0 {
				rt.Fatalf("shared tree: %s declares no files but runs beside others", rs[i].Spec.ID)
			}
			for j := i + 1; j < len(rs); j++ {
				if sched.Overlaps(rs[i].Spec.Files, rs[j].Spec.Files) {
					rt.Fatalf("shared tree: %s and %s run at once on %v / %v", rs[i].Spec.ID, rs[j].Spec.ID, rs[i].Spec.Files, rs[j].Spec.Files)
				}
			}
		}
	}
	for _, p := range snap.Plans {
		if p.State == phase.Skipped && !snap.Aborted {
			failedDep := false
			for _, d := range p.Spec.DependsOn {
				if s := byID[d].State; s == phase.Failed || s == phase.Skipped {
					failedDep = true
				}
			}
			if !failedDep {
				rt.Fatalf("%s skipped without a failed dependency", p.Spec.ID)
			}
		}
	}
}
