package contract

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadOrder(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	c, err := Load(root, home, "tester")
	if err != nil || c.Origin != FromBundled {
		t.Fatalf("no files: %+v, %v", c, err)
	}
	shellFile := filepath.Join(home, ".hive", "contracts", "tester.json")
	write(t, shellFile, `{"agent": "tester", "on_failure": {"retry": {"max_attempts": 3}}}`)
	if c, err = Load(root, home, "tester"); err != nil || c.Origin != FromGlobal || c.File != shellFile || c.Attempts() != 3 {
		t.Fatalf("the shell Hive's folder: %+v, %v", c, err)
	}
	hiveFile := filepath.Join(home, ".hive", "global", "contracts", "tester.json")
	write(t, hiveFile, `{"max_attempts": 4}`)
	if c, err = Load(root, home, "tester"); err != nil || c.File != hiveFile || c.Attempts() != 4 {
		t.Fatalf("hive's global folder comes first: %+v, %v", c, err)
	}
	projFile := filepath.Join(root, ".hive", "contracts", "tester.json")
	write(t, projFile, `{"role": "tester", "max_attempts": 1, "fields": [{"name": "tests_run", "type": "integer", "required_when": ["complete"]}]}`)
	if c, err = Load(root, home, "tester"); err != nil || c.Origin != FromProject || c.File != projFile || c.Attempts() != 1 {
		t.Fatalf("the project's comes first: %+v, %v", c, err)
	}
	// A hive contract replaces the role's bundled fields; the routing ones stay.
	if got, want := c.Required(), []string{"status", "summary (complete)", "challenged_agent (challenge)", "issue (challenge)",
		"blocker or summary (needs_input)", "options (needs_input)", "tests_run (complete)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Required() = %q", got)
	}
	if _, ok := c.Field("passed"); ok {
		t.Errorf("the bundled tester's passed is still there")
	}
	if errs := Validate(c, report(t, `{"status":"complete","summary":"x"}`)); !slices.Equal(errs, []string{"tests_run: missing (a complete report needs it); give a whole number"}) {
		t.Errorf("errs = %q", errs)
	}
	if c, err = Load(root, "", "tester"); err != nil || c.Origin != FromProject {
		t.Errorf("no home: %+v, %v", c, err)
	}
	os.Remove(projFile)
	if c, err = Load(root, "", "tester"); err != nil || c.Origin != FromBundled {
		t.Errorf("no home skips the user's files: %+v, %v", c, err)
	}
}

func TestLoadAll(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, ".hive", "contracts", "poet.json"), `{"fields": [{"name": "poem", "type": "string", "required": true}]}`)
	write(t, filepath.Join(root, ".hive", "contracts", "reviewer.json"), `{"fields": [{"name": "verdict", "typ": "string"}]}`)
	entries := LoadAll(root, home)
	var names []string
	for _, e := range entries {
		names = append(names, e.Role)
		switch e.Role {
		case "poet":
			if e.Err != nil || e.Contract.Origin != FromProject || !slices.Contains(e.Contract.Required(), "poem") {
				t.Errorf("poet: %+v", e)
			}
		case "reviewer":
			if e.Err == nil || !strings.Contains(e.Err.Error(), `reviewer.json: fields[0].typ: unknown key`) {
				t.Errorf("reviewer: %v", e.Err)
			}
		default:
			if e.Err != nil || e.Contract.Origin != FromBundled {
				t.Errorf("%s: %+v", e.Role, e)
			}
		}
	}
	if len(names) != len(Roles())+1 || !slices.IsSorted(names) {
		t.Errorf("roles %v", names)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"not json", `{"fields": [}`, `f.json: not a JSON object (invalid character '}' looking for beginning of value)`},
		{"null", `null`, `f.json: not a JSON object (null)`},
		{"unknown key", `{"feilds": []}`, `f.json: feilds: unknown key; a contract has role, description, max_attempts, fields`},
		{"role of another file", `{"role": "tester"}`, `f.json: role: says "tester", but the file is for reviewer; rename the file to tester.json or fix role`},
		{"max_attempts", `{"max_attempts": 0}`, `f.json: max_attempts: must be at least 1`},
		{"max_attempts type", `{"max_attempts": "2"}`, `f.json: max_attempts: "2" is not a whole number of at least 1`},
		{"fields not a list", `{"fields": {"a": 1}}`, `f.json: fields: {"a": 1} is not a list of fields`},
		{"no name", `{"fields": [{"type": "string"}]}`, `f.json: fields[0].name: missing`},
		{"twice", `{"fields": [{"name": "a"}, {"name": "a"}]}`, `f.json: fields[1].name: "a" is there twice`},
		{"bad type", `{"fields": [{"name": "a", "type": "list"}]}`, `f.json: fields[0].type: "list" is not a type; use one of string, integer, number, boolean, array, object`},
		{"bad status", `{"fields": [{"name": "a", "required_when": ["done"]}]}`, `f.json: fields[0].required_when: "done" is not a status`},
		{"items on a string", `{"fields": [{"name": "a", "type": "string", "items": {"type": "string"}}]}`, `f.json: fields[0].items: only an array has items`},
		{"nested", `{"fields": [{"name": "a", "type": "array", "items": {"type": "object", "fields": [{"name": "b", "required": "yes"}]}}]}`,
			`f.json: fields[0].items.fields[0].required: "yes" is not true or false`},
		{"named item", `{"fields": [{"name": "a", "type": "array", "items": {"name": "x"}}]}`, `f.json: fields[0].items.name: an array's items have no name`},
		{"values on a number", `{"fields": [{"name": "a", "type": "integer", "values": ["1"]}]}`, `f.json: fields[0].values: values are strings`},
		{"limits", `{"fields": [{"name": "a", "type": "array", "min_items": 3, "max_items": 2}]}`, `f.json: fields[0].max_items: the limits contradict`},
		{"shell: max_attempts", `{"agent": "reviewer", "on_failure": {"retry": {"max_attempts": 0}}}`, `f.json: on_failure.retry.max_attempts: 0 is not a whole number of at least 1`},
		{"shell: outputs", `{"agent": "reviewer", "outputs": {"required": {"x": "a string"}}}`, `f.json: outputs.required.x: "a string" is not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.json", "reviewer", []byte(tt.text))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Parse(%s) = %v\nwant %s…", tt.text, err, tt.want)
			}
		})
	}
}

// A contract file in the shell Hive's format, as its installer leaves them
// in ~/.hive/contracts (abridged).
const shellReviewer = `{
  "agent": "reviewer",
  "version": "1.0",
  "description": "Reviews code",
  "inputs": {"required": {"epic_id": "Beads epic ID"}},
  "outputs": {
    "required": {
      "issues_filed": {"type": "list", "description": "Beads issue IDs filed"},
      "review_summary": {"type": "string", "description": "Overall review summary"}
    },
    "optional": {
      "blocking_count": {"type": "number"},
      "approval_status": {"type": "enum", "values": ["approved", "changes_requested", "blocked"]},
      "mood": {"type": "feeling"}
    }
  },
  "validation": {"pre": ["Epic exists in Beads"], "post": ["Beads task status updated"]},
  "on_failure": {
    "retry": {"max_attempts": 3, "backoff": "linear", "feedback": "Previous attempt failed: {error}"},
    "escalate": {"after_retries": true, "action": "checkpoint_human", "message": "failed after {attempts}"}
  },
  "risk_levels": {"safe": ["Add table"]}
}`

func TestParseShellContract(t *testing.T) {
	c, err := Parse("/home/u/.hive/contracts/reviewer.json", "reviewer", []byte(shellReviewer))
	if err != nil {
		t.Fatal(err)
	}
	if c.Attempts() != 3 || c.Description != "Reviews code" || c.File != "/home/u/.hive/contracts/reviewer.json" {
		t.Errorf("contract %+v", c)
	}
	// hive's routing and the bundled reviewer's fields still hold.
	bundled := mustBundled(t, "reviewer")
	if got, want := c.Required(), bundled.Required(); !reflect.DeepEqual(got, want) {
		t.Errorf("Required() = %q\nwant %q", got, want)
	}
	if f, _ := c.Field("approval_status"); !slices.Equal(f.Values, []string{"approved", "changes_requested", "blocked"}) {
		t.Errorf("the file's enum values are not kept: %+v", f)
	}
	f, _ := c.Field("issues_filed")
	if f.Type != TypeArray || f.Required || f.About != "Beads issue IDs filed" {
		t.Errorf("issues_filed: %+v", f)
	}
	good := `{"status":"complete","summary":"ok","approval_status":"blocked","issues":[{"severity":"low","file":"a.go","title":"x"}]}`
	if errs := Validate(c, report(t, good)); errs != nil {
		t.Errorf("a hive reviewer's report against the shell contract: %q", errs)
	}
	bad := `{"status":"complete","summary":"ok","approval_status":"approved","issues_filed":"bd-1","blocking_count":"two"}`
	if errs := Validate(c, report(t, bad)); !slices.Equal(errs, []string{
		`issues_filed: "bd-1" is a string, not a list; give a list: Beads issue IDs filed`,
		`blocking_count: "two" is a string, not a number; give a number`,
	}) {
		t.Errorf("the file's types are not checked: %q", errs)
	}
	want := []string{
		`/home/u/.hive/contracts/reviewer.json: outputs.optional.mood.type: "feeling" is not a type hive knows (array, boolean, enum, integer, list, number, object, string)`,
		`/home/u/.hive/contracts/reviewer.json: outputs.required: issues_filed, review_summary are checked when a report gives them, not required`,
		`/home/u/.hive/contracts/reviewer.json: on_failure: hive words its own retry feedback`,
		`/home/u/.hive/contracts/reviewer.json: on_failure.retry.backoff: hive asks again at once`,
		`/home/u/.hive/contracts/reviewer.json: validation.pre: the shell Hive's named checks ("Epic exists in Beads") are not run`,
		`/home/u/.hive/contracts/reviewer.json: validation.post: the shell Hive's named checks ("Beads task status updated") are not run`,
		`/home/u/.hive/contracts/reviewer.json: inputs: hive gives every role its inputs`,
		`/home/u/.hive/contracts/reviewer.json: risk_levels: not part of a contract hive reads; ignored`,
	}
	if len(c.Unmapped) != len(want) {
		t.Fatalf("Unmapped:\n%s", strings.Join(c.Unmapped, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(c.Unmapped[i], w) {
			t.Errorf("Unmapped[%d] = %s\nwant %s…", i, c.Unmapped[i], w)
		}
	}
	// The bundled contract is not changed by the mapping.
	if f, _ := mustBundled(t, "reviewer").Field("approval_status"); len(f.Values) != 2 {
		t.Errorf("the bundled reviewer changed: %+v", f)
	}
}

func TestParseShellContractOtherRole(t *testing.T) {
	c, err := Parse("tester.json", "tester", []byte(`{"agent": "reviewer", "outputs": {"optional": {"passed": {"type": "list"}}}, "on_failure": {"escalate": {"action": "abort"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := c.Field("passed"); f.Type != TypeArray || f.Min != nil {
		t.Errorf("the file's type does not replace the bundled one: %+v", f)
	}
	if len(c.Unmapped) != 2 || !strings.Contains(c.Unmapped[0], `agent: says "reviewer", but the file is named for tester`) ||
		!strings.Contains(c.Unmapped[1], `on_failure.escalate.action: "abort": hive asks a human`) {
		t.Errorf("Unmapped = %q", c.Unmapped)
	}
}

// TestBundledFilesAreHiveFormat: every bundled file reads as a user's
// would, so that copying one into .hive/contracts is a start.
func TestBundledFilesAreHiveFormat(t *testing.T) {
	for _, r := range Roles() {
		data, err := bundledFS.ReadFile("bundled/" + r + ".json")
		if err != nil {
			t.Fatal(err)
		}
		c, err := Parse(r+".json", r, data)
		if err != nil {
			t.Fatal(err)
		}
		if b := mustBundled(t, r); !reflect.DeepEqual(c.Fields, b.Fields) {
			t.Errorf("%s: parsed fields differ from the bundled ones", r)
		}
	}
}
