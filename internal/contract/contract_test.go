package contract

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/work"
)

// report reads a report as the protocol hands it over: the keys
// work.Report names in its fields, the rest in Extra.
func report(t *testing.T, js string) work.Report {
	t.Helper()
	var r work.Report
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("report %s: %v", js, err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &all); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(r)) {
		known[strings.Split(f.Tag.Get("json"), ",")[0]] = true
	}
	for k, v := range all {
		if !known[k] {
			if r.Extra == nil {
				r.Extra = map[string]json.RawMessage{}
			}
			r.Extra[k] = v
		}
	}
	return r
}

func mustBundled(t *testing.T, role string) Contract {
	t.Helper()
	c, ok := Bundled(role)
	if !ok {
		t.Fatalf("no bundled contract for %s", role)
	}
	return c
}

func TestBundledRoles(t *testing.T) {
	want := []string{"architect", "browser-validator", "comb", "component-tester", "debugger", "documenter", "e2e-tester", "evaluator",
		"implementer", "interviewer", "migrator", "planner", "postmortem", "reviewer", "security", "tester", "ui-designer"}
	if got := Roles(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Roles() = %v\nwant %v", got, want)
	}
	for _, r := range want {
		c := mustBundled(t, r)
		if c.Role != r || c.Origin != FromBundled || c.File != "bundled/"+r+".json" || c.Attempts() != DefaultMaxAttempts || c.Description == "" {
			t.Errorf("%s: %+v", r, c)
		}
		if c.Fields[0].Name != "status" || !c.Fields[0].Required {
			t.Errorf("%s: the routing fields do not come first: %+v", r, c.Fields[0])
		}
	}
	c, ok := Bundled("poet")
	if ok || c.Role != "poet" || len(c.Fields) != len(baseContract().Fields) {
		t.Errorf("Bundled(poet) = %+v, %v: want the routing fields alone", c, ok)
	}
}

func TestRequired(t *testing.T) {
	got := mustBundled(t, "reviewer").Required()
	want := []string{"status", "summary (complete)", "challenged_agent (challenge)", "issue (challenge)",
		"blocker or summary (needs_input)", "options (needs_input)", "approval_status (complete)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Required() = %q\nwant %q", got, want)
	}
}

// TestRouting holds every contract to what hive's routing needs of each
// status, and to no more.
func TestRouting(t *testing.T) {
	tests := []struct {
		name, report string
		want         []string
	}{
		{"partial needs nothing more", `{"status":"partial"}`, nil},
		{"blocked needs nothing more", `{"status":"blocked"}`, nil},
		{"complete needs a summary", `{"status":"complete"}`,
			[]string{"summary: missing (a complete report needs it); give what you did, in two sentences"}},
		{"a blank summary is no summary", `{"status":"complete","summary":"  "}`,
			[]string{"summary: missing (a complete report needs it); give what you did, in two sentences"}},
		{"challenge", `{"status":"challenge","issue":"x"}`,
			[]string{"challenged_agent: missing (a challenge report needs it); give the role whose work you challenge"}},
		{"challenge, whole", `{"status":"challenge","challenged_agent":"architect","issue":"x"}`, nil},
		{"needs_input", `{"status":"needs_input"}`, []string{
			"blocker (or summary): missing (a needs_input report needs it); give the question only a human can answer",
			"options: missing (a needs_input report needs it); give a list of strings: the answers the human may choose from"}},
		{"needs_input with a summary for a blocker", `{"status":"needs_input","summary":"REST or GraphQL?","options":["REST","GraphQL"]}`, nil},
		{"needs_input, whole", `{"status":"needs_input","blocker":"REST or GraphQL?","options":["REST","GraphQL"]}`, nil},
		{"no status", `{"summary":"x"}`, []string{"status: missing; give one of complete, partial, blocked, challenge, needs_input"}},
		{"unknown keys are kept, not refused", `{"status":"partial","mood":"fine"}`, nil},
	}
	for _, role := range Roles() {
		c := mustBundled(t, role)
		for _, tt := range tests {
			t.Run(role+"/"+tt.name, func(t *testing.T) {
				var got []string // a role's own fields are TestRoles' business
				for _, e := range Validate(c, report(t, tt.report)) {
					if _, routing := baseContract().Field(strings.FieldsFunc(e, func(r rune) bool { return r == ':' || r == ' ' })[0]); routing {
						got = append(got, e)
					}
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("Validate(%s)\n got %q\nwant %q", tt.report, got, tt.want)
				}
			})
		}
	}
}

// TestRoles gives each role's contract a good report and bad ones.
func TestRoles(t *testing.T) {
	const done = `"status":"complete","summary":"did it"`
	tests := []struct {
		role, name, report string
		want               []string
	}{
		{"architect", "good", `{` + done + `,"files":[".planning/phases/01/01-01-PLAN.md"]}`, nil},
		{"implementer", "good", `{` + done + `,"files":["a.go"],"decisions":[{"decision":"x"}]}`, nil},
		{"documenter", "good", `{` + done + `}`, nil},
		{"comb", "good", `{` + done + `}`, nil},
		{"ui-designer", "good", `{` + done + `}`, nil},

		{"reviewer", "good", `{` + done + `,"approval_status":"changes_requested","issues":[{"severity":"blocker","category":"correctness","file":"a.go","line":12,"title":"nil map","description":"panics","suggestion":"make it"},{"severity":"low","file":"b.go","title":"name"}]}`, nil},
		{"reviewer", "no issues", `{` + done + `,"approval_status":"approved","issues":[]}`, nil},
		{"reviewer", "partial needs no approval", `{"status":"partial"}`, nil},
		{"reviewer", "no approval", `{` + done + `}`,
			[]string{"approval_status: missing (a complete report needs it); give one of approved, changes_requested"}},
		{"reviewer", "approval out of its values", `{` + done + `,"approval_status":"lgtm"}`,
			[]string{`approval_status: "lgtm" is not allowed; give one of approved, changes_requested`}},
		{"reviewer", "bad issues", `{` + done + `,"approval_status":"approved","issues":[{"file":"a.go","title":"x"},{"severity":"critical","file":"","title":"y","line":0},{"severity":"high","file":"c.go","title":"z","line":"23"},{"severity":"medium","file":"d.go","title":"w","line":2.5},"just text",null]}`,
			[]string{
				"issues[0].severity: missing; give one of blocker, high, medium, low",
				`issues[1].severity: "critical" is not allowed; give one of blocker, high, medium, low`,
				"issues[1].file: missing; give the path of the file the issue is in",
				"issues[1].line: 0 is below 1; give a positive whole number: the line the issue is at",
				`issues[2].line: "23" is a string, not a number; give a positive whole number: the line the issue is at`,
				"issues[3].line: 2.5 is not a whole number; give a positive whole number: the line the issue is at",
				`issues[4]: "just text" is a string, not an object; give an object with severity, category, file, line, title, description, suggestion`,
				"issues[5]: empty; give an object with severity, category, file, line, title, description, suggestion",
			}},
		{"reviewer", "issues not a list", `{` + done + `,"approval_status":"approved","issues":{"severity":"low"}}`,
			[]string{"issues: the object is an object, not a list; give a list of objects: what must or should change, one entry a problem"}},
		{"security", "good", `{` + done + `,"approval_status":"approved","issues":[{"severity":"high","category":"security","file":"api/login.go","line":3,"title":"SQL built from input"}]}`, nil},
		{"security", "bad", `{` + done + `,"issues":[{"severity":"high","file":"a.go"}]}`,
			[]string{"approval_status: missing (a complete report needs it); give one of approved, changes_requested",
				"issues[0].title: missing; give what is wrong, in a line"}},

		{"interviewer", "good", `{` + done + `,"questions":[{"question":"Where does the page go?","options":["/health","/status"],"default":"/health","why":"routes"}]}`, nil},
		{"interviewer", "no questions: the objective is clear", `{` + done + `}`, nil},
		{"interviewer", "bad", `{` + done + `,"questions":[{"question":"Which?","options":["only one"]},{"options":"a or b"}]}`,
			[]string{"questions[0].options: 1 entry; give at least 2",
				"questions[1].question: missing; give the question, in one sentence",
				`questions[1].options: "a or b" is a string, not a list; give a list of strings of at least 2: the answers to choose from`}},
		{"interviewer", "too many", `{` + done + `,"questions":[` + strings.Repeat(`{"question":"q","options":["a","b"]},`, 6) + `{"question":"q","options":["a","b"]}]}`,
			[]string{"questions: 7 entries; give at most 6"}},

		{"debugger", "good", `{` + done + `,"reproduction":"go test ./api -run TestLogin fails","root_cause":"api/login.go:40 reads a nil session"}`, nil},
		{"debugger", "no root cause", `{` + done + `,"reproduction":"x"}`,
			[]string{"root_cause: missing (a complete report needs it); give why the bug happens: the file, the code and the reason"}},
		{"debugger", "blocked needs none", `{"status":"blocked","blocker":"cannot reproduce"}`, nil},

		{"tester", "good", `{` + done + `,"tests_run":12,"passed":11,"failed":1}`, nil},
		{"tester", "counts left out", `{` + done + `}`, nil},
		{"tester", "bad counts", `{` + done + `,"tests_run":"12","failed":-1}`,
			[]string{`tests_run: "12" is a string, not a number; give a whole number, 0 or more: how many tests ran`,
				"failed: -1 is below 0; give a whole number, 0 or more: how many failed"}},
		{"e2e-tester", "good", `{` + done + `,"tests_run":3,"passed":3,"failed":0}`, nil},
		{"component-tester", "bad", `{` + done + `,"passed":true}`,
			[]string{"passed: true is a boolean, not a number; give a whole number, 0 or more: how many passed"}},

		{"browser-validator", "good", `{` + done + `,"screenshots":["screenshots/01-home.png"]}`, nil},
		{"browser-validator", "with an issue", `{` + done + `,"screenshots":["s.png"],"issues":[{"severity":"blocker","file":"web/app.js","line":3,"title":"button does nothing"}]}`, nil},
		{"browser-validator", "bad", `{` + done + `,"screenshots":"shot.png","issues":[{"file":"README.md","line":1,"title":"x"}]}`,
			[]string{`screenshots: "shot.png" is a string, not a list; give a list of strings: the paths of the screenshots saved`,
				"issues[0].severity: missing; give one of blocker, high, medium, low"}},

		{"migrator", "good", `{` + done + `,"migration_files":["db/001_users.sql"],"reversible":true}`, nil},
		{"migrator", "files as the shell Hive's migrator writes them", `{` + done + `,"migration_files":[{"path":"db/001.sql","type":"up"}]}`, nil},
		{"migrator", "bad", `{` + done + `,"migration_files":"db/001.sql","reversible":"yes"}`,
			[]string{`migration_files: "db/001.sql" is a string, not a list; give a list: the migration files written: their paths, or objects naming them`,
				`reversible: "yes" is a string, not a boolean; give true or false: whether every migration can be rolled back`}},
	}
	for _, tt := range tests {
		t.Run(tt.role+"/"+tt.name, func(t *testing.T) {
			got := Validate(mustBundled(t, tt.role), report(t, tt.report))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate(%s)\n got %q\nwant %q", tt.report, got, tt.want)
			}
		})
	}
}

// TestIssuesAlike: every role whose issues become the run's findings
// writes them in one shape.
func TestIssuesAlike(t *testing.T) {
	want, _ := mustBundled(t, "reviewer").Field("issues")
	for _, r := range []string{"security", "browser-validator"} {
		got, _ := mustBundled(t, r).Field("issues")
		if !reflect.DeepEqual(got.Items, want.Items) || got.Type != want.Type {
			t.Errorf("%s's issues differ from the reviewer's:\n%+v\n%+v", r, got, want)
		}
	}
}

func TestValidateReadsTypedFieldsAndExtra(t *testing.T) {
	c := mustBundled(t, "reviewer")
	r := work.Report{Status: "complete", Summary: "ok", Extra: map[string]json.RawMessage{
		"approval_status": json.RawMessage(`"approved"`),
		"summary":         json.RawMessage(`""`), // the typed field is what hive reads
		"broken":          json.RawMessage(`{`),
	}}
	if errs := Validate(c, r); errs != nil {
		t.Errorf("Validate = %q", errs)
	}
}

// baseContract is the routing fields every contract starts with.
func baseContract() Contract {
	base, _ := bundledContracts()
	return base
}
