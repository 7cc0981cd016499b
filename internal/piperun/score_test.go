package piperun

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

// As a run ends, hive scores each role that worked from its own checks in
// the run's worktree (the real diff, build and test runs, the plans as
// linted) and journals the scores; hive report shows them.
func TestComputedConfidence(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	res, _, o := recorded(t, repo, classic)
	scores := runjournal.Confidence(o.Journal, res.Run.ID)
	got := map[string]string{}
	for _, s := range scores {
		got[s.Role] = s.String()
	}
	for role, want := range map[string][]string{
		"architect": {"70/70", "plans lint clean ✓", "tasks have verify and done ✓"},
		// The classic workflow has no build step: that check is skipped,
		// neither passed nor failed, and out of the score.
		"implementer": {"50/50", "build passes – (no build ran)", "tests pass ✓", "changes cover the plans' files ✓"},
		"tester":      {"tests ran and were read ✓", "tests touch the change ✓"},
		"reviewer":    {"70/70"},
	} {
		for _, w := range want {
			if !strings.Contains(got[role], w) {
				t.Errorf("%s: %q lacks %q", role, got[role], w)
			}
		}
	}
	for _, s := range scores {
		if s.Role == "implementer" && !strings.Contains(s.Checks[2].Detail, "3 of 3 planned file(s) changed") {
			t.Errorf("the implementer's coverage: %s", s.Checks[2].Detail)
		}
	}
	rep, err := runreport.Build(t.Context(), o.Journal, repo, res.Run)
	if err != nil || len(rep.Confidence) != len(scores) {
		t.Errorf("report confidence %v, %v", rep.Confidence, err)
	}
	// The memory keeps each role's score with its figures.
	st, err := memory.Open(filepath.Join(repo.Root, memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x, err := st.Export()
	if err != nil || len(x.Runs) != 1 {
		t.Fatalf("memory: %+v, %v", x, err)
	}
	for _, r := range x.Runs[0].Roles {
		if want := map[string]int{"architect": 70, "implementer": 70, "comb": 70, "documenter": 70}[r.Role]; want != 0 && r.Confidence != want {
			t.Errorf("memory: the %s's confidence %d; want %d", r.Role, r.Confidence, want)
		}
	}
}
