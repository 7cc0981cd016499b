package piperun

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
func (s *shell) warnings(c pipeline.Command) []string {
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
	snap := s.m.Snapshot()
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
	if _, err := s.o.Journal.Append(s.run.ID, WarnedEvent, s.o.Now().UTC(), payload); err != nil {
		s.note(c.Job, "journal the memory's warnings: "+err.Error())
		return nil
	}
	s.note(c.Job, fmt.Sprintf("warned of %d lesson(s) from earlier runs (hive memory show)", len(w.Warnings)))
	return w.Warnings
}

// remember records the finished run in the project's memory.
func (s *shell) remember(run journal.Run) error {
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
