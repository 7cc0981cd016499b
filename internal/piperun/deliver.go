package piperun

import (
	"context"
	"encoding/json"

	"github.com/hivectl/hive/internal/piperun/delivery"
	"github.com/hivectl/hive/internal/piperun/postmortem"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
)

// runBranch is the branch the run being resumed works on: the one its
// spec recorded, hive/run/N for a run from before branches were named,
// or a new hive/WORKFLOW/SLUG for a run killed before its start.
func (s *driver) runBranch(ctx context.Context) string {
	if s.m.Started() {
		if b := s.m.Snapshot().Spec.Branch; b != "" {
			return b
		}
		return runjournal.Branch(s.run.ID)
	}
	return delivery.NewBranch(ctx, s.o.Repo, s.o.Workflow.Name, s.o.Objective, s.run.ID)
}

// deliverer is the run's work as delivery hands it over.
func (s *executor) deliverer() *delivery.Work {
	return &delivery.Work{Repo: s.o.Repo, Journal: s.o.Journal, Run: s.run, Dir: s.dir, Branch: s.branch, WorktreeRoot: s.o.WorktreeRoot,
		Elsewhere: s.o.Elsewhere, PRPoll: s.o.PRPoll, Note: s.note}
}

// project is the project the run ends in, for what the run leaves it.
func (s *executor) project() postmortem.Project {
	return postmortem.Project{Repo: s.o.Repo, Journal: s.o.Journal, Dir: s.dir, Now: s.o.Now,
		Note: func(text string) { s.o.Observer.Note("", text) }}
}

// deliver hands the finished run's work to the user and journals how.
func (s *executor) deliver(ctx context.Context, res *Result) {
	s.score(res.Snapshot)
	w := s.deliverer()
	learned := append(s.project().Learn(ctx, s.run, res.Snapshot), w.KeepPlans(ctx, res.Snapshot)...)
	learned = append(learned, w.KeepLeftovers(ctx)...)
	tip, _ := s.o.Repo.At(s.dir).Head(ctx)
	d := w.HandOver(ctx, res.Snapshot)
	d.Tip, d.Branch, d.Notes = tip, s.branch, append(learned, d.Notes...)
	res.Merged, res.Pushed, res.PullRequest, res.Undelivered, res.Notes = d.Merged, d.Pushed, d.PullRequest, d.Undelivered, d.Notes
	s.record(d)
}

// score computes each role's confidence from the checks hive runs itself
// in the run's worktree, before it goes, and journals it.
func (s *executor) score(snap roleplan.Snapshot) {
	if s.dir == "" {
		return
	}
	scores := s.evaluator().Scores(snap)
	if len(scores) == 0 {
		return
	}
	payload, _ := json.Marshal(scores)
	if _, err := s.o.Journal.Append(s.run.ID, runjournal.ConfidenceEvent, s.o.Now().UTC(), payload); err != nil {
		s.o.Observer.Note("", "journal the computed confidence: "+err.Error())
	}
}

func (s *executor) record(d runjournal.Delivery) {
	payload, _ := json.Marshal(d)
	if _, err := s.o.Journal.Append(s.run.ID, runjournal.DeliveredEvent, s.o.Now().UTC(), payload); err != nil {
		s.o.Observer.Note("", "journal the delivery: "+err.Error())
	}
}

// publish is how a new run is to publish its work: "pr", "push" or "".
func (o Options) publish() string {
	switch {
	case o.PR || o.Follow:
		return "pr"
	case o.Push:
		return "push"
	}
	return ""
}
