package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/work"
)

func TestParseReport(t *testing.T) {
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
			got := ParseReport(tt.body)
			if got.Raw != strings.TrimSpace(tt.body) {
				t.Errorf("Raw = %q", got.Raw)
			}
			got.Raw, got.Extra = "", nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseReport(%q)\n got %+v\nwant %+v", tt.body, got, tt.want)
			}
		})
	}
}

func TestParseReportKeepsUnknownKeys(t *testing.T) {
	r := ParseReport(`{"status":"complete","tests_added":3}`)
	if string(r.Extra["tests_added"]) != "3" {
		t.Errorf("Extra = %v", r.Extra)
	}
}

func TestParseHiveReport(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		kinds []Kind
		want  []Report // for the HiveReport messages, without Raw/Extra
	}{
		{"block on its own lines", "I found a problem.\n<!--HIVE_REPORT\n{\n  \"status\": \"challenge\",\n  \"issue\": \"x\"\n}\nHIVE_REPORT-->\nbye",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportChallenge, Issue: "x"}}}},
		{"inline", `done <!--HIVE_REPORT {"status":"complete"} HIVE_REPORT--> ok`, []Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete}}}},
		{"with other messages", "PROGRESS: Task 1/1 complete: x\n<!--HIVE_REPORT\n{\"status\":\"partial\"}\nHIVE_REPORT-->\nPLAN COMPLETE\n**Plan:** 01-01",
			[]Kind{Progress, HiveReport, Complete}, []Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"message words inside the JSON are not messages", "<!--HIVE_REPORT\n{\"status\":\"blocked\",\n\"blocker\":\"x\"}\nPLAN FAILED\nHIVE_REPORT-->",
			[]Kind{HiveReport}, []Report{{Err: "HIVE_REPORT is not a JSON object: invalid character 'P' after top-level value"}}},
		{"malformed is kept as unreadable", "<!--HIVE_REPORT\n{\"status\": complete}\nHIVE_REPORT-->",
			[]Kind{HiveReport}, []Report{{Err: "HIVE_REPORT is not a JSON object: invalid character 'c' looking for beginning of value"}}},
		{"unclosed, later messages still read", "<!--HIVE_REPORT {\"status\":\"complete\"}\nPROGRESS: Task 1/2 complete: y",
			[]Kind{HiveReport, Progress}, []Report{{Err: "HIVE_REPORT block is not closed with HIVE_REPORT-->"}}},
		{"quoted in a fence (the seed's own example)", "```markdown\n<!--HIVE_REPORT\n{\"status\":\"challenge\"}\nHIVE_REPORT-->\n```", nil, nil},
		{"after PLAN COMPLETE, not swallowed by its body", "PLAN COMPLETE\n**Plan:** 01-01\n**Tasks:** 1/1\n<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->",
			[]Kind{Complete, HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete}}}},
		{"after a checkpoint, not swallowed by it", "CHECKPOINT: decision\n**Plan:** 01-01\n### Checkpoint Details\nWhich?\n### Awaiting\nPick.\n<!--HIVE_REPORT\n{\"status\":\"needs_input\"}\nHIVE_REPORT-->",
			[]Kind{Checkpoint, HiveReport}, []Report{{Report: work.Report{Status: work.ReportNeedsInput}}}},
		{"two reports", "<!--HIVE_REPORT {\"status\":\"partial\"} HIVE_REPORT-->\n<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->",
			[]Kind{HiveReport, HiveReport}, []Report{{Report: work.Report{Status: work.ReportPartial}}, {Report: work.Report{Status: work.ReportComplete}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Parse(tt.text)
			var kinds []Kind
			var reps []Report
			for _, m := range ms {
				kinds = append(kinds, m.Kind)
				if m.Kind == HiveReport {
					r := *m.Report
					r.Raw, r.Extra = "", nil
					reps = append(reps, r)
				}
			}
			if !reflect.DeepEqual(kinds, tt.kinds) || !reflect.DeepEqual(reps, tt.want) {
				t.Errorf("Parse(%q)\n got %v %+v\nwant %v %+v", tt.text, kinds, reps, tt.kinds, tt.want)
			}
		})
	}
}

func FuzzParseReport(f *testing.F) {
	for _, s := range []string{
		`{"status":"complete","files":["a"],"confidence":0.5}`,
		`{"status":"needs_input","options":[{"id":"a"},1,null,true],"can_proceed_with_default":"1"}`,
		`{"status":"challenge","decisions":[{"decision":"x"},"y",null]}`,
		"```json\n{\"status\":\"blocked\",}\n```",
		`{"confidence":"1e999"}`, `null`, `[]`, `"x"`, "{\"a\":\"\\\"\",}", "```", "```\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := ParseReport(body)
		if (r.Err == "") != (r.Status != "") {
			t.Fatalf("status %q with error %q", r.Status, r.Err)
		}
		if r.Raw != strings.TrimSpace(body) {
			t.Fatalf("Raw %q", r.Raw)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
		// Inside text, the same body is one report (unless it closes the block early).
		if !strings.Contains(body, reportClose) && !strings.Contains(body, "```") && !strings.Contains(body, "~~~") {
			ms := Parse(reportOpen + body + reportClose)
			if len(ms) != 1 || ms[0].Kind != HiveReport || ms[0].Report == nil {
				t.Fatalf("Parse found %s", dump(ms))
			}
		}
	})
}

// TestParseManyUnclosedReports is hostile input: every line opens a block
// that is never closed, then one close at the very end. Each opener sees the
// same close; the text is read in one pass.
func TestParseManyUnclosedReports(t *testing.T) {
	var b strings.Builder
	for range 20000 {
		b.WriteString("<!--HIVE_REPORT {\"status\":\n")
	}
	b.WriteString("HIVE_REPORT-->\n")
	ms := Parse(b.String())
	if len(ms) != 1 || ms[0].Kind != HiveReport || ms[0].Report.Err == "" {
		t.Fatalf("got %d messages, first %+v", len(ms), ms[0])
	}
	b.Reset()
	for range 20000 {
		b.WriteString("<!--HIVE_REPORT {\"status\":\"complete\"}\n")
	}
	b.WriteString("PROGRESS: Task 1/1 complete: x\n")
	ms = Parse(b.String())
	if len(ms) != 20001 || ms[20000].Kind != Progress {
		t.Fatalf("got %d messages", len(ms))
	}
}

// TestParseLooseReports: a text without a HIVE_REPORT comment may give its
// report as the shell Hive's agents do.
func TestParseLooseReports(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		kinds []Kind
		want  []Report // for the HiveReport messages, without Raw/Extra
	}{
		{"hive_report fence", "Done.\n```hive_report\n{\"status\": \"complete\", \"summary\": \"x\"}\n```\n",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete, Summary: "x"}}}},
		{"hive_report fence, broken, is still the report", "```hive_report\n{\"status\": complete}\n```\n{\"status\": \"partial\"}",
			[]Kind{HiveReport}, []Report{{Err: "HIVE_REPORT is not a JSON object: invalid character 'c' looking for beginning of value"}}},
		{"a fence between bare HIVE_REPORT lines (the shell Hive's prompts)", "```\nHIVE_REPORT\n{\n  \"status\": \"complete\",\n  \"summary\": \"y\"\n}\nHIVE_REPORT\n```",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete, Summary: "y"}}}},
		{"bare HIVE_REPORT lines", "HIVE_REPORT\n{\"status\": \"blocked\", \"blocker\": \"no db\"}\nHIVE_REPORT\n",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportBlocked, Blocker: "no db"}}}},
		{"json fence", "Here is my report:\n```json\n{\"status\": \"needs_input\", \"blocker\": \"which?\", \"options\": [\"a\", \"b\"]}\n```",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportNeedsInput, Blocker: "which?", Options: []string{"a", "b"}}}}},
		{"bare object on its own lines", "All done.\n\n{\n  \"status\": \"complete\",\n  \"summary\": \"z {with braces}\",\n  \"issues\": [{\"status\": \"open\"}]\n}\n",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete, Summary: "z {with braces}"}}}},
		{"indented, trailing comma", "  {\"status\": \"partial\", \"concerns\": [\"x\",],}  ", []Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportPartial, Concerns: []string{"x"}}}}},
		{"the last object with a status wins", "{\"status\": \"partial\"}\ntext\n{\"status\": \"complete\", \"summary\": \"last\"}\n{\"other\": 1}\n",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete, Summary: "last"}}}},
		{"an unknown status is a bad report, not no report", "{\"status\": \"done\"}",
			[]Kind{HiveReport}, []Report{{Err: `HIVE_REPORT status "done" is not one of complete, partial, blocked, challenge, needs_input`}}},
		{"a nested object's status is not the report's", "{\n  \"result\": {\"status\": \"complete\"}\n}", nil, nil},
		{"placed among the other messages", "PROGRESS: Task 1/2 complete: a\n{\"status\": \"partial\"}\nPROGRESS: Task 2/2 complete: b",
			[]Kind{Progress, HiveReport, Progress}, []Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"the comment form wins", "```hive_report\n{\"status\": \"blocked\"}\n```\n<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->\n{\"status\": \"partial\"}",
			[]Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete}}}},
		{"a named form wins over a later object", "```hive_report\n{\"status\": \"blocked\"}\n```\n{\"status\": \"partial\"}", []Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportBlocked}}}},

		{"not in other fences", "```go\n{\"status\": \"complete\"}\n```\n```\n{\"status\": \"complete\"}\n```", nil, nil},
		{"not inline", "the API answers {\"status\": \"complete\"} here", nil, nil},
		{"not with text after it", "{\"status\": \"complete\"} is what it answers", nil, nil},
		{"not without a status", "{\"summary\": \"x\"}", nil, nil},
		{"not a null status", "{\"status\": null}", nil, nil},
		{"not a number status", "{\"status\": 200}", nil, nil},
		{"not broken JSON", "{status: complete}", nil, nil},
		{"unclosed fence", "```hive_report\n{\"status\": \"complete\"}", nil, nil},
		{"one marker line", "HIVE_REPORT\n{\"status\": \"partial\"}", []Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"a brace in a string does not end it", "{\n\"status\": \"complete\", \"summary\": \"}\"\n}", []Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete, Summary: "}"}}}},
		{"an object does not run into a fence", "{\n```json\n{\"status\": \"partial\"}\n```\n}", []Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"CRLF", "{\r\n\"status\": \"complete\",\r\n\"summary\": \"w\"\r\n}\r\n", []Kind{HiveReport}, []Report{{Report: work.Report{Status: work.ReportComplete, Summary: "w"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Parse(tt.text)
			var kinds []Kind
			var reps []Report
			for _, m := range ms {
				kinds = append(kinds, m.Kind)
				if m.Kind == HiveReport {
					r := *m.Report
					r.Raw, r.Extra = "", nil
					reps = append(reps, r)
				}
			}
			if !reflect.DeepEqual(kinds, tt.kinds) || !reflect.DeepEqual(reps, tt.want) {
				t.Errorf("Parse(%q)\n got %v %+v\nwant %v %+v", tt.text, kinds, reps, tt.kinds, tt.want)
			}
		})
	}
}

func TestLooseReportRaw(t *testing.T) {
	ms := Parse("x\n  {\"status\": \"complete\",\n   \"tests_run\": 3}\n")
	if len(ms) != 1 || ms[0].Report.Raw != "{\"status\": \"complete\",\n   \"tests_run\": 3}" || string(ms[0].Report.Extra["tests_run"]) != "3" {
		t.Errorf("got %s", dump(ms))
	}
}

func TestFindReport(t *testing.T) {
	if _, ok := FindReport("no report here {}"); ok {
		t.Error("found a report in a text without one")
	}
	r, ok := FindReport("<!--HIVE_REPORT {\"status\":\"partial\"} HIVE_REPORT-->\nlater\n<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->\nPLAN COMPLETE")
	if !ok || r.Status != work.ReportComplete {
		t.Errorf("FindReport = %+v, %v: want the last report", r, ok)
	}
	r, ok = FindReport("<!--HIVE_REPORT {\"status\": HIVE_REPORT-->")
	if !ok || r.Err == "" {
		t.Errorf("FindReport = %+v, %v: want the unreadable report", r, ok)
	}
	r, ok = FindReport("work\n```json\n{\"status\": \"complete\"}\n```\n")
	if !ok || r.Status != work.ReportComplete {
		t.Errorf("FindReport = %+v, %v", r, ok)
	}
}

// TestLooseReportHostile: texts that would make a naive scan quadratic
// are read in one pass.
func TestLooseReportHostile(t *testing.T) {
	for name, text := range map[string]string{
		"unclosed objects":  strings.Repeat("{\n", 200000),
		"nested objects":    strings.Repeat("{\"a\":\n", 100000) + strings.Repeat("}\n", 100000),
		"objects, no state": strings.Repeat("{\"a\": 1}\n", 100000),
		"fences":            strings.Repeat("```json\n{\"a\": 1}\n```\n", 50000),
		"markers":           strings.Repeat("HIVE_REPORT\n", 100000),
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			Parse(text)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s took %v", name, d)
			}
		})
	}
}

func FuzzFindReport(f *testing.F) {
	for _, s := range []string{
		"```hive_report\n{\"status\":\"complete\"}\n```",
		"```\nHIVE_REPORT\n{\"status\":\"blocked\",}\nHIVE_REPORT\n```",
		"HIVE_REPORT\n{\"status\": \"partial\"}\nHIVE_REPORT",
		"text\n{\n \"status\": \"needs_input\",\n \"x\": {\"status\": 1}\n}\n",
		"```json\n{\"status\":\"challenge\"}\n```\n{\"status\":\"x\"}",
		"<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->\n{\"status\":\"partial\"}",
		"{\n```\n}\n```\n}", "}{\n{", "~~~hive_report\n~~~", "\"{\n}\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ms := Parse(text)
		comment, loose := 0, 0
		for _, m := range ms {
			if m.Kind != HiveReport {
				continue
			}
			if r := m.Report; r == nil || (r.Err == "") != (r.Status != "") {
				t.Fatalf("bad report %s", dump(m))
			}
			if strings.Contains(text, reportOpen) {
				comment++
			} else {
				loose++
			}
		}
		if loose > 1 {
			t.Fatalf("%d reports without a HIVE_REPORT comment: %s", loose, dump(ms))
		}
		r, ok := FindReport(text)
		if ok != (comment+loose > 0) || (ok && r.Err == "" && r.Status == "") {
			t.Fatalf("FindReport = %+v, %v for %s", r, ok, dump(ms))
		}
	})
}
