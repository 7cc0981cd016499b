package engine

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// reported handles a plan agent's HIVE_REPORT. The report is kept on the
// plan (the last one wins); complete and partial only say how the work
// went (the disk and PLAN COMPLETE still decide that it is done); blocked
// fails the plan like PLAN FAILED; needs_input and challenge stop for a
// human, needs_input with its default choice when --yes may take it.
func (e *Engine) reported(out []phase.Command, p *plan, r *work.Report) []phase.Command {
	p.Report = r
	switch r.Status {
	case work.ReportBlocked:
		why := firstOf(r.Blocker, r.Summary, "no reason given")
		return e.failing(out, p, "the agent reported blocked: "+why, false)
	case work.ReportNeedsInput:
		cp := &phase.Checkpoint{Kind: phase.KindCheckpoint, Type: phase.TypeNeedsInput,
			Details:  firstOf(r.Blocker, r.Summary, "the agent needs input"),
			Awaiting: "answer with what the agent needs",
			Options:  append([]string(nil), r.Options...),
			Default:  r.DefaultChoice,
		}
		if len(cp.Options) > 0 {
			cp.Awaiting = "choose one of: " + strings.Join(cp.Options, ", ")
		}
		if !r.CanProceedWithDefault {
			cp.Default = ""
		}
		p.lastAnswered = nil
		return e.raise(out, p, cp)
	case work.ReportChallenge:
		details := firstOf(r.Issue, r.Summary, "the agent raises a challenge")
		if r.ChallengedAgent != "" {
			details = fmt.Sprintf("challenges %s: %s", r.ChallengedAgent, details)
		}
		for _, kv := range [][2]string{{"evidence", r.Evidence}, {"suggestion", r.Suggestion}, {"severity", r.Severity}} {
			if kv[1] != "" {
				details += "\n" + kv[0] + ": " + kv[1]
			}
		}
		p.lastAnswered = nil
		return e.raise(out, p, &phase.Checkpoint{Kind: phase.KindCheckpoint, Type: phase.TypeChallenge, Details: details,
			Awaiting: "accept (the agent goes on with its suggestion), or say how to proceed"})
	}
	return out
}

func firstOf(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}
