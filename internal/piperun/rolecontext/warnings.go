package rolecontext

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
)

// Warnings are what the project's memory warns c's role of, journaled
// before the role is told. No memory yet, or one hive cannot read, is no
// warning (and a note).
func (cu *Curator) Warnings(c roleplan.Command, snap roleplan.Snapshot) []string {
	path := filepath.Join(cu.Repo.Root, memory.Path)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	st, err := memory.Open(path)
	if err != nil {
		cu.Note(c.Job, "the project's memory: "+err.Error())
		return nil
	}
	defer st.Close()
	text := snap.Spec.Objective
	if ctx := c.Context; ctx != nil {
		for _, f := range ctx.Findings {
			text += " " + f.File
		}
		for _, t := range []*roleplan.Tests{ctx.Fix, ctx.BuildFailed} {
			if t != nil {
				text += " " + t.Output
			}
		}
	}
	es, err := st.Warnings(c.Role, memory.FilesIn(text))
	if err != nil || len(es) == 0 {
		return nil
	}
	w := runjournal.Warned{Job: c.Job, Attempt: c.Attempt}
	for _, e := range es {
		w.Keys, w.Warnings = append(w.Keys, e.Key), append(w.Warnings, e.Warning())
	}
	payload, _ := json.Marshal(w)
	if cu.Journal == nil {
		return w.Warnings // a worker away from the run's folder: told, not journaled
	}
	if _, err := cu.Journal.Append(cu.Run.ID, runjournal.WarnedEvent, cu.Now().UTC(), payload); err != nil {
		cu.Note(c.Job, "journal the memory's warnings: "+err.Error())
		return nil
	}
	cu.Note(c.Job, fmt.Sprintf("warned of %d lesson(s) from earlier runs (hive memory show)", len(w.Warnings)))
	return w.Warnings
}
