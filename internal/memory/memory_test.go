package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

func TestFilesIn(t *testing.T) {
	got := FilesIn("ok  \texample.com/svc 0.01s\n    changes_test.go:20: not listed in CHANGES.txt: add x\n--- FAIL: TestX (0.00s)\nsee internal/api/routes.go and (web/app.tsx). a.go b.go")
	want := []string{"changes_test.go", "CHANGES.txt", "internal/api/routes.go", "web/app.tsx", "a.go"}
	if !slices.Equal(got, want) {
		t.Errorf("FilesIn = %q; want %q", got, want)
	}
}

func lesson(run int64, role, text string, files ...string) Lesson {
	return Lesson{Run: run, Kind: KindTests, Role: role, Source: "tester", Text: text, Files: files, Confirmed: true}
}

// Warnings: only what recurred, for the role asked, ranked by
// recurrence, then overlap with the scope, then recency; bounded; the
// same memory gives the same warnings; a forgotten lesson never warns.
func TestWarnings(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs := map[int64][]Lesson{
		1: {lesson(1, "implementer", "the tests failed: TestA", "a.go"), lesson(1, "implementer", "the tests failed: TestB", "b.go"), lesson(1, "tester", "the tests failed: TestT")},
		2: {lesson(2, "implementer", "the tests failed: TestA", "a.go"), lesson(2, "implementer", "the tests failed: TestB", "b.go"), lesson(2, "tester", "the tests failed: TestT")},
		3: {lesson(3, "implementer", "the tests failed: TestC", "c.go"), lesson(3, "implementer", "the tests failed: TestA", "a.go")},
		4: {lesson(4, "implementer", "the tests failed: TestD 12", "d.go")},
		5: {lesson(5, "implementer", "the tests failed: TestD 13", "d.go")},
	}
	for run := int64(1); run <= 5; run++ {
		if err := st.Record(Facts{Run: run, Objective: "o", Workflow: "quick", Outcome: "complete", Finished: time.Unix(run, 0), Lessons: runs[run]}); err != nil {
			t.Fatal(err)
		}
	}
	texts := func(es []Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Text)
		}
		return out
	}
	w, err := st.Warnings("implementer", []string{"src/b.go"})
	if err != nil {
		t.Fatal(err)
	}
	// TestA: 3 runs; TestB and TestD (numbers aside, one lesson): 2 runs
	// each, TestB first for its overlap with the scope; TestC: once.
	if got, want := texts(w), []string{"the tests failed: TestA", "the tests failed: TestB", "the tests failed: TestD 13"}; !slices.Equal(got, want) {
		t.Errorf("warnings %q; want %q", got, want)
	}
	if w2, _ := st.Warnings("implementer", []string{"src/b.go"}); !slices.Equal(texts(w2), texts(w)) {
		t.Error("the same memory gave other warnings")
	}
	if w[0].Warning() != "In 3 earlier runs (last: run 3) after the implementer's work the tests failed: TestA (files: a.go)" {
		t.Errorf("warning text %q", w[0].Warning())
	}
	if _, err := st.Forget(w[0].ID, time.Unix(9, 0)); err != nil {
		t.Fatal(err)
	}
	if w, _ := st.Warnings("implementer", nil); len(w) != 2 || w[0].Text == "the tests failed: TestA" {
		t.Errorf("after forget: %q", texts(w))
	}
	// Recording a run again replaces it: no double count.
	st.Record(Facts{Run: 2, Objective: "o", Workflow: "quick", Outcome: "complete", Finished: time.Unix(2, 0), Lessons: runs[2]})
	if es, _ := st.Entries("tester"); len(es) != 1 || len(es[0].Runs) != 2 {
		t.Errorf("tester entries after a re-record: %+v", es)
	}
	if _, err := st.Forget(999, time.Unix(9, 0)); err != ErrNoLesson {
		t.Errorf("forget of no lesson: %v", err)
	}
}

// Only what a run proved and fixed becomes a learning: an accepted finding
// or a failure never fixed does not, however often it recurs.
func TestLearningsAreVerified(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	unfixed := Lesson{Kind: KindFinding, Role: "implementer", Source: "reviewer", Text: "no auth", Files: []string{"api.go"}}
	fixed := lesson(0, "implementer", "the tests failed: TestA", "a.go")
	for run := int64(1); run <= 3; run++ {
		u, f := unfixed, fixed
		u.Run, f.Run = run, run
		ls := []Lesson{u}
		if run == 2 {
			ls = append(ls, f)
		}
		if err := st.Record(Facts{Run: run, Finished: time.Unix(run, 0), Lessons: ls}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Learnings(10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"The implementer's work broke the tests until it was fixed (TestA); mind a.go (run 2)."}
	if !slices.Equal(got, want) {
		t.Errorf("learnings %q; want %q", got, want)
	}
}

// CLAUDE.md's learnings grow as runs prove new lessons, a lesson seen again
// stays one line (its count rises), and the list keeps to its cap.
func TestLearningsGrowDeduplicated(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var counts []int
	for run := int64(1); run <= 6; run++ {
		ls := []Lesson{lesson(run, "implementer", "the tests failed: TestSame", "same.go")}
		if run%2 == 0 { // every other run proves a new lesson too
			ls = append(ls, lesson(run, "implementer", "the tests failed: TestNew"+string(rune('A'+run)), "new.go"))
		}
		if err := st.Record(Facts{Run: run, Finished: time.Unix(run, 0), Lessons: ls}); err != nil {
			t.Fatal(err)
		}
		got, err := st.Learnings(3)
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, len(got))
		if !strings.Contains(got[0], "TestSame") || !strings.Contains(got[0], fmt.Sprintf("(%d runs, last %d)", run, run)) && run > 1 {
			t.Errorf("run %d: the recurring lesson is not first, counted: %q", run, got[0])
		}
	}
	if fmt.Sprint(counts) != "[1 2 2 3 3 3]" {
		t.Errorf("learnings per run %v; want [1 2 2 3 3 3] (growing, capped at 3)", counts)
	}
}
