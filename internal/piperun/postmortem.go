package piperun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/work"
)

// PostmortemPath is where run id's postmortem is kept, relative to the
// repository.
func PostmortemPath(id int64) string {
	return filepath.Join(".hive", "runs", fmt.Sprint(id), "postmortem.md")
}

// Postmortem is the paragraph a developer wants before the next task on
// the codebase (seed 003 §6.2), told from the run's report: what it set
// out to do and how it ended, which roles needed more than one attempt,
// the challenges, the fix loops, the decisions, the findings and what
// became of them. It is built from the journal alone, the same every time.
func Postmortem(r Report) string {
	var s []string
	end := "did not finish"
	switch r.Outcome {
	case pipeline.OutcomeComplete:
		end = "completed"
	case "":
		end = "is still under way"
	default:
		end = "ended " + r.Outcome
		if reason := r.Snapshot.Reason; reason != "" {
			end += " (" + oneLine(reason) + ")"
		}
	}
	took := ""
	if !r.Finished.IsZero() {
		took = " in " + r.Finished.Sub(r.Started).Round(time.Second).String()
	}
	s = append(s, fmt.Sprintf("Run %d (workflow %s) set out to %s and %s%s, spending $%.2f.", r.Run, r.Workflow, strings.TrimSuffix(r.Objective, "."), end, took, r.Spend.CostUSD))
	var again []string
	for _, role := range r.Roles {
		if role.Attempts > 1 {
			again = append(again, fmt.Sprintf("the %s %d", role.Job, role.Attempts))
		}
	}
	if len(again) > 0 {
		s = append(s, "Attempts beyond the first: "+strings.Join(again, ", ")+".")
	}
	for _, c := range r.Challenges {
		s = append(s, fmt.Sprintf("The %s challenged the %s (round %d): %s.", c.From, c.To, c.Round, strings.TrimSuffix(oneLine(c.Issue), ".")))
	}
	if r.FixLoops > 0 {
		s = append(s, fmt.Sprintf("%d fix loop(s) sent failing tests or a failing build back to be fixed.", r.FixLoops))
	}
	for _, d := range r.Snapshot.Decisions {
		// Quoted as written: %q would escape the question's own quotes.
		s = append(s, fmt.Sprintf(`Asked "%s", the run went with "%s" (%s).`, oneLine(d.Question), oneLine(d.Choice), d.By))
	}
	counts := map[string]int{}
	var accepted []string
	for _, f := range r.Snapshot.Findings {
		counts[f.Status]++
		if f.Status == pipeline.FindingAccepted {
			accepted = append(accepted, fmt.Sprintf("%s (%s)", oneLine(f.Title), f.Reason))
		}
	}
	if n := len(r.Snapshot.Findings); n > 0 {
		s = append(s, fmt.Sprintf("Reviewers reported %d finding(s): %d fixed, %d accepted, %d deferred, %d open.", n,
			counts[pipeline.FindingFixed], counts[pipeline.FindingAccepted], counts[pipeline.FindingDeferred], counts[pipeline.FindingOpen]))
	}
	if len(accepted) > 0 {
		s = append(s, "Accepted as they are: "+strings.Join(accepted, "; ")+".")
	}
	switch t := r.Tests; {
	case t == nil:
	case t.None && t.Command != "":
		s = append(s, fmt.Sprintf("No test ran (%s found none): the work is not verified by tests.", t.Command))
	case t.None:
		s = append(s, "No test ran (hive found no tests): the work is not verified by tests.")
	case t.Ran():
		s = append(s, fmt.Sprintf("The last test run (%s) passed %d and failed %d.", t.Command, t.Passed, t.Failed))
	}
	if failed := r.FailedChecks(); len(failed) > 0 {
		s = append(s, "Hive's own checks failed: "+strings.Join(failed, ", ")+".")
	}
	if len(again) == 0 && len(r.Challenges) == 0 && r.FixLoops == 0 && len(r.Snapshot.Findings) == 0 && r.Outcome == pipeline.OutcomeComplete {
		s = append(s, "Nothing went back for rework.")
	}
	return strings.Join(s, " ")
}

// writePostmortem keeps the run's postmortem in the repository's .hive.
func writePostmortem(root string, r Report) error {
	path := filepath.Join(root, PostmortemPath(r.Run))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	text := fmt.Sprintf("# Run %d: %s\n\n%s\n", r.Run, r.Objective, r.Postmortem)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// PostmortemEvent is the journal type of the narrative a model wrote of
// the run (the machine never steps it).
const PostmortemEvent = "run-postmortem"

// PostmortemRecord is a PostmortemEvent's payload: the model's paragraph,
// or why there is none (the template's then tells the run).
type PostmortemRecord struct {
	Narrative string `json:"narrative,omitempty"`
	Error     string `json:"error,omitempty"`
	Tokens    int64  `json:"tokens"`
}

// tell asks the postmortem model (Options.Postmortem) for the run's
// paragraph, from the facts the template tells, and journals what came of
// it before the run is marked finished.
func (s *executor) tell(ctx context.Context, run journal.Run) {
	if s.o.Postmortem == nil {
		return
	}
	rep, err := BuildReport(ctx, s.o.Journal, s.o.Repo, run)
	if err != nil {
		return
	}
	facts := Postmortem(rep)
	var t PostmortemRecord
	_, text, err := roles.Resolve(s.o.Repo.Root, s.o.Home, pipeline.RolePostmortem)
	if err == nil {
		var prompt string
		prompt, err = roles.Render(pipeline.RolePostmortem, text, roles.Data{Role: pipeline.RolePostmortem, Objective: rep.Objective,
			Parts: []roles.Part{{Title: "What the run's journal says", Text: facts}}})
		if err == nil {
			var r *work.Report
			var spent work.Spend
			r, spent, err = oneShot(ctx, oneShotCall{Root: s.o.Repo.Root, Launcher: s.o.Postmortem, Role: pipeline.RolePostmortem, Attempt: 1,
				Prompt: prompt, Model: s.o.PostmortemModel, Timeout: 2 * time.Minute, Prices: s.o.Prices})
			t.Tokens = spent.InputTokens + spent.OutputTokens
			if err == nil {
				_ = json.Unmarshal(r.Extra["narrative"], &t.Narrative)
				if t.Narrative = strings.TrimSpace(t.Narrative); t.Narrative == "" {
					err = fmt.Errorf("the answer has no narrative (status %s)", r.Status)
				}
			}
		}
	}
	if err != nil {
		t.Error = err.Error()
		s.o.Observer.Note("", "the postmortem model: "+t.Error+"; hive's own paragraph tells the run")
	}
	payload, _ := json.Marshal(t)
	if _, err := s.o.Journal.Append(s.run.ID, PostmortemEvent, s.o.Now().UTC(), payload); err != nil {
		s.o.Observer.Note("", "journal the postmortem: "+err.Error())
	}
}

// told is the model's paragraph of run, if one was journaled.
func told(j journal.Journal, run int64) string {
	var t PostmortemRecord
	_ = j.Each(run, func(rec journal.Record) error {
		if rec.Type == PostmortemEvent {
			t = PostmortemRecord{}
			_ = json.Unmarshal(rec.Payload, &t)
		}
		return nil
	})
	return t.Narrative
}
