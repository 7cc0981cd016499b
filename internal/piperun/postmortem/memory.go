package postmortem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/claudemd"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/roleplan"
)

// Remember records the finished run in the project's memory.
func (p Project) Remember(run journal.Run) error {
	f, err := memory.FromJournal(p.Journal, run)
	if err != nil {
		return err
	}
	st, err := memory.Open(filepath.Join(p.Repo.Root, memory.Path))
	if err != nil {
		return err
	}
	return errors.Join(st.Record(f), st.Close())
}

// Learn records run, completed (snap is its machine's last state), in
// the project's memory and brings CLAUDE.md's Hive Learnings up to date on
// the run's branch, as hive's own commit, before the work is delivered.
// It returns notes for the user.
func (p Project) Learn(ctx context.Context, run journal.Run, snap roleplan.Snapshot) []string {
	if snap.Outcome != roleplan.OutcomeComplete || p.Dir == "" {
		return nil
	}
	run.Outcome, run.Finished = snap.Outcome, p.Now()
	if err := p.Remember(run); err != nil {
		return []string{"could not record the run in the project's memory (hive memory rebuild retries): " + err.Error()}
	}
	st, err := memory.Open(filepath.Join(p.Repo.Root, memory.Path))
	if err != nil {
		return []string{"the project's memory: " + err.Error()}
	}
	lines, err := st.Learnings(claudemd.MaxLines)
	st.Close()
	if err != nil {
		return nil
	}
	path := filepath.Join(p.Dir, "CLAUDE.md")
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
	wt := p.Repo.At(p.Dir)
	before, _ := wt.Head(ctx)
	if err := wt.CommitOnly(ctx, fmt.Sprintf("docs(hive): learnings of run %d in CLAUDE.md", run.ID), "CLAUDE.md"); err != nil {
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
