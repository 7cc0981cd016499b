package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/tracking"
)

var day = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func writeProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files, err := Files(Project{Name: "shelf", Date: day})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	return dir
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The config file holds only the keys hive reads, at the defaults but for
// desktop notifications (off), and loads without a note.
func TestConfigIsTheDefaults(t *testing.T) {
	dir := writeProject(t)
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if notes := cfg.Notes(); len(notes) > 0 {
		t.Errorf("config notes: %q", notes)
	}
	want := config.Default()
	want.Notifications.Desktop = false
	got, _ := cfg.Marshal()
	if wantText, _ := want.Marshal(); string(got) != string(wantText) {
		t.Errorf("config loads as\n%s\nwant the defaults with desktop notifications off:\n%s", got, wantText)
	}
	text := read(t, dir, config.PlanningFile)
	for _, gsd := range []string{`"mode"`, `"depth"`, `"research"`, `"plan_check"`, `"planning"`, `"task_level"`, `"skip_checkpoints"`,
		`"min_plans_for_parallel"`, `"confirm_plan"`, `"issues_review"`, `"safety"`} {
		if strings.Contains(text, gsd) {
			t.Errorf("config.json has GSD's key %s, which hive does not read:\n%s", gsd, text)
		}
	}
	for _, key := range []string{`"max_concurrent_agents": 3`, `"execution_team": true`, `"post_merge_command": ""`, `"desktop": false`, `"bell": true`} {
		if !strings.Contains(text, key) {
			t.Errorf("config.json lacks %s:\n%s", key, text)
		}
	}
}

// The example phase is clean for hive lint (no error, warning or note) and
// has what it is there to show: a dependency, must_haves and a human-verify
// checkpoint in a non-autonomous plan.
func TestExamplePhaseIsValid(t *testing.T) {
	dir := writeProject(t)
	proj, err := load.Project(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range proj.Diagnostics {
		t.Errorf("project: %s", d)
	}
	ph, err := proj.FindPhase(PhaseNumber)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Dir != PhaseDir {
		t.Errorf("phase folder %s, want %s", ph.Dir, PhaseDir)
	}
	for _, d := range append(ph.Diagnostics, validate.Phase(ph)...) {
		t.Errorf("%s", d)
	}
	if len(ph.Plans) != 2 {
		t.Fatalf("%d plans, want 2", len(ph.Plans))
	}
	first, second := ph.Plans[0], ph.Plans[1]
	if !slices.Equal(second.DependsOn, []string{first.ID}) || second.ComputedWave != 2 {
		t.Errorf("%s depends on %v (wave %d), want [%s] (wave 2)", second.ID, second.DependsOn, second.ComputedWave, first.ID)
	}
	checkpoints := 0
	for _, task := range second.Tasks {
		if task.Type == "checkpoint:human-verify" {
			checkpoints++
		}
	}
	if checkpoints != 1 || second.Autonomous {
		t.Errorf("%s: %d human-verify checkpoint(s), autonomous %v; want 1, false", second.ID, checkpoints, second.Autonomous)
	}
	for _, p := range ph.Plans {
		if len(p.MustHaves.Truths) == 0 || len(p.MustHaves.Artifacts) == 0 {
			t.Errorf("%s has no must_haves truths or artifacts", p.ID)
		}
	}
	if len(second.MustHaves.KeyLinks) == 0 {
		t.Errorf("%s has no key link", second.ID)
	}
}

// STATE.md and ROADMAP.md are shaped as hive's tracking rewrites them: each
// line it edits is there to be edited, so nothing is appended or lost.
func TestTrackingUpdatesTheDocuments(t *testing.T) {
	dir := writeProject(t)
	now := day.Add(24 * time.Hour)
	half := tracking.Phase{Number: "01", Name: "Getting Started", Status: "Executing", Activity: "Completed 01-01-PLAN.md", Now: now,
		Plans: []tracking.Plan{{ID: "01-01", Done: true}, {ID: "01-02"}}}

	oldState := read(t, dir, ".planning/STATE.md")
	state := tracking.State(oldState, half)
	for _, want := range []string{
		"Phase: 1 of 1 (Getting Started)\n",
		"Plan: 1 of 2 in current phase\n",
		"Status: Executing\n",
		"Last activity: 2026-03-05 — Completed 01-01-PLAN.md\n",
		"Progress: [█████░░░░░] 50%\n",
		"Stopped at: Completed 01-01-PLAN.md\n",
	} {
		if !strings.Contains(state, want) {
			t.Errorf("STATE.md lacks %q:\n%s", want, state)
		}
	}
	// Tracking edits lines in place: the body keeps its length.
	if got, was := strings.Count(state, "\n"), strings.Count(oldState, "\n"); got != was+11 { // + the 11 frontmatter lines
		t.Errorf("STATE.md has %d lines, want %d (tracking added lines it should have found):\n%s", got, was+11, state)
	}

	roadmap := tracking.Roadmap(read(t, dir, ".planning/ROADMAP.md"), half)
	for _, want := range []string{
		"- [x] 01-01-PLAN.md",
		"- [ ] 01-02-PLAN.md",
		"| 1. Getting Started | 1/2 | In progress | - |",
		"- [ ] **Phase 1: Getting Started**",
	} {
		if !strings.Contains(roadmap, want) {
			t.Errorf("ROADMAP.md lacks %q:\n%s", want, roadmap)
		}
	}
	done := half
	done.Plans = []tracking.Plan{{ID: "01-01", Done: true}, {ID: "01-02", Done: true}}
	done.Complete = true
	roadmap = tracking.Roadmap(roadmap, done)
	for _, want := range []string{"- [x] 01-02-PLAN.md", "| 1. Getting Started | 2/2 | Complete | 2026-03-05 |", "- [x] **Phase 1: Getting Started**"} {
		if !strings.Contains(roadmap, want) {
			t.Errorf("complete ROADMAP.md lacks %q:\n%s", want, roadmap)
		}
	}
}

func TestTemplatesAreFilledIn(t *testing.T) {
	files, err := Files(Project{Name: "shelf", Date: day})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		if f.About == "" {
			t.Errorf("%s has no description for the listing", f.Path)
		}
		if strings.Contains(string(f.Data), "{{") || strings.Contains(string(f.Data), "<no value>") {
			t.Errorf("%s holds an unfilled template", f.Path)
		}
	}
	want := []string{config.PlanningFile, ".planning/PROJECT.md", ".planning/ROADMAP.md", ".planning/STATE.md",
		PhaseDir + "/01-01-PLAN.md", PhaseDir + "/01-02-PLAN.md"}
	if !slices.Equal(paths, want) {
		t.Errorf("files %q, want %q", paths, want)
	}
	if s := string(files[2].Data); !strings.HasPrefix(s, "# Roadmap: shelf\n") {
		t.Errorf("ROADMAP.md does not name the project:\n%s", s)
	}
	if s := string(files[3].Data); !strings.Contains(s, "Last session: 2026-03-04\n") {
		t.Errorf("STATE.md does not carry the date:\n%s", s)
	}
}

// A repository with any of the files, or another phase 1, is refused and
// left as it was.
func TestWriteRefusesExistingFiles(t *testing.T) {
	files, err := Files(Project{Name: "shelf", Date: day})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		create string // a file to create first
		want   []string
	}{
		{"roadmap", ".planning/ROADMAP.md", []string{".planning/ROADMAP.md"}},
		{"plan", PhaseDir + "/01-02-PLAN.md", []string{PhaseDir + "/01-02-PLAN.md"}},
		{"another phase 1", ".planning/phases/1-setup/01-01-PLAN.md", []string{".planning/phases/1-setup/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, filepath.FromSlash(tc.create))
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := tree(t, dir)
			err := Write(dir, files)
			var exists *ExistsError
			if !errors.As(err, &exists) || !slices.Equal(exists.Paths, tc.want) {
				t.Fatalf("Write = %v, want ExistsError for %q", err, tc.want)
			}
			if after := tree(t, dir); !slices.Equal(after, before) {
				t.Errorf("Write changed the tree:\nbefore %q\nafter  %q", before, after)
			}
			if got := read(t, dir, tc.create); got != "mine\n" {
				t.Errorf("%s was overwritten: %q", tc.create, got)
			}
		})
	}
}

// A write that fails half-way removes the files and folders it created.
func TestWriteUndoesAFailedWrite(t *testing.T) {
	dir := t.TempDir()
	files := []File{
		{Path: ".planning/a.md", Data: []byte("a")},
		{Path: ".planning/a.md/b.md", Data: []byte("b")}, // a.md is a file: this one fails
	}
	if err := Write(dir, files); err == nil {
		t.Fatal("Write succeeded; want an error")
	}
	if left := tree(t, dir); len(left) > 0 {
		t.Errorf("a failed Write left %q", left)
	}
}

// tree lists everything under dir, relative and sorted.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
