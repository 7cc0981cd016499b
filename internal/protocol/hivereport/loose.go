package hivereport

import (
	"encoding/json"
	"slices"
	"strings"
)

// Loose finds the report of a text without a HIVE_REPORT comment, in
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
func Loose(lines []string) (Report, int, bool) {
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
		return Parse(strings.Join(lines[s.from:s.to], "\n")), max(s.from-1, 0), true
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
			return Parse(body), at, true
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
