package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// HiveReport is the kind of a v4 <!--HIVE_REPORT {json} HIVE_REPORT--> block (seed 003).
const HiveReport Kind = "hive-report"

// Report is one HIVE_REPORT block. Fields the agent left out are zero;
// fields of an unexpected JSON type are read as well as they can be (a lone
// string where a list belongs is a list of one) and otherwise left zero.
// A block hive cannot read (not JSON, not an object, no known status) is
// still returned, with Err saying why and Raw holding what was written, so
// that the caller can log it and ask again (seed 000 §5.6).
type Report struct {
	// Report is what the block says: the status lowercased ("" when
	// missing or unreadable); files from files, files_modified,
	// files_changed and files_created, in that order, deduplicated;
	// confidence as written (0..1 or 0..100), 0 when absent; the keys hive
	// does not read in Extra, as written.
	work.Report
	// Raw is the text between the markers, trimmed.
	Raw string
	// Err is why the block could not be read; "" for a good report.
	Err string
}

const (
	reportOpen  = "<!--HIVE_REPORT"
	reportClose = "HIVE_REPORT-->"
)

// closeFinder finds the next line holding the closing marker. It remembers
// its last answer, so that a text with many unclosed openers is still read
// in one pass.
type closeFinder struct {
	lines []string
	at    int // the line found by the last search, or len(lines) for none
	from  int // where the last search started: no line in [from, at) holds the marker
	used  bool
}

// next returns the index of the first line after i holding reportClose, or -1.
func (c *closeFinder) next(i int) int {
	if c.used && c.from <= i+1 && i+1 <= c.at {
		if c.at == len(c.lines) {
			return -1
		}
		return c.at
	}
	k := i + 1
	for k < len(c.lines) && !strings.Contains(c.lines[k], reportClose) {
		k++
	}
	c.at, c.from, c.used = k, i+1, true
	if k == len(c.lines) {
		return -1
	}
	return k
}

// Parse returns the messages in one block of agent text, in order. A
// report is read from a <!--HIVE_REPORT {json} HIVE_REPORT--> block; where
// the text has none, from the forms the shell Hive accepts too (see
// looseReport): then the text gives one report at most, placed among the
// other messages where it stands.
func Parse(text string) []Message {
	out := parseMessages(text)
	for _, m := range out {
		if m.Kind == HiveReport {
			return out
		}
	}
	// Every other form has a brace, or names itself.
	if !strings.Contains(text, "{") && !strings.Contains(text, "HIVE_REPORT") && !strings.Contains(text, "hive_report") {
		return out
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	r, at, ok := looseReport(lines)
	if !ok {
		return out
	}
	// The messages of the lines before the report come before it.
	n := min(len(parseMessages(strings.Join(lines[:at], "\n"))), len(out))
	return slices.Insert(out, n, Message{Kind: HiveReport, Report: &r})
}

// FindReport returns the report an agent's whole output ends with: the
// last HIVE_REPORT Parse finds in it (which may be unreadable: see
// Report.Err), and false when there is none.
func FindReport(text string) (Report, bool) {
	ms := Parse(text)
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Kind == HiveReport {
			return *ms[i].Report, true
		}
	}
	return Report{}, false
}

// looseReport finds the report of a text without a HIVE_REPORT comment, in
// the forms the shell Hive reads and its agents write, and returns it with
// the index of its first line:
//
//   - a ```hive_report fence, or a fence or bare lines held between two
//     lines reading HIVE_REPORT: the last of these is the report, even
//     when it cannot be read;
//   - else the last JSON object with a "status" string that stands on its
//     own lines, bare or in a ```json fence.
//
// Objects inside other fences are quoted code, not reports; an object
// inside another (an issue's own "status") is part of it.
func looseReport(lines []string) (Report, int, bool) {
	type brace struct {
		line, col int
		first     bool // the first thing on its line
	}
	var named []span // explicit reports: read even when broken
	var objects []span
	fence, fenceInfo, fenceAt := "", "", 0
	marker := -1 // the line of an open bare HIVE_REPORT marker
	var stack []brace
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			switch {
			case fence == "":
				fence, fenceAt = t[:3], i
				fenceInfo = ""
				if info := strings.Fields(strings.TrimLeft(t, t[:1])); len(info) > 0 {
					fenceInfo = strings.ToLower(info[0])
				}
				stack = stack[:0] // an object does not run into code
			case strings.HasPrefix(t, fence) && strings.Trim(t, t[:1]) == "":
				body := span{from: fenceAt + 1, to: i, end: -1}
				switch {
				case fenceInfo == "hive_report":
					named = append(named, body)
				case body.from < body.to && strings.TrimSpace(lines[body.from]) == "HIVE_REPORT":
					named = append(named, unmark(lines, body))
				case fenceInfo == "json":
					objects = append(objects, body)
				}
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if t == "HIVE_REPORT" {
			if marker >= 0 {
				named = append(named, span{from: marker + 1, to: i})
				marker = -1
			} else {
				marker = i
			}
			continue
		}
		// Braces outside JSON strings; a string ends with its line.
		inStr, esc := false, false
		first := len(line) - len(strings.TrimLeft(line, " \t"))
		for c := 0; c < len(line); c++ {
			switch ch := line[c]; {
			case inStr:
				switch {
				case esc:
					esc = false
				case ch == '\\':
					esc = true
				case ch == '"':
					inStr = false
				}
			case ch == '"':
				inStr = true
			case ch == '{':
				stack = append(stack, brace{line: i, col: c, first: c == first})
			case ch == '}' && len(stack) > 0:
				open := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if open.first && strings.TrimSpace(line[c+1:]) == "" {
					// It stands on its own lines; it holds any found inside it.
					for len(objects) > 0 && objects[len(objects)-1].from >= open.line && objects[len(objects)-1].end >= 0 {
						objects = objects[:len(objects)-1]
					}
					objects = append(objects, span{from: open.line, to: i + 1, col: open.col, end: c + 1})
				}
			}
		}
	}
	if len(named) > 0 {
		s := named[len(named)-1]
		return ParseReport(strings.Join(lines[s.from:s.to], "\n")), max(s.from-1, 0), true
	}
	for k := len(objects) - 1; k >= 0; k-- {
		s := objects[k]
		var body string
		if s.end < 0 { // a fence's whole body
			body = strings.Join(lines[s.from:s.to], "\n")
		} else {
			part := slices.Clone(lines[s.from:s.to])
			part[len(part)-1] = part[len(part)-1][:s.end]
			part[0] = part[0][s.col:]
			body = strings.Join(part, "\n")
		}
		if hasStatus(body) {
			at := s.from
			if s.end < 0 {
				at-- // the fence's opening line
			}
			return ParseReport(body), at, true
		}
	}
	return Report{}, 0, false
}

// span is where a report's body lies: lines [from, to), or, for an object
// found by its braces, from col on the first line to end on the last.
type span struct {
	from, to int
	col, end int // end < 0: whole lines
}

// unmark drops the HIVE_REPORT lines around a fence's body.
func unmark(lines []string, s span) span {
	s.from++
	if s.from < s.to && strings.TrimSpace(lines[s.to-1]) == "HIVE_REPORT" {
		s.to--
	}
	return s
}

// hasStatus says whether body is a JSON object with a "status" string: a
// report, if not necessarily a good one.
func hasStatus(body string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &obj) != nil && json.Unmarshal([]byte(dropTrailingCommas(body)), &obj) != nil {
		return false
	}
	var s string
	st := obj["status"]
	return st != nil && string(st) != "null" && json.Unmarshal(st, &s) == nil
}

// reportAt reads the HIVE_REPORT block that opens on lines[i] and returns
// it with the index of its last line. An unclosed block is an unreadable
// report of that one line: the lines after it may still hold messages.
func reportAt(lines []string, i int, closes *closeFinder) (Report, int) {
	first := lines[i][strings.Index(lines[i], reportOpen)+len(reportOpen):]
	if j := strings.Index(first, reportClose); j >= 0 {
		return ParseReport(first[:j]), i
	}
	k := closes.next(i)
	if k < 0 {
		return Report{Raw: strings.TrimSpace(first), Err: "HIVE_REPORT block is not closed with " + reportClose}, i
	}
	body := first + "\n" + strings.Join(lines[i+1:k], "\n") + "\n" + lines[k][:strings.Index(lines[k], reportClose)]
	return ParseReport(body), k
}

// ParseReport reads the JSON of one HIVE_REPORT block (the text between its
// markers). It never fails: see Report.Err.
func ParseReport(body string) Report {
	r := Report{Raw: strings.TrimSpace(body)}
	src := unfence(r.Raw)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(src), &obj); err != nil {
		// Models write trailing commas; one repair is worth a try.
		if err2 := json.Unmarshal([]byte(dropTrailingCommas(src)), &obj); err2 != nil {
			r.Err = "HIVE_REPORT is not a JSON object: " + err.Error()
			return r
		}
	}
	if obj == nil {
		r.Err = "HIVE_REPORT is not a JSON object: null"
		return r
	}
	seen := map[string]bool{}
	for _, k := range []string{"files", "files_modified", "files_changed", "files_created"} {
		for _, f := range strList(obj[k]) {
			if !seen[f] {
				seen[f] = true
				r.Files = append(r.Files, f)
			}
		}
	}
	for k, v := range obj {
		switch k {
		case "status":
			r.Status = strings.ToLower(strings.TrimSpace(str(v)))
		case "summary":
			r.Summary = str(v)
		case "files", "files_modified", "files_changed", "files_created":
		case "confidence":
			r.Confidence = number(v)
		case "decisions":
			r.Decisions = decisions(v)
		case "concerns":
			r.Concerns = strList(v)
		case "challenged_agent":
			r.ChallengedAgent = str(v)
		case "issue":
			r.Issue = str(v)
		case "evidence":
			r.Evidence = str(v)
		case "suggestion":
			r.Suggestion = str(v)
		case "severity":
			r.Severity = str(v)
		case "blocker":
			r.Blocker = str(v)
		case "options":
			r.Options = strList(v)
		case "can_proceed_with_default":
			r.CanProceedWithDefault = boolean(v)
		case "default_choice":
			r.DefaultChoice = str(v)
		default:
			if r.Extra == nil {
				r.Extra = map[string]json.RawMessage{}
			}
			r.Extra[k] = v
		}
	}
	switch r.Status {
	case work.ReportComplete, work.ReportPartial, work.ReportBlocked, work.ReportChallenge, work.ReportNeedsInput:
	case "":
		r.Err = "HIVE_REPORT has no status"
	default:
		r.Err = fmt.Sprintf("HIVE_REPORT status %q is not one of complete, partial, blocked, challenge, needs_input", r.Status)
		r.Status = ""
	}
	return r
}

// unfence removes a ```json fence around the whole block.
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") && !strings.HasPrefix(s, "~~~") {
		return s
	}
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return s
	}
	s = strings.TrimSpace(s[nl+1:])
	s = strings.TrimSuffix(strings.TrimSuffix(s, "```"), "~~~")
	return strings.TrimSpace(s)
}

// dropTrailingCommas removes commas that stand right before a closing
// bracket or brace, outside strings.
func dropTrailingCommas(s string) string {
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			b.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		}
		if c == ',' {
			j := i + 1
			for j < len(s) && isJSONSpace(s[j]) {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// str reads a JSON string; a number or boolean is kept as written, an
// object or array as its JSON.
func str(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	t := strings.TrimSpace(string(v))
	if t == "null" {
		return ""
	}
	return t
}

// strList reads a list of strings; a lone value is a list of one, and an
// object in the list gives its name, text, file or path.
func strList(v json.RawMessage) []string {
	if len(v) == 0 {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		if s := str(v); s != "" {
			return []string{s}
		}
		return nil
	}
	var out []string
	for _, it := range items {
		var o map[string]json.RawMessage
		if json.Unmarshal(it, &o) == nil && o != nil {
			for _, k := range []string{"name", "label", "text", "path", "file", "id"} {
				if s := str(o[k]); s != "" && o[k] != nil {
					out = append(out, s)
					break
				}
			}
			continue
		}
		if s := str(it); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func decisions(v json.RawMessage) []work.Decision {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		if s := str(v); s != "" {
			return []work.Decision{{Decision: s}}
		}
		return nil
	}
	var out []work.Decision
	for _, it := range items {
		var o map[string]json.RawMessage
		if json.Unmarshal(it, &o) == nil && o != nil {
			d := work.Decision{Decision: str(o["decision"]), Rationale: str(o["rationale"])}
			if d != (work.Decision{}) {
				out = append(out, d)
			}
			continue
		}
		if s := str(it); s != "" {
			out = append(out, work.Decision{Decision: s})
		}
	}
	return out
}

// number reads a JSON number, or a string holding one ("0.8", "85%").
func number(v json.RawMessage) float64 {
	var f float64
	if json.Unmarshal(v, &f) == nil {
		return f
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64); err == nil && f == f && f < 1e300 && f > -1e300 {
			return f
		}
	}
	return 0
}

func boolean(v json.RawMessage) bool {
	var b bool
	if json.Unmarshal(v, &b) == nil {
		return b
	}
	switch strings.ToLower(str(v)) {
	case "true", "yes", "1":
		return true
	}
	return false
}
