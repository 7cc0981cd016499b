package validate

import (
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// wantDiag is an expected diagnostic, as the tables write it.
type wantDiag plantest.Diag

// phaseOf parses in-memory plans into a phase, as load.Phase would.
func phaseOf(t *testing.T, files map[string]string) *plan.Phase {
	t.Helper()
	ph := &plan.Phase{Number: "01", Slug: "x", Dir: plantest.Dir}
	for name, text := range files {
		p, ds := parse.Plan(plantest.Dir+"/"+name, []byte(text))
		if p == nil || plan.HasErrors(ds) {
			t.Fatalf("%s: %v", name, ds)
		}
		ph.Plans = append(ph.Plans, p)
	}
	return ph
}

// writePhase writes files into root/.planning/phases/<dir>/ and loads the phase.
func writePhase(t *testing.T, root, phaseDir string, files map[string]string) *plan.Phase {
	t.Helper()
	ph, err := load.Phase(root, plantest.WritePhase(t, root, phaseDir, files))
	if err != nil {
		t.Fatal(err)
	}
	return ph
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []wantDiag
		waves map[string]int
	}{
		{
			name: "valid phase",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1\nfiles_modified: [src/a.ts]", plantest.AutoTask),
				"01-02-PLAN.md": plantest.Plan("wave: 1\nfiles_modified: [src/b.ts]", plantest.AutoTask),
				"01-03-PLAN.md": plantest.Plan("depends_on: [01-01, 01-02]\nfiles_modified: [src/a.ts]", plantest.AutoTask),
				"01-04-PLAN.md": plantest.Plan("wave: 5\ndepends_on: [3]", plantest.AutoTask),
			},
			waves: map[string]int{"01-01": 1, "01-02": 1, "01-03": 2, "01-04": 5},
		},
		{
			name: "duplicate plan id",
			files: map[string]string{
				"01-02-PLAN.md": plantest.Plan("plan: 02", plantest.AutoTask),
				"1-2-PLAN.md":   plantest.Plan("plan: 02", plantest.AutoTask),
			},
			want: []wantDiag{{plan.SeverityError, "1-2-PLAN.md", 2, "duplicate plan id 1-2: " + plantest.Dir + "/01-02-PLAN.md has the same id", "rename one of the files"}},
		},
		{
			name: "unknown dependency suggests the closest id",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask),
				"01-02-PLAN.md": plantest.Plan("depends_on:\n  - 01-01\n  - 01-13", plantest.AutoTask),
				"01-10-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask),
			},
			want: []wantDiag{{plan.SeverityError, "01-02-PLAN.md", 4, "depends_on names unknown plan 01-13", "replace 01-13 with 01-10"}},
		},
		{
			name: "dependency on a later phase",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("depends_on: [\"02-01\"]", plantest.AutoTask),
			},
			want: []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 2, "02-01, a plan of a later phase", "move this plan"}},
		},
		{
			name: "dependency cycle",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask),
				"01-02-PLAN.md": plantest.Plan("depends_on: [01-01, 01-03]", plantest.AutoTask),
				"01-03-PLAN.md": plantest.Plan("depends_on:\n  - 01-02", plantest.AutoTask),
				"01-04-PLAN.md": plantest.Plan("depends_on: [01-03]", plantest.AutoTask),
			},
			want: []wantDiag{{plan.SeverityError, "01-02-PLAN.md", 2,
				"dependency cycle: 01-02 (" + plantest.Dir + "/01-02-PLAN.md) → 01-03 (" + plantest.Dir + "/01-03-PLAN.md) → 01-02",
				"remove one of these depends_on entries"}},
			waves: map[string]int{"01-01": 1, "01-02": 0, "01-03": 0, "01-04": 0},
		},
		{
			name: "self dependency",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1\ndepends_on: [01-01]", plantest.AutoTask),
			},
			want:  []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 3, "dependency cycle: 01-01 (" + plantest.Dir + "/01-01-PLAN.md) → 01-01", "remove one"}},
			waves: map[string]int{"01-01": 0},
		},
		{
			name: "wave contradicts depends_on",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 2", plantest.AutoTask),
				"01-02-PLAN.md": plantest.Plan("phase: 01-x\nwave: 2\ndepends_on: [01-01]", plantest.AutoTask),
			},
			want:  []wantDiag{{plan.SeverityWarning, "01-02-PLAN.md", 3, "wave: 2 contradicts depends_on: 01-01 runs in wave 2, so hive schedules this plan by its dependencies, in wave 3", "set wave: 3"}},
			waves: map[string]int{"01-01": 2, "01-02": 3},
		},
		{
			name: "unsafe files_modified",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("files_modified:\n  - /etc/passwd\n  - ../other-repo/x.ts\n  - \"\"\n  - src/../../x\n  - src/../ok.ts\n  - C:\\\\Users\\\\x", plantest.AutoTask),
			},
			want: []wantDiag{
				{plan.SeverityError, "01-01-PLAN.md", 3, `"/etc/passwd" is absolute`, "relative to its root"},
				{plan.SeverityError, "01-01-PLAN.md", 4, `"../other-repo/x.ts" leaves the repository`, "inside the repository"},
				{plan.SeverityError, "01-01-PLAN.md", 5, "entry 3 is empty", "remove the empty entry"},
				{plan.SeverityError, "01-01-PLAN.md", 6, `"src/../../x" leaves the repository`, ""},
				{plan.SeverityError, "01-01-PLAN.md", 8, "absolute (drive letter)", ""},
			},
		},
		{
			name: "unknown task type",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("autonomous: false", "<tasks>\n<task type=\"auto\"><name>a</name></task>\n<task type=\"checkpoint:review\"><name>b</name></task>\n</tasks>\n"),
			},
			want: []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 6, `task 2 has unknown checkpoint kind "checkpoint:review"`,
				"use one of: auto, tdd, checkpoint:human-verify, checkpoint:decision, checkpoint:human-action"}},
		},
		{
			name: "task type hive does not know runs like auto",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1", "<tasks>\n<task type=\"tracer\"><name>a</name></task>\n</tasks>\n"),
			},
			want: []wantDiag{{plan.SeverityNote, "01-01-PLAN.md", 5, `task 1 has type "tracer", which hive does not know; it runs it like auto`, "use one of: auto"}},
		},
		{
			// A checkpoint's kind without its prefix would not stop: that
			// one is a warning.
			name: "checkpoint kind without its prefix",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1\nautonomous: false", "<tasks>\n<task type=\"human-verify\"><name>a</name></task>\n</tasks>\n"),
			},
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 6, `task 1 has type "human-verify", which hive does not know; it runs it like auto`, "use one of: auto"}},
		},
		{
			name: "a phase named in words in depends_on",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("depends_on: [Phase 0]", plantest.AutoTask),
			},
			want: []wantDiag{{plan.SeverityNote, "01-01-PLAN.md", 2, "depends_on names phase 0 (Phase 0), which runs before this one", ""}},
		},
		{
			name: "checkpoint in an explicitly autonomous plan",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1\nautonomous: true", "<tasks>\n<task type=\"auto\"><name>a</name></task>\n<task type=\"checkpoint:human-verify\" gate=\"blocking\"><name>b</name></task>\n</tasks>\n"),
			},
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 3, "task 2 is a checkpoint:human-verify checkpoint but the plan is autonomous (autonomous: true at line 3); hive stops at the checkpoint anyway", "set autonomous: false"}},
		},
		{
			name: "checkpoint in a plan autonomous by default",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1", "<tasks>\n<task type=\"checkpoint:decision\"><decision>x</decision></task>\n</tasks>\n"),
			},
			want: []wantDiag{{plan.SeverityWarning, "01-01-PLAN.md", 5, "autonomous defaults to true", "set autonomous: false"}},
		},
		{
			name: "same file in one wave",
			files: map[string]string{
				"01-01-PLAN.md": plantest.Plan("wave: 1\nfiles_modified: [src/db.ts, src/a.ts]", plantest.AutoTask),
				"01-02-PLAN.md": plantest.Plan("wave: 2\nfiles_modified: [src/b.ts]", plantest.AutoTask),
				"01-03-PLAN.md": plantest.Plan("files_modified: [./src/db.ts, src/a.ts, src/c.ts]", plantest.AutoTask),
			},
			want: []wantDiag{{plan.SeverityWarning, "01-03-PLAN.md", 2, "01-01 and 01-03 both modify src/a.ts, src/db.ts in wave 1", `make 01-03 depend on 01-01 (add "01-01" to its depends_on)`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ph := phaseOf(t, tt.files)
			got := Phase(ph)
			plantest.MatchDiags(t, got, tt.want)
			sorted := slices.Clone(ph.Plans)
			plan.SortPlans(sorted)
			for i := range sorted {
				if sorted[i] != ph.Plans[i] {
					t.Errorf("plans not sorted: %s where %s belongs", ph.Plans[i].ID, sorted[i].ID)
					break
				}
			}
			for id, w := range tt.waves {
				if p := ph.Plan(id); p == nil || p.ComputedWave != w {
					t.Errorf("ComputedWave(%s) = %v, want %d", id, p, w)
				}
			}
		})
	}
}

// Plans of one wave that modify one file: one warning for them all (six
// such plans gave fifteen, one per pair), and none for plans that are done,
// which never run again.
func TestOverlapsGrouped(t *testing.T) {
	files := map[string]string{}
	for _, id := range []string{"01-01", "01-02", "01-03", "01-04"} {
		files[id+"-PLAN.md"] = plantest.Plan("wave: 1\nfiles_modified: [src/q.js]", plantest.AutoTask)
	}
	files["01-05-PLAN.md"] = plantest.Plan("wave: 1\nfiles_modified: [src/done.js]", plantest.AutoTask)
	files["01-06-PLAN.md"] = plantest.Plan("wave: 1\nfiles_modified: [src/done.js]", plantest.AutoTask)
	files["01-05-SUMMARY.md"] = plantest.Passed
	files["01-06-SUMMARY.md"] = plantest.Passed
	var overlaps []plan.Diagnostic
	for _, d := range Phase(writePhase(t, t.TempDir(), path.Base(plantest.Dir), files)) {
		if strings.Contains(d.Message, "modify") {
			overlaps = append(overlaps, d)
		}
	}
	if len(overlaps) != 1 {
		t.Fatalf("%d overlap warnings, want 1:\n%s", len(overlaps), plantest.DiagList(overlaps))
	}
	d := overlaps[0]
	if d.File != plantest.Dir+"/01-04-PLAN.md" || d.Message != "01-01, 01-02, 01-03, 01-04 all modify src/q.js in wave 1; in worktrees they run in parallel and may conflict at merge" ||
		!strings.HasPrefix(d.Fix, "chain them with depends_on (01-02 on 01-01") {
		t.Errorf("got %s", d)
	}
}

// A whole earlier phase named by its folder in depends_on is nothing to
// wait for (phases run in order); the plan's own phase is ignored.
func TestPhaseDependencies(t *testing.T) {
	// A plan of phase 02 that names phase 01 by its folder, and one that
	// names its own phase.
	ph := writePhase(t, t.TempDir(), "02-search", map[string]string{
		"02-01-PLAN.md": plantest.Plan("depends_on: [01-foundation-and-data]", plantest.AutoTask),
		"02-02-PLAN.md": plantest.Plan("depends_on: [02-search]", plantest.AutoTask),
	})
	var got []string
	for _, d := range Phase(ph) {
		if strings.Contains(d.Message, "depends_on") {
			got = append(got, d.Severity.String()+": "+d.Message)
		}
	}
	want := []string{"note: depends_on names phase 01 (01-foundation-and-data), which runs before this one: nothing to wait for",
		"warning: depends_on names this plan's own phase (02-search); hive ignores it"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
}

// Paths in task <files>, artifacts and key links are checked like
// files_modified, with their lines; a key link's symbol or prose is never
// taken for a path, and a target outside the repository (which hive never
// reads) is a warning.
func TestValidatePlanPaths(t *testing.T) {
	front := `wave: 1
must_haves:
  artifacts:
    - path: src/form.ts
    - path: /etc/app.conf
  key_links:
    - from: "src/form.ts (handleSubmit)"
      to: "api.ts#fetchUser"
    - from: trackEvent mutation
      to: POST /api/events
    - from: "../shared/util.ts (debounce)"
      to: src/form.ts
    - from: src/settings.ts
      to: ~/.config/app/settings.json`
	body := "<tasks>\n<task type=\"auto\"><name>a</name><files>src/form.ts, ~/.ssh/config</files></task>\n</tasks>\n"
	ph := phaseOf(t, map[string]string{"01-01-PLAN.md": plantest.Plan(front, body)})
	plantest.MatchDiags(t, Phase(ph), []wantDiag{
		{plan.SeverityError, "01-01-PLAN.md", 6, `must_haves.artifacts: path "/etc/app.conf" is absolute`, "inside the repository"},
		{plan.SeverityError, "01-01-PLAN.md", 12, `must_haves.key_links from: path "../shared/util.ts" leaves the repository`, "inside the repository"},
		{plan.SeverityWarning, "01-01-PLAN.md", 14, `must_haves.key_links to: path "~/.config/app/settings.json" is in a home directory, outside the repository; hive never reads it, so this link's target goes unchecked`, "leave it if the code really reaches outside"},
		{plan.SeverityError, "01-01-PLAN.md", 18, `task 1 <files>: path "~/.ssh/config" is in a home directory`, "inside the repository"},
	})
}

// Advice for an unknown plan of this phase names a likely typo only.
func TestUnknownDependencyAdvice(t *testing.T) {
	ph := phaseOf(t, map[string]string{
		"01-01-PLAN.md": plantest.Plan("wave: 1", plantest.AutoTask),
		"01-02-PLAN.md": plantest.Plan("depends_on: [01-01-setup-db, abc]", plantest.AutoTask),
	})
	plantest.MatchDiags(t, Phase(ph), []wantDiag{
		{plan.SeverityError, "01-02-PLAN.md", 2, "depends_on names unknown plan 01-01-setup-db", "remove 01-01-setup-db from depends_on"},
		{plan.SeverityError, "01-02-PLAN.md", 2, "depends_on names unknown plan abc", "remove abc from depends_on"},
	})
}

// A plan whose PLAN.md was cleaned away once it was done leaves its
// SUMMARY: a plan that depends on it waits for nothing, and lint says so
// in a note (it refused the phase with an error); a SUMMARY that failed its
// Self-Check, or no trace of the plan at all, is still an error.
func TestDependencyOnASummaryOnlyPlan(t *testing.T) {
	failed := strings.Replace(plantest.Passed, "PASSED", "FAILED", 1)
	for _, tt := range []struct {
		name    string
		summary string // of 02-03; "" for none
		want    string // the diagnostic of 02-05's dependency
		sev     plan.Severity
	}{
		{"done", plantest.Passed, "depends_on names 02-03, whose PLAN.md is gone; its SUMMARY (02-03-SUMMARY.md) says it is done", plan.SeverityNote},
		{"failed", failed, "depends_on names unknown plan 02-03", plan.SeverityError},
		{"gone", "", "depends_on names unknown plan 02-03", plan.SeverityError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"02-05-PLAN.md": plantest.Plan("wave: 2\ndepends_on: [02-03]", plantest.AutoTask)}
			if tt.summary != "" {
				files["02-03-SUMMARY.md"] = tt.summary
			}
			ph := writePhase(t, t.TempDir(), "02-claims", files)
			var got *plan.Diagnostic
			for _, d := range append(ph.Diagnostics, Phase(ph)...) {
				if strings.Contains(d.Message, "depends_on names") {
					got = &d
				}
			}
			if got == nil || got.Severity != tt.sev || !strings.HasPrefix(got.Message, tt.want) {
				t.Errorf("got %v, want %s %q", got, tt.sev, tt.want)
			}
		})
	}
}
