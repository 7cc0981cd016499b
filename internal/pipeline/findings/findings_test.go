package findings

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

func report(t *testing.T, extra map[string]any) *work.Report {
	t.Helper()
	r := &work.Report{Status: work.ReportComplete, Extra: map[string]json.RawMessage{}}
	for k, v := range extra {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		r.Extra[k] = data
	}
	return r
}

func statuses(fs *Findings) string {
	var out string
	for _, f := range fs.List {
		out += fmt.Sprintf("%s %s %s %s; ", f.ID, f.Severity, f.Title, f.Status)
	}
	return out
}

// A review's issues and remarks become findings, a remark low unless it
// says; one reported again is not new; one sent to a fix and not
// reported again is fixed.
func TestRecord(t *testing.T) {
	fs := &Findings{}
	rev := jobs.New(workflows.RoleReviewer, workflows.RoleReviewer)
	fs.Record(rev, report(t, map[string]any{
		"issues":   []map[string]any{{"severity": "critical", "file": "a.go", "line": 3, "title": "SQL injection"}, {"severity": "medium", "title": "naming"}},
		"comments": []any{"tidy the imports", map[string]any{"comment": "a long function", "severity": "meh"}},
	}))
	if got, want := statuses(fs), "F1 blocker SQL injection open; F2 medium naming open; F3 low tidy the imports open; F4 low a long function open; "; got != want {
		t.Fatalf("findings: %s\nwant:     %s", got, want)
	}
	if f, ok := fs.Severe(rev.ID); !ok || f.ID != "F1" || len(fs.Blockers()) != 1 || len(fs.Blockers("security")) != 0 {
		t.Errorf("severe %v %v, blockers %v", f, ok, fs.Blockers())
	}
	fs.List[0].Status, fs.List[1].Status = roleplan.FindingFixing, roleplan.FindingFixing
	fs.Record(rev, report(t, map[string]any{"issues": []map[string]any{{"severity": "medium", "title": "naming"}}}))
	if got, want := statuses(fs), "F1 blocker SQL injection fixed; F2 medium naming open; F3 low tidy the imports open; F4 low a long function open; "; got != want {
		t.Errorf("after the fix: %s\nwant:        %s", got, want)
	}
}

// run is the machine as the findings see it, recording what they ask.
type run struct {
	b     jobs.Board
	asked []*roleplan.Checkpoint
	done  []string
}

func (r *run) Jobs() *jobs.Board { return &r.b }
func (r *run) Ask(j *jobs.Job, kind roleplan.CheckpointKind, question, details string, options []string, with ...func(*roleplan.Checkpoint)) []roleplan.Command {
	cp := &roleplan.Checkpoint{Job: j.ID, Kind: kind, Question: question, Details: details, Options: options}
	for _, f := range with {
		f(cp)
	}
	r.asked = append(r.asked, cp)
	return []roleplan.Command{{Type: roleplan.CmdCheckpoint, Job: j.ID, Checkpoint: cp}}
}
func (r *run) Done(j *jobs.Job, s roleplan.JobState) []roleplan.Command {
	r.done = append(r.done, j.ID+" "+string(s))
	return nil
}
func (r *run) Finish(outcome, reason string) []roleplan.Command { return nil }

// Open blockers hold the run at a checkpoint; an accepted blocker (with
// its reason) and deferred others let it go on.
func TestGateAndAnswer(t *testing.T) {
	r := &run{}
	rev := jobs.New(workflows.RoleReviewer, workflows.RoleReviewer)
	r.b.Add(rev)
	fs := &Findings{}
	fs.Record(rev, report(t, map[string]any{"issues": []map[string]any{{"severity": "blocker", "title": "no auth"}, {"severity": "low", "title": "typo"}}}))
	fs.Gate(r, rev, []string{rev.ID}, false)
	if len(r.asked) != 1 || r.asked[0].Kind != roleplan.KindFindings || len(r.asked[0].Findings) != 2 {
		t.Fatalf("asked %+v", r.asked)
	}
	cp := r.asked[0]
	if err := cp.Check("continue"); err == nil {
		t.Error("continue passed an open blocker")
	}
	fs.Answer(r, rev, cp, "defer")
	fs.Answer(r, rev, r.asked[len(r.asked)-1], "accept F1 internal only")
	if got, want := statuses(fs), "F1 blocker no auth accepted; F2 low typo deferred; "; got != want || len(r.done) != 1 {
		t.Errorf("findings %s, done %v; want %s", got, r.done, want)
	}
	if fs.List[0].Reason != "internal only" {
		t.Errorf("reason %q", fs.List[0].Reason)
	}
}
