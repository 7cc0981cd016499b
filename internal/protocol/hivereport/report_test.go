package hivereport

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/work"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Report // Raw and Extra are not compared
	}{
		{"complete", `{"status":"complete","summary":"added health check","files_modified":["api/health.go","api/health_test.go"],"confidence":0.9,"decisions":[{"decision":"REST","rationale":"matches auth"}],"concerns":["no rate limit"]}`,
			Report{Report: work.Report{Status: work.ReportComplete, Summary: "added health check", Files: []string{"api/health.go", "api/health_test.go"}, Confidence: 0.9,
				Decisions: []work.Decision{{Decision: "REST", Rationale: "matches auth"}}, Concerns: []string{"no rate limit"}}}},
		{"challenge (seed 003)", "\n{\n  \"status\": \"challenge\",\n  \"challenged_agent\": \"architect\",\n  \"issue\": \"src/auth.ts does not exist\",\n  \"evidence\": \"ls src\",\n  \"suggestion\": \"use server/auth.ts\",\n  \"severity\": \"blocking\"\n}\n",
			Report{Report: work.Report{Status: work.ReportChallenge, ChallengedAgent: "architect", Issue: "src/auth.ts does not exist", Evidence: "ls src", Suggestion: "use server/auth.ts", Severity: "blocking"}}},
		{"needs_input (seed 003)", `{"status":"needs_input","blocker":"REST or GraphQL?","options":["REST (matches auth)","GraphQL (matches data)"],"can_proceed_with_default":true,"default_choice":"REST"}`,
			Report{Report: work.Report{Status: work.ReportNeedsInput, Blocker: "REST or GraphQL?", Options: []string{"REST (matches auth)", "GraphQL (matches data)"}, CanProceedWithDefault: true, DefaultChoice: "REST"}}},
		{"partial, status in capitals", `{"status":" Partial "}`, Report{Report: work.Report{Status: work.ReportPartial}}},
		{"blocked", `{"status":"blocked","blocker":"no DB"}`, Report{Report: work.Report{Status: work.ReportBlocked, Blocker: "no DB"}}},
		{"loose types", `{"status":"complete","files":"a.go","files_created":["b.go","a.go"],"confidence":"85%","concerns":"one","options":[{"id":"a","name":"Alpha"},3],"can_proceed_with_default":"yes","decisions":["just do it"]}`,
			Report{Report: work.Report{Status: work.ReportComplete, Files: []string{"a.go", "b.go"}, Confidence: 85, Concerns: []string{"one"}, Options: []string{"Alpha", "3"}, CanProceedWithDefault: true, Decisions: []work.Decision{{Decision: "just do it"}}}}},
		{"trailing commas", "{\"status\":\"complete\",\"files\":[\"a\",],}", Report{Report: work.Report{Status: work.ReportComplete, Files: []string{"a"}}}},
		{"json fence", "```json\n{\"status\":\"blocked\"}\n```", Report{Report: work.Report{Status: work.ReportBlocked}}},
		{"not json", `{status: complete}`, Report{Err: "HIVE_REPORT is not a JSON object: invalid character 's' looking for beginning of object key string"}},
		{"array", `["complete"]`, Report{Err: "HIVE_REPORT is not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"}},
		{"null", `null`, Report{Err: "HIVE_REPORT is not a JSON object: null"}},
		{"empty", ``, Report{Err: "HIVE_REPORT is not a JSON object: unexpected end of JSON input"}},
		{"no status", `{"summary":"x"}`, Report{Report: work.Report{Summary: "x"}, Err: "HIVE_REPORT has no status"}},
		{"unknown status", `{"status":"done"}`, Report{Err: `HIVE_REPORT status "done" is not one of complete, partial, blocked, challenge, needs_input`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.body)
			if got.Raw != strings.TrimSpace(tt.body) {
				t.Errorf("Raw = %q", got.Raw)
			}
			got.Raw, got.Extra = "", nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.body, got, tt.want)
			}
		})
	}
}

func TestParseKeepsUnknownKeys(t *testing.T) {
	r := Parse(`{"status":"complete","tests_added":3}`)
	if string(r.Extra["tests_added"]) != "3" {
		t.Errorf("Extra = %v", r.Extra)
	}
}
