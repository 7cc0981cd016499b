package checkpoints

import (
	"testing"

	"github.com/hivectl/hive/internal/phase"
)

// Answers read as the checkpoint's kind asks: a decision's option by its
// number, a merge conflict's done in any case, a failure's choices only.
func TestRead(t *testing.T) {
	decision := &phase.Checkpoint{ID: 3, Kind: phase.KindCheckpoint, Type: "decision", Options: []string{"sqlite", "bolt"}}
	failure := &phase.Checkpoint{ID: 4, Kind: phase.KindFailure}
	merge := &phase.Checkpoint{ID: 5, Kind: phase.KindMerge}
	for _, c := range []struct {
		cp          *phase.Checkpoint
		ev          phase.Event
		want, error string
	}{
		{decision, phase.Event{Text: "2"}, "bolt", ""},
		{decision, phase.Event{Text: "SQLite"}, "sqlite", ""},
		{decision, phase.Event{Text: "3"}, "", `plan 01-01's decision has no option "3": answer one of sqlite, bolt (or its number)`},
		{decision, phase.Event{Text: "bolt", CheckpointID: 2}, "", "checkpoint 2 of plan 01-01 is no longer open (the open one is 3)"},
		{failure, phase.Event{Text: "retry please"}, "retry please", ""},
		{failure, phase.Event{Text: "later"}, "", `plan 01-01 failed: answer retry, skip or abort, not "later"`},
		{merge, phase.Event{Text: "DONE now"}, "done", ""},
		{nil, phase.Event{Text: "yes"}, "", "plan 01-01 has no open checkpoint"},
	} {
		got, err := Read(c.cp, "01-01", c.ev)
		if got != c.want || (err == nil) != (c.error == "") || (err != nil && err.Error() != c.error) {
			t.Errorf("Read(%v, %q) = %q, %v; want %q, %q", c.cp, c.ev.Text, got, err, c.want, c.error)
		}
	}
}

// A permission's answer: allow, deny with what to tell the agent, always.
func TestPermissionAnswers(t *testing.T) {
	cp := &phase.Checkpoint{Kind: phase.KindPermission, Tool: "Bash"}
	if text, reason := Granted(cp, "no: use Read"); text != "deny" || reason != "The human denied permission to use Bash (through hive). They said: use Read" {
		t.Errorf("deny = %q, %q", text, reason)
	}
	if text, _ := Granted(cp, "3"); text != "allow" {
		t.Errorf("always = %q, want allow", text)
	}
	if _, _, ok := PermissionChoice("maybe"); ok {
		t.Error("maybe read as a permission answer")
	}
}

// --yes retries a failed plan once, then skips it; it never answers a
// checkpoint only a human may.
func TestAuto(t *testing.T) {
	failure := &phase.Checkpoint{Kind: phase.KindFailure}
	if a, _ := Auto(failure, false); a != "retry" {
		t.Errorf("first failure: %q", a)
	}
	if a, _ := Auto(failure, true); a != "skip" {
		t.Errorf("second failure: %q", a)
	}
	if _, ok := Auto(&phase.Checkpoint{Kind: phase.KindCheckpoint, Type: "human-verify", Gate: "blocking-human"}, false); ok {
		t.Error("--yes answered a blocking-human checkpoint")
	}
}
