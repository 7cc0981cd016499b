package protocol

import (
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/protocol/hivereport"
)

// HiveReport is the kind of a v4 <!--HIVE_REPORT {json} HIVE_REPORT--> block (seed 003).
const HiveReport Kind = "hive-report"

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
// hivereport.Loose): then the text gives one report at most, placed among
// the other messages where it stands.
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
	r, at, ok := hivereport.Loose(lines)
	if !ok {
		return out
	}
	// The messages of the lines before the report come before it.
	n := min(len(parseMessages(strings.Join(lines[:at], "\n"))), len(out))
	return slices.Insert(out, n, Message{Kind: HiveReport, Report: &r})
}

// FindReport returns the report an agent's whole output ends with: the
// last HIVE_REPORT Parse finds in it (which may be unreadable: see
// hivereport.Report.Err), and false when there is none.
func FindReport(text string) (hivereport.Report, bool) {
	ms := Parse(text)
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Kind == HiveReport {
			return *ms[i].Report, true
		}
	}
	return hivereport.Report{}, false
}

// reportAt reads the HIVE_REPORT block that opens on lines[i] and returns
// it with the index of its last line. An unclosed block is an unreadable
// report of that one line: the lines after it may still hold messages.
func reportAt(lines []string, i int, closes *closeFinder) (hivereport.Report, int) {
	first := lines[i][strings.Index(lines[i], reportOpen)+len(reportOpen):]
	if j := strings.Index(first, reportClose); j >= 0 {
		return hivereport.Parse(first[:j]), i
	}
	k := closes.next(i)
	if k < 0 {
		return hivereport.Report{Raw: strings.TrimSpace(first), Err: "HIVE_REPORT block is not closed with " + reportClose}, i
	}
	body := first + "\n" + strings.Join(lines[i+1:k], "\n") + "\n" + lines[k][:strings.Index(lines[k], reportClose)]
	return hivereport.Parse(body), k
}
