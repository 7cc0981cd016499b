package runreport

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/screenshots"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
)

// Report is the account of one run: what hive report prints.
type Report struct {
	Run        int64                `json:"run"`
	Objective  string               `json:"objective"`
	Workflow   string               `json:"workflow"`
	Started    time.Time            `json:"started"`
	Finished   time.Time            `json:"finished,omitzero"`
	Outcome    string               `json:"outcome"` // "" while unfinished
	Open       *roleplan.Checkpoint `json:"open,omitempty"`
	Roles      []RoleReport         `json:"roles"`
	Challenges []roleplan.Challenge `json:"challenges,omitempty"`
	Decisions  []roleplan.Decision  `json:"decisions,omitempty"`
	FixLoops   int                  `json:"fix_loops"`
	Tests      *roleplan.Tests      `json:"tests,omitempty"`
	Branch     string               `json:"branch"`
	Merged     bool                 `json:"merged"`
	Commits    []string             `json:"commits,omitempty"` // "hash subject", oldest first
	Spend      work.Spend           `json:"spend"`
	// Implementers are the architect's plans as their implementers ran
	// them; Parallel says two of them worked at the same time.
	Implementers []roleplan.PlanRun `json:"implementers,omitempty"`
	Parallel     bool               `json:"parallel"`
	// Screenshots are the browser validator's, as hive kept them
	// (relative to the repository).
	Screenshots []string `json:"screenshots,omitempty"`
	// Postmortem is the run told in one paragraph (Postmortem).
	Postmortem string `json:"postmortem"`
	// Confidence is each role's computed confidence, from hive's own
	// checks as the run ended.
	Confidence []confidence.Score `json:"confidence,omitempty"`
	// Timeline is where the run's wall time went, step by step, and how
	// much of it was hive's own.
	Timeline Timeline `json:"timeline"`
	// PullRequest is the run's pull request as hive followed it (hive run
	// --follow): each round's failures and comments, and the fix pushed.
	PullRequest *roleplan.Following `json:"pull_request,omitempty"`
	// Snapshot is the run's state, for the pipeline view.
	Snapshot roleplan.Snapshot `json:"-"`
}

// RoleReport is one role's part.
type RoleReport struct {
	Job      string        `json:"job"`
	Role     string        `json:"role"`
	State    string        `json:"state"`
	Attempts int           `json:"attempts"`
	Duration time.Duration `json:"duration_ns"`
	Spend    work.Spend    `json:"spend"`
	Status   string        `json:"status,omitempty"` // its last HIVE_REPORT's
	Summary  string        `json:"summary,omitempty"`
}

// Build replays run and reads its commits from repo.
func Build(ctx context.Context, j journal.Journal, repo *gitx.Repo, run journal.Run) (Report, error) {
	m := pipeline.New()
	started := map[string]time.Time{}
	busy := map[string]time.Duration{}
	var delivered *runjournal.Delivery
	tl := newTimeline(run.Started)
	last := run.Started
	err := j.Each(run.ID, func(rec journal.Record) error {
		last = rec.Time
		if rec.Type == runjournal.DeliveredEvent {
			delivered = &runjournal.Delivery{}
			return json.Unmarshal(rec.Payload, delivered)
		}
		if slices.Contains(runjournal.ShellRecords, rec.Type) {
			return nil
		}
		var ev roleplan.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("event %d: %w", rec.Seq, err)
		}
		before := states(m.Snapshot())
		cmds, err := m.Step(ev)
		if err != nil {
			return nil
		}
		after := m.Snapshot()
		roles := map[string]string{}
		for _, jb := range after.Jobs {
			roles[jb.ID] = jb.Role
		}
		tl.step(ev, rec.Time, cmds, roles)
		// A job works from the event that started it to the one that
		// settled it: that is its time, summed over its attempts.
		for _, jb := range after.Jobs {
			was, now := before[jb.ID], jb
			working := now.State == roleplan.Running || now.State == roleplan.Checking
			if working && (now.Attempts != was.Attempts || !(was.State == roleplan.Running || was.State == roleplan.Checking)) {
				started[jb.ID] = rec.Time
			}
			if !working && (was.State == roleplan.Running || was.State == roleplan.Checking) {
				busy[jb.ID] += rec.Time.Sub(started[jb.ID])
			}
		}
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	s := m.Snapshot()
	r := Report{Run: run.ID, Objective: s.Spec.Objective, Workflow: s.Spec.Workflow.Name, Started: run.Started, Finished: run.Finished,
		Outcome: run.Outcome, Open: s.Open, Challenges: s.Challenges, Decisions: s.Decisions, FixLoops: s.FixLoops, Tests: s.Tests,
		Branch: s.Spec.Branch, PullRequest: s.Follow}
	if r.Branch == "" {
		r.Branch = runjournal.Branch(run.ID) // a run from before branches were named
	}
	if run.Finished.IsZero() {
		r.Outcome = ""
		r.Timeline = tl.done(last)
	} else {
		r.Timeline = tl.done(run.Finished)
	}
	for _, jb := range s.Jobs {
		rr := RoleReport{Job: jb.ID, Role: jb.Role, State: string(jb.State), Attempts: jb.Attempts, Duration: busy[jb.ID], Spend: jb.Spend}
		if jb.Report != nil {
			rr.Status, rr.Summary = jb.Report.Status, jb.Report.Summary
		}
		r.Roles = append(r.Roles, rr)
		r.Spend = r.Spend.Plus(jb.Spend)
	}
	tip := r.Branch
	if delivered != nil {
		r.Merged, tip = delivered.Merged, delivered.Tip
	}
	r.Snapshot = s
	r.Implementers = s.Plans
	for i, p := range s.Plans {
		for _, q := range s.Plans[i+1:] {
			if p.Started.Before(q.Finished) && q.Started.Before(p.Finished) {
				r.Parallel = true
			}
		}
	}
	if entries, err := os.ReadDir(filepath.Join(repo.Root, screenshots.Dir(run.ID))); err == nil {
		for _, e := range entries {
			r.Screenshots = append(r.Screenshots, filepath.ToSlash(filepath.Join(screenshots.Dir(run.ID), e.Name())))
		}
	}
	r.Confidence = runjournal.Confidence(j, run.ID)
	r.Postmortem = Postmortem(r)
	if n := runjournal.Narrative(j, run.ID); n != "" {
		r.Postmortem = n
	}
	if s.Spec.Base != "" && tip != "" {
		if out, err := repo.Git(ctx, "log", "--reverse", "--format=%h %s", s.Spec.Base+".."+tip, "--"); err == nil {
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if line != "" {
					r.Commits = append(r.Commits, line)
				}
			}
		}
	}
	return r, nil
}

// FailedChecks are hive's own checks that failed, each with its role
// ("tests pass (implementer)"), skipped ones aside.
func (r Report) FailedChecks() []string {
	var out []string
	for _, sc := range r.Confidence {
		for _, name := range sc.Failed() {
			out = append(out, name+" ("+sc.Role+")")
		}
	}
	return out
}

func states(s roleplan.Snapshot) map[string]roleplan.Job {
	out := map[string]roleplan.Job{}
	for _, j := range s.Jobs {
		out[j.ID] = j
	}
	return out
}
