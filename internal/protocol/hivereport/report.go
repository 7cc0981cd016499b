package hivereport

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

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

// Parse reads the JSON of one HIVE_REPORT block (the text between its
// markers). It never fails: see Report.Err.
func Parse(body string) Report {
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
