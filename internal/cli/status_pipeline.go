package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/tui"
	"github.com/hivectl/hive/internal/work"
)

// statusPipelineView is the newest run of hive run.
type statusPipelineView struct {
	Kind      string     `json:"kind"` // "pipeline": a run of hive run
	Run       int64      `json:"run"`
	Objective string     `json:"objective"`
	Workflow  string     `json:"workflow"`
	Branch    string     `json:"branch"`
	Started   time.Time  `json:"started"`
	Finished  *time.Time `json:"finished,omitempty"`
	Outcome   string     `json:"outcome,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	// Live says a hive process (PID) drives this unfinished run now;
	// Resume goes on with a stopped one.
	Live   bool                 `json:"live"`
	PID    int                  `json:"pid,omitempty"`
	Resume string               `json:"resume,omitempty"`
	Jobs   []roleplan.Job       `json:"jobs"`
	Open   *roleplan.Checkpoint `json:"open,omitempty"`
	Answer string               `json:"answer,omitempty"` // the command that answers Open
	Spend  work.Spend           `json:"spend"`
	// Temporal names the run's Temporal workflow while one drives it
	// (hive run --backend temporal).
	Temporal string `json:"temporal_workflow,omitempty"`
	// Limit: the run waits for its provider's limit to pass until its
	// until, when the roles go on. Fallback: a usage limit switched the
	// run to models.fallback.
	Limit    *work.LimitWait `json:"limit,omitempty"`
	Fallback bool            `json:"fallback,omitempty"`
	// Handover is how the ended run's work reaches you, as the run decided.
	Handover *roleplan.Handover `json:"handover,omitempty"`
}

// pipelineStatus reads the newest run of hive run; nil when hive run has
// not run here.
func pipelineStatus(o *statusOptions) (*statusPipelineView, error) {
	path := filepath.Join(o.root, ".hive", "runs.db")
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	j, err := journal.Open(path)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	run, ok, err := runjournal.Latest(j)
	if err != nil || !ok {
		return nil, err
	}
	m, err := runjournal.Replay(j, run)
	if err != nil {
		return nil, err
	}
	snap := m.Snapshot()
	v := &statusPipelineView{Kind: "pipeline", Run: run.ID, Objective: snap.Spec.Objective, Workflow: snap.Spec.Workflow.Name,
		Branch: runjournal.RunBranch(j, run), Started: run.Started, Outcome: run.Outcome, Reason: snap.Reason, Jobs: snap.Jobs, Spend: snap.Spent, Limit: snap.Limit, Fallback: snap.Fallback, Handover: snap.Handover}
	if !run.Finished.IsZero() {
		f := run.Finished
		v.Finished = &f
		return v, nil
	}
	v.Open = snap.Open
	if v.Open != nil {
		v.Answer = o.pasteable(o.root, "answer", v.Open.Job, "RESPONSE")
	}
	if v.PID, v.Live = lock.PipelineHolder(o.root); !v.Live {
		v.Resume = o.pasteable(o.root, "run", "--resume")
	}
	return v, nil
}

// printPipelineStatus prints the phases' runs, then hive run's newest.
func printPipelineStatus(o *statusOptions, phases []statusRunView, v *statusPipelineView) error {
	if o.json {
		all := make([]any, 0, len(phases)+1)
		for _, p := range phases {
			all = append(all, p)
		}
		return printJSON(o.stdout, append(all, v))
	}
	printPhaseViews(o, phases)
	if len(phases) > 0 {
		fmt.Fprintln(o.stdout)
	}
	state := runState(v.Finished, v.Outcome, v.Live, v.PID, "stopped — resume with: "+v.Resume)
	fmt.Fprintf(o.stdout, "hive run %d (workflow %s, branch %s), started %s, %s\n", v.Run, v.Workflow, v.Branch, v.Started.Local().Format("2006-01-02 15:04:05"), state)
	fmt.Fprintf(o.stdout, "  objective: %s\n", lines.OneLineClip(v.Objective, 100))
	if v.Temporal != "" {
		fmt.Fprintf(o.stdout, "  Temporal workflow %s\n", v.Temporal)
	}
	tw := tabwriter.NewWriter(o.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "  JOB\tSTATE\tATTEMPTS\tTOKENS\tCOST\tDETAIL")
	for _, jb := range v.Jobs {
		detail := ""
		if r := jb.Report; r != nil {
			detail = r.Status + ": " + r.Summary
		}
		if e := jb.Evaluation; e != nil {
			detail = fmt.Sprintf("confidence %d · %s", e.Confidence(), detail)
		}
		detail = lines.OneLineClip(detail, 60)
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t$%.2f\t%s\n", jb.ID, lines.StateWord(phase.PlanState(jb.State)), jb.Attempts, jb.Spend.InputTokens+jb.Spend.OutputTokens, jb.Spend.CostUSD, detail)
	}
	tw.Flush()
	fmt.Fprintf(o.stdout, "  total: %s\n", lines.SpendText(v.Spend))
	o.limitLines(v.Limit, v.Fallback, v.Finished == nil)
	if v.Reason != "" && v.Outcome != "complete" {
		fmt.Fprintf(o.stdout, "  %s\n", lines.OneLineClip(v.Reason, 200))
	}
	if v.Open != nil {
		fmt.Fprintf(o.stdout, "  %s asks: %s (%s)\n  answer with: %s\n", v.Open.Job, lines.OneLineClip(v.Open.Question, 120), strings.Join(v.Open.Options, " / "), v.Answer)
	}
	return nil
}

// limitLines says what a run waits for at its provider's limit, while it
// is unfinished, and that a usage limit switched it to the fallback agent.
func (o *statusOptions) limitLines(w *work.LimitWait, fallback, unfinished bool) {
	if w != nil && unfinished {
		fmt.Fprintf(o.stdout, "  %s (go on now: %s)\n", tui.LimitText(w, time.Now()), o.pasteable(o.root, "answer", phase.LimitID, phase.ResumeNow))
	}
	if fallback {
		fmt.Fprintln(o.stdout, "  a usage limit switched the run to the fallback agent (models.fallback)")
	}
}
