package contract

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestAccept: what real models write is read as the contract means it
// when the meaning is clear, and refused with the field and the values it
// takes when it is not.
func TestAccept(t *testing.T) {
	for _, tc := range []struct {
		name, role, report, text string
		// want: the keys Accept leaves, as JSON ("-": the key is gone)
		want map[string]string
		// errs: substrings of the errors of Accept and Validate together,
		// none when the report is taken.
		errs  []string
		notes int
	}{
		{name: "an approval with comments is an approval", role: "reviewer",
			report: `{"status": "complete", "summary": "s", "approval_status": "approved_with_comments", "comments": ["name the handler"]}`,
			want:   map[string]string{"approval_status": `"approved"`, "comments": `["name the handler"]`}, notes: 1},
		{name: "lgtm", role: "reviewer", report: `{"status": "complete", "summary": "s", "approval_status": "LGTM"}`,
			want: map[string]string{"approval_status": `"approved"`}, notes: 1},
		{name: "written another way", role: "reviewer", report: `{"status": "complete", "summary": "s", "approval_status": "Changes Requested"}`,
			want: map[string]string{"approval_status": `"changes_requested"`}, notes: 1},
		{name: "a review that only comments is neither", role: "reviewer",
			report: `{"status": "complete", "summary": "s", "approval_status": "commented"}`,
			want:   map[string]string{"approval_status": `"commented"`},
			errs:   []string{`approval_status: "commented" is not allowed; give one of approved, changes_requested`}},
		{name: "approved with changes may mean either", role: "reviewer",
			report: `{"status": "complete", "summary": "s", "approval_status": "approved_with_changes"}`,
			errs:   []string{`approval_status: "approved_with_changes" is not allowed; give one of approved, changes_requested`}},
		{name: "an issue's severity and line as models write them", role: "reviewer",
			report: `{"status": "complete", "summary": "s", "approval_status": "approved", "issues": [{"severity": "Critical", "file": "a.go", "line": "12", "title": "t"}]}`,
			want:   map[string]string{"issues": `[{"file":"a.go","line":12,"severity":"blocker","title":"t"}]`}, notes: 2},
		{name: "passed: true with the counts in the summary", role: "tester",
			report: `{"status": "complete", "summary": "Added TestHealth; all 4 tests pass.", "passed": true}`,
			want:   map[string]string{"passed": "4", "failed": "0", "tests_run": "4"}, notes: 1},
		{name: "passed: true with the counts in the output around the report", role: "tester",
			report: `{"status": "complete", "summary": "Added the tests.", "passed": true}`,
			text:   "=== RUN   TestHealth\n--- PASS: TestHealth (0.00s)\n--- PASS: TestRoutes (0.00s)\nPASS\nok  example.com/svc 0.01s\n",
			want:   map[string]string{"passed": "2", "failed": "0", "tests_run": "2"}, notes: 1},
		{name: "passed: true beside tests_run", role: "tester",
			report: `{"status": "complete", "summary": "s", "passed": true, "tests_run": 7}`,
			want:   map[string]string{"passed": "7", "failed": "0", "tests_run": "7"}, notes: 1},
		{name: "passed: true without counts", role: "tester",
			report: `{"status": "complete", "summary": "Added the tests; they pass.", "passed": true}`,
			want:   map[string]string{"passed": "-"}, notes: 1},
		{name: "counts as strings", role: "tester",
			report: `{"status": "complete", "summary": "s", "tests_run": "5", "passed": "5", "failed": "0"}`,
			want:   map[string]string{"passed": "5", "failed": "0", "tests_run": "5"}, notes: 3},
		{name: "passed: true while the summary counts a failure", role: "tester",
			report: `{"status": "complete", "summary": "3 passed, 1 failed", "passed": true}`,
			want:   map[string]string{"passed": "-"},
			errs:   []string{"passed: true: but the report counts 3 passed and 1 failed; give passed and failed as the numbers"}},
		{name: "passed and failed both true", role: "tester",
			report: `{"status": "complete", "summary": "s", "passed": true, "failed": true}`,
			errs:   []string{"passed: true: and failed: true say opposite things"}},
		{name: "a count that is no number", role: "tester",
			report: `{"status": "complete", "summary": "s", "passed": "most"}`,
			errs:   []string{`passed: "most" is a string, not a number; give a whole number, 0 or more`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustBundled(t, tc.role)
			r := report(t, tc.report)
			before := string(r.Extra["comments"])
			notes, errs := Accept(c, &r, tc.text)
			errs = append(errs, Validate(c, r)...)
			if len(notes) != tc.notes {
				t.Errorf("notes %q, want %d", notes, tc.notes)
			}
			if len(errs) != len(tc.errs) {
				t.Fatalf("errors %q, want %q", errs, tc.errs)
			}
			for i, want := range tc.errs {
				if !strings.Contains(errs[i], want) {
					t.Errorf("error %q, want it to say %q", errs[i], want)
				}
			}
			for k, want := range tc.want {
				raw, ok := r.Extra[k]
				switch {
				case want == "-" && ok:
					t.Errorf("%s = %s, want it gone", k, raw)
				case want != "-" && !jsonEqual(t, raw, want):
					t.Errorf("%s = %s, want %s", k, raw, want)
				}
			}
			if before != "" && string(r.Extra["comments"]) != before {
				t.Errorf("comments changed: %s", r.Extra["comments"])
			}
		})
	}
}

// TestAcceptLeavesTheProtocolsReport: the report the protocol parsed
// shares its Extra; Accept's readings are the engine report's alone.
func TestAcceptLeavesTheProtocolsReport(t *testing.T) {
	r := report(t, `{"status": "complete", "summary": "s", "approval_status": "lgtm"}`)
	shared := r.Extra
	Accept(mustBundled(t, "reviewer"), &r, "")
	if string(shared["approval_status"]) != `"lgtm"` || string(r.Extra["approval_status"]) != `"approved"` {
		t.Errorf("shared %s, report %s", shared["approval_status"], r.Extra["approval_status"])
	}
}

func jsonEqual(t *testing.T, raw json.RawMessage, want string) bool {
	t.Helper()
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}
