package handoff

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var paused = time.Date(2026, 1, 26, 10, 30, 0, 0, time.UTC)

// sample is a phase of six plans paused mid-way: two done, three in progress
// under three executors with their checks at different stages, one not
// started.
func sample() Handoff {
	return Handoff{
		Phase:     "03",
		Time:      paused,
		PlanPath:  ".planning/phases/03-auth",
		Workers:   []string{"executor-03-03", "executor-03-04", "executor-03-05"},
		Reviewers: []string{"spot-check", "merge", "post-merge gate", "verifier"},
		Completed: []Item{
			{ID: "03-01", Name: "User model", Done: 4, Total: 4},
			{ID: "03-02", Name: "Session store", Done: 3, Total: 3},
		},
		InProgress: []Item{
			{ID: "03-03", Name: "Login form", Done: 2, Total: 5, Owner: "executor-03-03",
				Task: "Task 3: Add login form", Reviews: map[string]string{"spot-check": Pending}},
			{ID: "03-04", Name: "Password reset", Done: 4, Total: 4, Owner: "executor-03-04",
				Reviews: map[string]string{"spot-check": Passed, "merge": Passed, "post-merge gate": Failed}},
			{ID: "03-05", Name: "Rate limiting (login)", Done: 1, Total: 3, Owner: "executor-03-05",
				Task: "Task 2: Count failed logins"},
		},
		Pending: []Item{
			{ID: "03-06", Name: "Audit log", Total: 2},
		},
		Notes: []string{
			"executor-03-05 did not exit within 30 seconds; its last commit may be partial",
			"the post-merge gate of 03-04 failed on TestResetToken: fix before verifying",
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n%s", name, got)
	}
}

func TestRenderGolden(t *testing.T) {
	golden(t, "handoff.golden", Render(sample()))
}

func TestRenderIsDeterministic(t *testing.T) {
	first := Render(sample())
	for range 20 { // map order differs between runs; the bytes must not
		if got := Render(sample()); string(got) != string(first) {
			t.Fatalf("Render gave different bytes for the same state:\n%s\n---\n%s", first, got)
		}
	}
}

func TestRenderEmpty(t *testing.T) {
	got := string(Render(Handoff{Phase: "01", Time: paused}))
	for _, want := range []string{
		"- Workers: (none)\n",
		"### Completed\n- (none)\n",
		"### In Progress\n- (none)\n",
		"### Pending\n- (none)\n",
		"```json\n{}\n```\n",
		"## Notes\n\n- (none)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("empty handoff lacks %q:\n%s", want, got)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for name, h := range map[string]Handoff{
		"sample": sample(),
		"empty":  {Phase: "01", Time: paused, PlanPath: ".planning/phases/01-core"},
	} {
		got, err := Parse(Render(h))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, h) {
			t.Errorf("%s: Parse(Render(h)) =\n%#v\nwant\n%#v", name, got, h)
		}
	}
}

func TestParseTolerates(t *testing.T) {
	h := sample()
	text := string(Render(h))
	for name, edited := range map[string]string{
		"CRLF line ends":    strings.ReplaceAll(text, "\n", "\r\n"),
		"extra blank lines": strings.ReplaceAll(text, "\n\n", "\n\n\n"),
		"a time zone":       strings.Replace(text, "2026-01-26T10:30:00Z", "2026-01-26T12:30:00+02:00", 1),
	} {
		got, err := Parse([]byte(edited))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, h) {
			t.Errorf("%s: parsed\n%#v\nwant\n%#v", name, got, h)
		}
	}
}

func TestParseErrors(t *testing.T) {
	text := string(Render(sample()))
	for _, c := range []struct {
		name, old, new string
		want           string // in the error
	}{
		{"title", "# Phase 03 Handoff", "# Phase 03", `line 1: expected the title "# Phase N Handoff", got "# Phase 03"`},
		{"no phase", "# Phase 03 Handoff", "# Phase  Handoff", "line 1: expected the title"},
		{"time", "10:30:00Z", "half past ten", "line 3: expected an RFC 3339 time"},
		{"section", "## Task State", "## Tasks", `line 14: expected "## Task State", got "## Tasks"`},
		{"counts", "(4/4 tasks)\n- Plan 03-02", "(4 of 4)\n- Plan 03-02", `line 17: expected a plan, "- Plan ID: Name (done/total tasks)"`},
		{"review state", "  - Spot-check: pending", "  - Spot-check: maybe", "line 24: expected the Spot-check review of plan 03-03 to be pending, passed or failed"},
		{"detail", "  - Owner: executor-03-03", "  - executor-03-03", `line 22: expected "  - Owner: …"`},
		{"json", `"merge": "passed",`, `"merge": "passed"`, "line 47: expected review tracking as a JSON object"},
		{"tracking disagrees", `"post_merge_gate": "failed"`, `"post_merge_gate": "passed"`, "line 45: expected review tracking of plan-03-04 to agree with the In Progress list"},
		{"tracking lacks a plan", "},\n" + `  "plan-03-05": {` + "\n" + `    "worker": "executor-03-05"` + "\n  }", "}", "line 39: expected review tracking for plan-03-05, which is in progress"},
		{"unclosed fence", "```\n\n## Notes", "\n## Notes", "expected the closing ``` of the review tracking that line 39 opens, got the end of the file"},
		{"note", "- executor-03-05 did not", "executor-03-05 did not", `expected a note, "- " and text, got "executor-03-05 did not`},
	} {
		if !strings.Contains(text, c.old) {
			t.Fatalf("%s: the rendered file has no %q", c.name, c.old)
		}
		_, err := Parse([]byte(strings.Replace(text, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one with %q", c.name, err, c.want)
		}
	}
	if _, err := Parse([]byte(text[:strings.Index(text, "## Notes")])); err == nil ||
		!strings.Contains(err.Error(), `expected "## Notes", got the end of the file`) {
		t.Errorf("truncated file: got error %v", err)
	}
}

func TestPath(t *testing.T) {
	if got, want := Path(".planning/phases/03-auth"), filepath.Join(".planning/phases/03-auth", "HANDOFF.md"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"spot-check": "spot_check", "merge": "merge", "post-merge gate": "post_merge_gate", " Verifier ": "verifier",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
