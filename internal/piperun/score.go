package piperun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/plan"
)

// ConfidenceEvent is the journal type of the run's computed confidence,
// one score per role that worked (the machine never steps it).
const ConfidenceEvent = memory.ConfidenceRecord

// ShellRecords are the journal types the shell writes beside the
// machine's events: a replay skips them.
var ShellRecords = []string{DeliveredEvent, WarnedEvent, ContextEvent, ConfidenceEvent, PlannedEvent, PostmortemEvent}

// score computes each role's confidence from the checks hive runs itself
// in the run's worktree, before it goes, and journals it.
func (s *shell) score(ctx context.Context, snap pipeline.Snapshot) {
	if s.dir == "" {
		return
	}
	var build, tests confidence.Run
	var lint []string // the architect's plans as the run last linted them
	_ = s.o.Journal.Each(s.run.ID, func(rec journal.Record) error {
		var ev pipeline.Event
		if json.Unmarshal(rec.Payload, &ev) != nil || string(ev.Type) != rec.Type {
			return nil
		}
		if ev.Type == pipeline.EvLinted {
			lint = ev.Errors
		}
		if ev.Tests == nil {
			return nil
		}
		r := confidence.Run{Ran: ev.Tests.Command != "(none)" && !ev.Tests.Unrunnable, OK: ev.Tests.ExitCode == 0,
			Passed: ev.Tests.Passed, Failed: ev.Tests.Failed, Command: ev.Tests.Command, Output: ev.Tests.Output}
		switch ev.Type {
		case pipeline.EvBuilt:
			build = r
		case pipeline.EvTestsRan:
			tests = r
		}
		return nil
	})
	changed, added := s.changes(ctx, snap.Spec.Base)
	var plans []confidence.Plan
	var planned []string
	if snap.Spec.PhaseDir != "" {
		if ph, err := plan.LoadPhase(s.dir, snap.Spec.PhaseDir); err == nil {
			for _, p := range ph.Plans {
				plans = append(plans, confidencePlan(p))
				planned = append(planned, p.FilesModified...)
			}
		}
	}
	worked := map[string]bool{}
	for _, j := range snap.Jobs {
		if j.Attempts > 0 {
			worked[j.Role] = true
		}
	}
	var scores []confidence.Score
	if worked[pipeline.RoleArchitect] {
		exists := func(p string) bool {
			_, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(p)))
			return err == nil && filepath.IsLocal(p)
		}
		scores = append(scores, confidence.Architect(lint, plans, exists))
	}
	if worked[pipeline.RoleImplementer] {
		scores = append(scores, confidence.Implementer(build, tests, planned, changed, added))
	}
	if worked[pipeline.RoleTester] {
		scores = append(scores, confidence.Tester(tests, changed))
	}
	for _, role := range []string{pipeline.RoleReviewer, pipeline.RoleSecurity} {
		if !worked[role] {
			continue
		}
		var fs []confidence.Finding
		for _, f := range snap.Findings {
			if s.roleOf(snap, f.Job) == role {
				fs = append(fs, confidence.Finding{File: f.File, Line: f.Line})
			}
		}
		scores = append(scores, confidence.Reviewer(role, fs, s.lineCount))
	}
	if len(scores) == 0 {
		return
	}
	payload, _ := json.Marshal(scores)
	if _, err := s.o.Journal.Append(s.run.ID, ConfidenceEvent, s.o.Now().UTC(), payload); err != nil {
		s.o.Observer.Note("", "journal the computed confidence: "+err.Error())
	}
}

// confidencePlan is what the architect's checks read of a plan.
func confidencePlan(p *plan.Plan) confidence.Plan {
	out := confidence.Plan{Text: p.Context + "\n" + p.Objective}
	for _, t := range p.Tasks {
		out.Tasks = append(out.Tasks, confidence.Task{Action: t.Action, ReadFirst: t.ReadFirst, Verify: t.Verify, Done: t.Done + t.AcceptanceCriteria})
	}
	return out
}

func (s *shell) roleOf(snap pipeline.Snapshot, job string) string {
	for _, j := range snap.Jobs {
		if j.ID == job {
			return j.Role
		}
	}
	return ""
}

// lineCount is a worktree file's number of lines, and whether it is one.
func (s *shell) lineCount(rel string) (int, bool) {
	if !filepath.IsLocal(rel) {
		return 0, false
	}
	data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(rel)))
	if err != nil {
		return 0, false
	}
	return bytes.Count(data, []byte("\n")) + 1, true
}

// changes are the files the run changed since base and the lines it added.
func (s *shell) changes(ctx context.Context, base string) (files, added []string) {
	if base == "" {
		return nil, nil
	}
	wt := s.o.Repo.At(s.dir)
	if out, err := wt.Git(ctx, "diff", "--name-only", base, "--"); err == nil {
		files = strings.Fields(out)
	}
	if out, err := wt.Git(ctx, "diff", "-U0", base, "--"); err == nil {
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
				added = append(added, l[1:])
			}
		}
	}
	return slices.Compact(files), added
}

// Confidence is the computed confidence run journaled, if any.
func Confidence(j journal.Journal, run int64) []confidence.Score {
	var out []confidence.Score
	_ = j.Each(run, func(rec journal.Record) error {
		if rec.Type == ConfidenceEvent {
			out = nil
			_ = json.Unmarshal(rec.Payload, &out)
		}
		return nil
	})
	return out
}
