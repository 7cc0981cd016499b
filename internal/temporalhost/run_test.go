package temporalhost

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/workflows"
)

// A run begun with --git-remote and resumed on Temporal without it goes
// on through the remote it started with, which holds its work; another
// remote is refused, and a run without one keeps none.
func TestResumeGoesOnThroughTheRunsRemote(t *testing.T) {
	j, err := journal.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	started := func(remote string) {
		run, err := j.CreateRun(runjournal.Key, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(roleplan.Event{Type: roleplan.EvStarted, Spec: &roleplan.Spec{Objective: "x", Workflow: workflows.Quick, Remote: remote}})
		if _, err := j.Append(run.ID, string(roleplan.EvStarted), time.Now(), payload); err != nil {
			t.Fatal(err)
		}
	}
	var said strings.Builder
	resume := func(flag string) (*Run, error) {
		o := &Run{Run: &runconfig.Run{Stderr: &said, Resume: true}, Remote: flag}
		return o, resumeRemote(o, j)
	}
	started("origin")
	if o, err := resume(""); err != nil || o.Remote != "origin" || !strings.Contains(said.String(), "goes on through the git remote origin, as it started") {
		t.Errorf("resumed without --git-remote: remote %q, %v, said %q", o.Remote, err, said.String())
	}
	if o, err := resume("origin"); err != nil || o.Remote != "origin" {
		t.Errorf("resumed with its own remote: %q, %v", o.Remote, err)
	}
	if _, err := resume("backup"); err == nil || !strings.Contains(err.Error(), "started with --git-remote origin, which holds its work") {
		t.Errorf("resumed with another remote: %v", err)
	}
	j.FinishRun(1, time.Now(), "abandoned")
	started("")
	if o, err := resume(""); err != nil || o.Remote != "" {
		t.Errorf("a run without a remote resumed: %q, %v", o.Remote, err)
	}
}
