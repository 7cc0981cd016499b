package piperun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// changesTest is a project convention the sim implementer does not know:
// every change it notes in hive_sim_change.go must be listed in
// CHANGES.txt.
const changesTest = `package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestChangesListed(t *testing.T) {
	t.Parallel()
	code, err := os.ReadFile("hive_sim_change.go")
	if err != nil {
		return
	}
	list, _ := os.ReadFile("CHANGES.txt")
	for _, m := range regexp.MustCompile("hive-sim [^:]+: (.+)").FindAllStringSubmatch(string(code), -1) {
		if !strings.Contains(string(list), m[1]) {
			t.Errorf("not listed in CHANGES.txt: %s", m[1])
		}
	}
}
`

func conventionRepo(t *testing.T) *gitx.Repo {
	repo := gittest.Service(t)
	for name, body := range map[string]string{"CHANGES.txt": "# Changes\n", "changes_test.go": changesTest} {
		if err := os.WriteFile(filepath.Join(repo.Root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Trimmed(t, repo.Root, "add", ".")
	gittest.Trimmed(t, repo.Root, "commit", "-q", "-m", "the changes convention")
	return repo
}

// TestMemoryStopsARepeatedMistake: ten runs of the quick workflow, where
// the sim implementer forgets the project's CHANGES.txt unless warned.
// Runs 1 and 2 fail the tests once each (a fix loop) and the memory
// records it; from run 3 the implementer is warned, lists its change, and
// no run needs a fix loop. A rebuild from the journal gives the same memory.
func TestMemoryStopsARepeatedMistake(t *testing.T) {
	t.Parallel()
	repo := conventionRepo(t)
	quick, _ := workflows.Builtin("quick")
	o := options(t, repo, quick)
	var figures []string
	for i := 1; i <= 10; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		n := &notes{}
		o.Observer, o.Objective = n, fmt.Sprintf("add endpoint number %d", i)
		res, err := Run(ctx, o)
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if res.Snapshot.Outcome != roleplan.OutcomeComplete {
			t.Fatalf("run %d: %s: %s", i, res.Snapshot.Outcome, res.Snapshot.Reason)
		}
		warned := strings.Contains(strings.Join(n.lines, "\n"), "warned of 1 lesson(s) from earlier runs")
		figures = append(figures, fmt.Sprintf("run %d: %d fix loop(s), warned %v", i, res.Snapshot.FixLoops, warned))
		wantLoops, wantWarned := 0, true
		if i <= 2 {
			wantLoops, wantWarned = 1, false
		}
		if res.Snapshot.FixLoops != wantLoops || warned != wantWarned {
			t.Errorf("run %d: %d fix loop(s), warned %v; want %d, %v", i, res.Snapshot.FixLoops, warned, wantLoops, wantWarned)
		}
	}
	t.Log("\n" + strings.Join(figures, "\n"))
	// CLAUDE.md's Hive Learnings on main: the one lesson, once, as proved.
	md, err := os.ReadFile(filepath.Join(repo.Root, "CLAUDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(md), "\n- ") != 1 || !strings.Contains(string(md), "(TestChangesListed); mind changes_test.go, CHANGES.txt (2 runs, last 2).") {
		t.Errorf("CLAUDE.md:\n%s", md)
	}

	st, err := memory.Open(filepath.Join(repo.Root, memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before, err := st.Entries("")
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || len(before[0].Runs) != 2 || !before[0].Confirmed || !strings.Contains(before[0].Warning(), "CHANGES.txt") {
		t.Fatalf("memory: %+v", before)
	}
	// Rebuilt from the journal alone: the same memory.
	runs, err := o.Journal.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Reset(); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		f, err := memory.FromJournal(o.Journal, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Record(f); err != nil {
			t.Fatal(err)
		}
	}
	after, err := st.Entries("")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(stripIDs(after)) != fmt.Sprint(stripIDs(before)) {
		t.Errorf("rebuilt memory differs:\n%+v\n%+v", after, before)
	}
}

func stripIDs(es []memory.Entry) []memory.Entry {
	out := make([]memory.Entry, len(es))
	for i, e := range es {
		e.ID = 0
		out[i] = e
	}
	return out
}

// In the full workflow the implementers are the phase's executors: every
// one of them is told the memory's warnings for the implementer and the
// context curated for its plan, and the run journals them.
func TestPhaseExecutorsAreWarned(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	st, err := memory.Open(filepath.Join(repo.Root, memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	for run := int64(1); run <= 2; run++ {
		l := memory.Lesson{Kind: memory.KindTests, Role: workflows.RoleImplementer, Source: "tester", Text: "the tests failed: TestRoutes", Files: []string{"main.go"}, Confirmed: true}
		if err := st.Record(memory.Facts{Run: run, Finished: time.Unix(run, 0), Lessons: []memory.Lesson{l}}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	res, rec, o := recorded(t, repo, classic)
	executors := 0
	rec.mu.Lock()
	for key, p := range rec.seen {
		if strings.HasPrefix(p, "<objective>\nExecute plan") {
			executors++
			if !strings.Contains(p, "<warnings_from_earlier_runs>") || !strings.Contains(p, "TestRoutes (files: main.go)") {
				t.Errorf("executor %s was not warned:\n%s", key, p)
			}
			// Its curated context: a test of the project to follow.
			if !strings.Contains(p, "<context_from_hive>\n### A test of this project (main_test.go), whose patterns to follow") {
				t.Errorf("executor %s got no curated context:\n%s", key, p)
			}
		}
	}
	rec.mu.Unlock()
	if executors < 2 {
		t.Errorf("%d executor prompt(s) seen", executors)
	}
	if len(journaled(o.Journal, res.Run.ID, runjournal.WarnedEvent)) == 0 {
		t.Error("no warning journaled")
	}
}

// The documenter proposes learnings from what the run got wrong; hive
// keeps in CLAUDE.md only those that name a file or test the run proved,
// never general advice.
func TestDocumenterLearningsVerified(t *testing.T) {
	t.Parallel()
	repo := conventionRepo(t)
	wf := workflows.Workflow{Name: "documented", Steps: []workflows.Step{{Role: workflows.RoleImplementer}, {Type: workflows.StepBuild},
		{Role: workflows.RoleTester}, {Role: workflows.RoleDocumenter}}}
	res, rec, _ := recorded(t, repo, wf)
	if res.Snapshot.FixLoops != 1 {
		t.Fatalf("%d fix loops; want 1", res.Snapshot.FixLoops)
	}
	p, _ := rec.get("documenter/1")
	if !strings.Contains(p, "## What this run got wrong, then fixed\n\n- the tests failed: TestChangesListed (the implementer's work; found by the tester); files: changes_test.go, CHANGES.txt") {
		t.Errorf("the documenter was not told what the run proved:\n%s", p)
	}
	md, err := os.ReadFile(filepath.Join(repo.Root, "CLAUDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "- Keep changes_test.go, CHANGES.txt in step with every change here: the tests failed: TestChangesListed") {
		t.Errorf("the documenter's proved learning is missing:\n%s", md)
	}
	if strings.Contains(string(md), "small, focused commits") {
		t.Errorf("an unproved learning reached CLAUDE.md:\n%s", md)
	}
}
