package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/protocol/hivereport"
	"github.com/hivectl/hive/internal/work"
)

func TestParseHiveReport(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		kinds []Kind
		want  []hivereport.Report // for the HiveReport messages, without Raw/Extra
	}{
		{"block on its own lines", "I found a problem.\n<!--HIVE_REPORT\n{\n  \"status\": \"challenge\",\n  \"issue\": \"x\"\n}\nHIVE_REPORT-->\nbye",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportChallenge, Issue: "x"}}}},
		{"inline", `done <!--HIVE_REPORT {"status":"complete"} HIVE_REPORT--> ok`, []Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete}}}},
		{"with other messages", "PROGRESS: Task 1/1 complete: x\n<!--HIVE_REPORT\n{\"status\":\"partial\"}\nHIVE_REPORT-->\nPLAN COMPLETE\n**Plan:** 01-01",
			[]Kind{Progress, HiveReport, Complete}, []hivereport.Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"message words inside the JSON are not messages", "<!--HIVE_REPORT\n{\"status\":\"blocked\",\n\"blocker\":\"x\"}\nPLAN FAILED\nHIVE_REPORT-->",
			[]Kind{HiveReport}, []hivereport.Report{{Err: "HIVE_REPORT is not a JSON object: invalid character 'P' after top-level value"}}},
		{"malformed is kept as unreadable", "<!--HIVE_REPORT\n{\"status\": complete}\nHIVE_REPORT-->",
			[]Kind{HiveReport}, []hivereport.Report{{Err: "HIVE_REPORT is not a JSON object: invalid character 'c' looking for beginning of value"}}},
		{"unclosed, later messages still read", "<!--HIVE_REPORT {\"status\":\"complete\"}\nPROGRESS: Task 1/2 complete: y",
			[]Kind{HiveReport, Progress}, []hivereport.Report{{Err: "HIVE_REPORT block is not closed with HIVE_REPORT-->"}}},
		{"quoted in a fence (the seed's own example)", "```markdown\n<!--HIVE_REPORT\n{\"status\":\"challenge\"}\nHIVE_REPORT-->\n```", nil, nil},
		{"after PLAN COMPLETE, not swallowed by its body", "PLAN COMPLETE\n**Plan:** 01-01\n**Tasks:** 1/1\n<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->",
			[]Kind{Complete, HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete}}}},
		{"after a checkpoint, not swallowed by it", "CHECKPOINT: decision\n**Plan:** 01-01\n### Checkpoint Details\nWhich?\n### Awaiting\nPick.\n<!--HIVE_REPORT\n{\"status\":\"needs_input\"}\nHIVE_REPORT-->",
			[]Kind{Checkpoint, HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportNeedsInput}}}},
		{"two reports", "<!--HIVE_REPORT {\"status\":\"partial\"} HIVE_REPORT-->\n<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->",
			[]Kind{HiveReport, HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportPartial}}, {Report: work.Report{Status: work.ReportComplete}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Parse(tt.text)
			var kinds []Kind
			var reps []hivereport.Report
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
		r := hivereport.Parse(body)
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
		want  []hivereport.Report // for the HiveReport messages, without Raw/Extra
	}{
		{"hive_report fence", "Done.\n```hive_report\n{\"status\": \"complete\", \"summary\": \"x\"}\n```\n",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete, Summary: "x"}}}},
		{"hive_report fence, broken, is still the report", "```hive_report\n{\"status\": complete}\n```\n{\"status\": \"partial\"}",
			[]Kind{HiveReport}, []hivereport.Report{{Err: "HIVE_REPORT is not a JSON object: invalid character 'c' looking for beginning of value"}}},
		{"a fence between bare HIVE_REPORT lines (the shell Hive's prompts)", "```\nHIVE_REPORT\n{\n  \"status\": \"complete\",\n  \"summary\": \"y\"\n}\nHIVE_REPORT\n```",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete, Summary: "y"}}}},
		{"bare HIVE_REPORT lines", "HIVE_REPORT\n{\"status\": \"blocked\", \"blocker\": \"no db\"}\nHIVE_REPORT\n",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportBlocked, Blocker: "no db"}}}},
		{"json fence", "Here is my report:\n```json\n{\"status\": \"needs_input\", \"blocker\": \"which?\", \"options\": [\"a\", \"b\"]}\n```",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportNeedsInput, Blocker: "which?", Options: []string{"a", "b"}}}}},
		{"bare object on its own lines", "All done.\n\n{\n  \"status\": \"complete\",\n  \"summary\": \"z {with braces}\",\n  \"issues\": [{\"status\": \"open\"}]\n}\n",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete, Summary: "z {with braces}"}}}},
		{"indented, trailing comma", "  {\"status\": \"partial\", \"concerns\": [\"x\",],}  ", []Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportPartial, Concerns: []string{"x"}}}}},
		{"the last object with a status wins", "{\"status\": \"partial\"}\ntext\n{\"status\": \"complete\", \"summary\": \"last\"}\n{\"other\": 1}\n",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete, Summary: "last"}}}},
		{"an unknown status is a bad report, not no report", "{\"status\": \"done\"}",
			[]Kind{HiveReport}, []hivereport.Report{{Err: `HIVE_REPORT status "done" is not one of complete, partial, blocked, challenge, needs_input`}}},
		{"a nested object's status is not the report's", "{\n  \"result\": {\"status\": \"complete\"}\n}", nil, nil},
		{"placed among the other messages", "PROGRESS: Task 1/2 complete: a\n{\"status\": \"partial\"}\nPROGRESS: Task 2/2 complete: b",
			[]Kind{Progress, HiveReport, Progress}, []hivereport.Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"the comment form wins", "```hive_report\n{\"status\": \"blocked\"}\n```\n<!--HIVE_REPORT {\"status\":\"complete\"} HIVE_REPORT-->\n{\"status\": \"partial\"}",
			[]Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete}}}},
		{"a named form wins over a later object", "```hive_report\n{\"status\": \"blocked\"}\n```\n{\"status\": \"partial\"}", []Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportBlocked}}}},

		{"not in other fences", "```go\n{\"status\": \"complete\"}\n```\n```\n{\"status\": \"complete\"}\n```", nil, nil},
		{"not inline", "the API answers {\"status\": \"complete\"} here", nil, nil},
		{"not with text after it", "{\"status\": \"complete\"} is what it answers", nil, nil},
		{"not without a status", "{\"summary\": \"x\"}", nil, nil},
		{"not a null status", "{\"status\": null}", nil, nil},
		{"not a number status", "{\"status\": 200}", nil, nil},
		{"not broken JSON", "{status: complete}", nil, nil},
		{"unclosed fence", "```hive_report\n{\"status\": \"complete\"}", nil, nil},
		{"one marker line", "HIVE_REPORT\n{\"status\": \"partial\"}", []Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"a brace in a string does not end it", "{\n\"status\": \"complete\", \"summary\": \"}\"\n}", []Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete, Summary: "}"}}}},
		{"an object does not run into a fence", "{\n```json\n{\"status\": \"partial\"}\n```\n}", []Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportPartial}}}},
		{"CRLF", "{\r\n\"status\": \"complete\",\r\n\"summary\": \"w\"\r\n}\r\n", []Kind{HiveReport}, []hivereport.Report{{Report: work.Report{Status: work.ReportComplete, Summary: "w"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Parse(tt.text)
			var kinds []Kind
			var reps []hivereport.Report
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
