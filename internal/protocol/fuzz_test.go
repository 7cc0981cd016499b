package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add("PROGRESS: Task 2/5 complete: feat(03-01): add user model")
	f.Add("PLAN COMPLETE\n\n**Plan:** 03-01\n**Tasks:** 3/3\n**Commits:**\n- abc feat")
	f.Add("PLAN FAILED\n**Error:** x")
	f.Add("CHECKPOINT: decision\nPROGRESS: 9/3\n### Checkpoint Details\n1. **a** - x\n- b: y\n[c] z\n| Option | Pros |\n|---|---|\n| d | e |\n### Awaiting\n")
	f.Add("## CHECKPOINT REACHED\n### Completed Tasks\n| Task | Name | Commit | Files |\n| 1 | n | c | f, g |\n### Current Task\n**Task 2:** x\n")
	f.Add("x\n### Checkpoint Details\n### Awaiting\n")
	f.Add("DEVIATION: rule-4\r\nPLAN: 1\r\nTASK: 2\r\n\r\nx")
	f.Add("<!--HIVE_REPORT\n{\"status\":\"challenge\",\"issue\":\"x\"}\nHIVE_REPORT-->\nPLAN COMPLETE")
	f.Add("<!--HIVE_REPORT {\"status\":\"complete\"\nCHECKPOINT: decision\n")
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		norm := strings.ReplaceAll(s, "\r\n", "\n")
		for _, m := range Parse(s) {
			switch m.Kind {
			case Progress, Complete, Failed:
				if m.Checkpoint != nil || m.Deviation != nil {
					t.Fatalf("%s message carries a checkpoint or deviation", m.Kind)
				}
			case Checkpoint:
				checkCheckpoint(t, m, norm)
			case Deviation:
				d := m.Deviation
				if d == nil || d.Rule == "" || m.Checkpoint != nil {
					t.Fatalf("bad deviation %s", dump(m))
				}
				if !strings.Contains(norm, d.Raw) {
					t.Fatalf("deviation Raw %q is not in the text", d.Raw)
				}
			case HiveReport:
				r := m.Report
				if r == nil || m.Checkpoint != nil || m.Deviation != nil || (r.Err == "") != (r.Status != "") {
					t.Fatalf("bad report %s", dump(m))
				}
			default:
				t.Fatalf("unknown kind %q", m.Kind)
			}
		}
	})
}

func checkCheckpoint(t *testing.T, m Message, norm string) {
	t.Helper()
	c := m.Checkpoint
	switch {
	case c == nil || m.Deviation != nil:
		t.Fatalf("checkpoint message without its data: %s", dump(m))
	case c.Type == "":
		t.Fatalf("checkpoint without a type: %s", dump(c))
	case c.Total != 0 && c.Done > c.Total, c.Done < 0, c.Total < 0:
		t.Fatalf("progress %d/%d", c.Done, c.Total)
	case c.Total == 0 && c.Done != 0:
		t.Fatalf("done %d without a total", c.Done)
	case m.Plan != c.Plan || m.Task != c.Done || m.Total != c.Total:
		t.Fatalf("message and checkpoint disagree: %s", dump(m))
	case c.Raw == "" || !strings.Contains(norm, c.Raw):
		t.Fatalf("Raw %q is not in the text", c.Raw)
	case len(c.Options) > 0 && c.Type != TypeDecision:
		t.Fatalf("options on a %s checkpoint", c.Type)
	}
	for _, o := range c.Options {
		if o.ID == "" {
			t.Fatalf("option without an id: %s", dump(c.Options))
		}
	}
	for _, ct := range c.Completed {
		if ct.Number < 0 {
			t.Fatalf("completed task %d", ct.Number)
		}
	}
	if c.Current != nil && (c.Current.Number < 0 || *c.Current == (CurrentTask{})) {
		t.Fatalf("current task %+v", *c.Current)
	}
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
