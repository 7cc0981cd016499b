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
func (s *executor) score(ctx context.Context, snap pipeline.Snapshot) {
	if s.dir == "" {
		return
	}
	ev := s.evidence(snap.Spec.Base)
	var scores []confidence.Score
	seen := map[string]bool{}
	for _, j := range snap.Jobs {
		if j.Attempts == 0 || seen[j.Role] {
			continue
		}
		seen[j.Role] = true
		if sc, _ := s.checkRole(j.Role, snap, ev); sc != nil {
			scores = append(scores, *sc)
		}
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

func (s *executor) roleOf(snap pipeline.Snapshot, job string) string {
	for _, j := range snap.Jobs {
		if j.ID == job {
			return j.Role
		}
	}
	return ""
}

// lineCount is a worktree file's number of lines, and whether it is one.
func (s *executor) lineCount(rel string) (int, bool) {
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
func (s *executor) changes(ctx context.Context, base string) (files, added []string) {
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
