package executor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/sim/faults"
)

// RolloverPrefix begins hive's request that a live agent hand its plan over
// before its context fills up: commit the task in progress as work in
// progress, report where it stands in a HIVE_REPORT with status partial,
// and end its turn, for a fresh session to go on.
const RolloverPrefix = "CONTEXT_ROLLOVER:"

// ErrRolledOver ends the plan's work after the agent answered a rollover
// request: its turn ended with the report, and it starts no other task.
var ErrRolledOver = errors.New("plan handed over at a context rollover")

func isRollover(msg string) bool {
	return strings.HasPrefix(strings.TrimSpace(msg), RolloverPrefix)
}

// ignoresRollover reports whether the plan's agent plays one that pays no
// attention to rollover requests (faults.FaultIgnoreRollover).
func (a *Agent) ignoresRollover() bool {
	return a.pr != nil && a.pr.faults.Has(faults.FaultIgnoreRollover)
}

// takeRollover takes the first rollover request among the messages that
// arrived while the agent worked, unless the agent ignores those (see
// session.Session.Take).
func (a *Agent) takeRollover() bool {
	m, ok := a.Take(func(m string) bool { return !a.ignoresRollover() && isRollover(m) })
	if ok {
		a.Out.Heard(m)
	}
	return ok
}

// work spends d on the task at hand (HIVE_SIM_DELAY: a real agent's edits
// and test runs take time). A rollover request that arrives meanwhile ends
// it early: rollover is true, and the task is in progress.
func (a *Agent) work(d time.Duration) (rollover bool, err error) {
	return a.Spend(d, a.takeRollover)
}

// rollover hands the plan over, as hive's request asks: when task next is
// in progress, its work so far is committed as work in progress (subject
// "wip(PLAN): NAME (in progress)", trailers Hive-Plan and Hive-WIP, never
// Hive-Task, so that the next session does the task again); then the
// HIVE_REPORT says where the plan stands and the turn ends. next is nil
// when every task is committed; awaiting says that next is a checkpoint
// waiting for the user's answer. It returns ErrRolledOver, or the error
// of the commit.
func (a *Agent) rollover(next *plan.Task, inProgress, awaiting bool) error {
	r := a.pr
	var wip *planCommit
	var files []string
	if next != nil && inProgress {
		ref := fmt.Sprintf("%s/%d", r.p.ID, next.Number)
		var err error
		// Markers of their own: the task's commit adds its own marker
		// later, so that its files change again.
		if files, err = a.writeFiles(*next, ref+" wip", "work in progress: "+taskName(*next)); err != nil {
			return err
		}
		subject := fmt.Sprintf("wip(%s): %s (in progress)", r.p.ID, taskName(*next))
		if err := a.commit(files, subject, "Hive-WIP: "+ref); err != nil {
			return err
		}
		for i := len(r.commits) - 1; i >= 0 && wip == nil; i-- {
			if r.commits[i].WIP == next.Number {
				wip = &r.commits[i]
			}
		}
	}
	a.SetEOFExit(0) // it did what it was asked: closing its input ends it cleanly (set before the turn ends)
	r.rolledOver = true
	a.report(handover(r, next, wip, awaiting, files))
	return ErrRolledOver
}

// handOver answers a rollover request that comes while the agent is idle:
// after PLAN COMPLETE, a complete report; otherwise a partial one naming
// the first task without a commit.
func (a *Agent) handOver() {
	r := a.pr
	if r.complete {
		a.report(handoverReport{Status: "complete",
			Summary: fmt.Sprintf("Plan %s is complete: %d of %d tasks committed and %s written; nothing is left to hand over",
				r.p.ID, r.doneCount(), len(r.p.Tasks), r.p.SummaryPath())})
		return
	}
	var next *plan.Task
	for i, t := range r.p.Tasks {
		if _, ok := r.taskCommit(t.Number); !ok {
			next = &r.p.Tasks[i]
			break
		}
	}
	a.SetEOFExit(0)
	r.rolledOver = true
	a.report(handover(r, next, nil, false, nil))
}

// handoverReport is the HIVE_REPORT of a handover, its fields in the
// order a reader looks for them.
type handoverReport struct {
	Status    string     `json:"status"`
	Summary   string     `json:"summary"`
	Decisions []decision `json:"decisions,omitempty"`
	Concerns  []string   `json:"concerns,omitempty"`
	Files     []string   `json:"files,omitempty"`
}

type decision struct {
	Decision  string `json:"decision"`
	Rationale string `json:"rationale"`
}

// report prints a HIVE_REPORT block and ends the turn.
func (a *Agent) report(rep handoverReport) {
	b, _ := json.MarshalIndent(rep, "", "  ")
	a.Out.Text(fmt.Sprintf("Handing over for a context rollover.\n\n<!--HIVE_REPORT\n%s\nHIVE_REPORT-->", b))
	a.Out.EndTurn()
}

// handover is the partial report of a plan stopped before task next
// (nil: after the last task), with wip the commit of its work so far.
func handover(r *planRun, next *plan.Task, wip *planCommit, awaiting bool, files []string) handoverReport {
	total := len(r.p.Tasks)
	var done []int
	for _, t := range r.p.Tasks {
		if _, ok := r.taskCommit(t.Number); ok {
			done = append(done, t.Number)
		}
	}
	committed := "no task committed yet"
	if len(done) > 0 {
		committed = ranges(done) + " committed"
	}
	why := "hive asked for a context rollover"
	var summary string
	var decisions []decision
	var concerns []string
	switch {
	case next == nil:
		summary = fmt.Sprintf("All %d tasks committed; the SUMMARY is next", total)
		decisions = append(decisions, decision{"Stopped before writing the SUMMARY", why})
		concerns = append(concerns, fmt.Sprintf("%s is not written yet; every task already has its commit", r.p.SummaryPath()))
	case wip != nil:
		summary = fmt.Sprintf("Task %d of %d next: %s (in progress, its work so far in WIP commit %s); %s",
			next.Number, total, taskName(*next), wip.Short, committed)
		decisions = append(decisions, decision{
			fmt.Sprintf("Committed the unfinished task %d as WIP commit %s instead of finishing it", next.Number, wip.Short), why})
		concerns = append(concerns, fmt.Sprintf("Task %d (%s) is half done: finish the work of WIP commit %s (Hive-WIP: %s/%d) and commit the task with its Hive-Task trailer",
			next.Number, taskName(*next), wip.Short, r.p.ID, next.Number))
	case awaiting:
		summary = fmt.Sprintf("Task %d of %d next: %s (%s, waiting for the user's answer); %s",
			next.Number, total, taskName(*next), next.Type, committed)
		decisions = append(decisions, decision{fmt.Sprintf("Left checkpoint task %d open", next.Number), why})
		concerns = append(concerns, fmt.Sprintf("Task %d is a %s still waiting for the user's answer; nothing is left uncommitted", next.Number, next.Type))
	default:
		summary = fmt.Sprintf("Task %d of %d next: %s; %s", next.Number, total, taskName(*next), committed)
		decisions = append(decisions, decision{fmt.Sprintf("Stopped before task %d instead of starting it", next.Number), why})
		concerns = append(concerns, fmt.Sprintf("Nothing is left uncommitted; start at task %d (%s)", next.Number, taskName(*next)))
	}
	prefix := fmt.Sprintf("chore(%s): decision ", r.p.ID)
	for _, c := range r.commits {
		if choice, ok := strings.CutPrefix(c.Subject, prefix); ok {
			decisions = append(decisions, decision{fmt.Sprintf("Task %d: chose %s", c.Task, choice), "the user's answer at the checkpoint"})
		}
	}
	if next != nil {
		concerns = append(concerns, fmt.Sprintf("%s is not written yet", r.p.SummaryPath()))
	}
	return handoverReport{Status: "partial", Summary: summary, Decisions: decisions, Concerns: concerns, Files: files}
}

// ranges writes task numbers as "task 1", "tasks 1-3" or "tasks 1-2, 4".
func ranges(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(ns[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		}
		i = j + 1
	}
	word := "tasks "
	if len(ns) == 1 {
		word = "task "
	}
	return word + strings.Join(parts, ", ")
}
