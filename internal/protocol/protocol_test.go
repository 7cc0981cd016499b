package protocol

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Message
	}{
		{"progress", "PROGRESS: Task 2/5 complete: feat(03-01): add user model",
			[]Message{{Kind: Progress, Task: 2, Total: 5, Text: "feat(03-01): add user model"}}},
		{"progress inside prose", "Done with that.\n\nPROGRESS: Task 1/3 complete: feat(01-02): scaffold\nNext I will...",
			[]Message{{Kind: Progress, Task: 1, Total: 3, Text: "feat(01-02): scaffold"}}},
		{"complete", "PLAN COMPLETE\n\n**Plan:** 03-01\n**Tasks:** 3/3\n**SUMMARY:** .planning/phases/03-auth/03-01-SUMMARY.md\n\n**Commits:**\n- abc1234 feat(03-01): model\n- def5678 feat(03-01): api\n",
			[]Message{{Kind: Complete, Plan: "03-01", Task: 3, Total: 3, Summary: ".planning/phases/03-auth/03-01-SUMMARY.md", Commits: []string{"abc1234 feat(03-01): model", "def5678 feat(03-01): api"}}}},
		{"standalone heading", "## PLAN COMPLETE\n\n**Plan:** 02-02\n**Tasks:** 2/2",
			[]Message{{Kind: Complete, Plan: "02-02", Task: 2, Total: 2}}},
		{"failed", "PLAN FAILED\n\n**Plan:** 01-04\n**Tasks:** 1/3\n**Error:** database migration failed: relation exists",
			[]Message{{Kind: Failed, Plan: "01-04", Task: 1, Total: 3, Text: "database migration failed: relation exists"}}},
		{"two messages in one block", "PROGRESS: Task 3/3 complete: docs\nPLAN COMPLETE\n**Plan:** 01-01\n**Tasks:** 3/3",
			[]Message{{Kind: Progress, Task: 3, Total: 3, Text: "docs"}, {Kind: Complete, Plan: "01-01", Task: 3, Total: 3}}},
		{"prose mentioning the words", "I will print PLAN COMPLETE when done; PROGRESS: soon", nil},
		{"garbage", "\x00\xff{\"type\":", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add("PROGRESS: Task 2/5 complete: feat(03-01): add user model")
	f.Add("PLAN COMPLETE\n\n**Plan:** 03-01\n**Tasks:** 3/3\n**Commits:**\n- abc feat")
	f.Add("PLAN FAILED\n**Error:** x")
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range Parse(s) {
			if m.Kind != Progress && m.Kind != Complete && m.Kind != Failed {
				t.Fatalf("unknown kind %q", m.Kind)
			}
		}
	})
}
