package piperun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/claudemd"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/pipeline"
)

// WarnedEvent is the journal type of the warnings a role was given (the
// machine never steps it): a run can be explained from its journal.
const WarnedEvent = "memory-warned"

// Warned is a WarnedEvent's payload.
type Warned struct {
	Job      string   `json:"job"`
	Attempt  int      `json:"attempt"`
	Keys     []string `json:"keys"`
	Warnings []string `json:"warnings"`
}

// warnings are what the project's memory warns c's role of, journaled
// before the role is told. No memory yet, or one hive cannot read, is no
// warning (and a note).
func (s *executor) warnings(c pipeline.Command, snap pipeline.Snapshot) []string {
	path := filepath.Join(s.o.Repo.Root, memory.Path)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	st, err := memory.Open(path)
	if err != nil {
		s.note(c.Job, "the project's memory: "+err.Error())
		return nil
	}
	defer st.Close()
	text := snap.Spec.Objective
	if ctx := c.Context; ctx != nil {
		for _, f := range ctx.Findings {
			text += " " + f.File
		}
		for _, t := range []*pipeline.Tests{ctx.Fix, ctx.BuildFailed} {
			if t != nil {
				text += " " + t.Output
			}
		}
	}
	es, err := st.Warnings(c.Role, memory.FilesIn(text))
	if err != nil || len(es) == 0 {
		return nil
	}
	w := Warned{Job: c.Job, Attempt: c.Attempt}
	for _, e := range es {
		w.Keys, w.Warnings = append(w.Keys, e.Key), append(w.Warnings, e.Warning())
	}
	payload, _ := json.Marshal(w)
	if s.o.Journal == nil {
		return w.Warnings // a worker away from the run's folder: told, not journaled
	}
	if _, err := s.o.Journal.Append(s.run.ID, WarnedEvent, s.o.Now().UTC(), payload); err != nil {
		s.note(c.Job, "journal the memory's warnings: "+err.Error())
		return nil
	}
	s.note(c.Job, fmt.Sprintf("warned of %d lesson(s) from earlier runs (hive memory show)", len(w.Warnings)))
	return w.Warnings
}

// remember records the finished run in the project's memory.
func (s *executor) remember(run journal.Run) error {
	f, err := memory.FromJournal(s.o.Journal, run)
	if err != nil {
		return err
	}
	st, err := memory.Open(filepath.Join(s.o.Repo.Root, memory.Path))
	if err != nil {
		return err
	}
	return errors.Join(st.Record(f), st.Close())
}

// learn records a completed run in the project's memory and brings
// CLAUDE.md's Hive Learnings up to date on the run's branch, as hive's own
// commit, before the work is delivered. It returns notes for the user.
func (s *executor) learn(ctx context.Context, snap pipeline.Snapshot) []string {
	if snap.Outcome != pipeline.OutcomeComplete || s.dir == "" {
		return nil
	}
	run := s.run
	run.Outcome, run.Finished = snap.Outcome, s.o.Now()
	if err := s.remember(run); err != nil {
		return []string{"could not record the run in the project's memory (hive memory rebuild retries): " + err.Error()}
	}
	st, err := memory.Open(filepath.Join(s.o.Repo.Root, memory.Path))
	if err != nil {
		return []string{"the project's memory: " + err.Error()}
	}
	lines, err := st.Learnings(claudemd.MaxLines)
	st.Close()
	if err != nil {
		return nil
	}
	path := filepath.Join(s.dir, "CLAUDE.md")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return []string{"CLAUDE.md: " + err.Error()}
	}
	if len(lines) == 0 && !bytes.Contains(old, []byte(claudemd.Start)) {
		return nil // nothing learned, and no section to empty
	}
	next, err := claudemd.Splice(old, claudemd.Section(lines))
	if err != nil {
		return []string{err.Error() + "; its Hive Learnings were not updated"}
	}
	if !bytes.Equal(old, next) {
		tmp := path + ".hive-tmp"
		if err := os.WriteFile(tmp, next, 0o644); err != nil {
			return []string{"CLAUDE.md: " + err.Error()}
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return []string{"CLAUDE.md: " + err.Error()}
		}
	}
	// Committed even when the file already reads right: a hive killed
	// between its write and its commit left it so (a no-op otherwise).
	wt := s.o.Repo.At(s.dir)
	before, _ := wt.Head(ctx)
	if err := wt.CommitOnly(ctx, fmt.Sprintf("docs(hive): learnings of run %d in CLAUDE.md", s.run.ID), "CLAUDE.md"); err != nil {
		return []string{"commit CLAUDE.md's Hive Learnings: " + err.Error()}
	}
	if after, _ := wt.Head(ctx); after == before {
		return nil // nothing new
	}
	if len(lines) == 0 {
		return []string{"CLAUDE.md: Hive Learnings emptied (every lesson in it was forgotten)"}
	}
	return []string{fmt.Sprintf("CLAUDE.md: Hive Learnings now holds %d learning(s) (hive memory show)", len(lines))}
}
