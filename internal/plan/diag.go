package plan

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// String returns "error", "warning" or "note".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	default:
		return "note"
	}
}

// String formats d the way compilers do, so editors can jump to the line:
// "path:line: error: message (fix: ...)".
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
	}
	fmt.Fprintf(&b, ": %s: %s", d.Severity, d.Message)
	if d.Fix != "" {
		// A fix is written to end plainly: one ending in ")" would print
		// "))" here (the tests check every fix they meet).
		fmt.Fprintf(&b, " (fix: %s)", d.Fix)
	}
	return b.String()
}

// HasErrors reports whether any diagnostic is an error; notes and warnings never
// stop a run.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Diags collects the findings about one file, as the readers of planning
// files make them.
type Diags struct {
	File string
	List []Diagnostic
}

func (ds *Diags) add(sev Severity, line int, fix, format string, args ...any) {
	ds.List = append(ds.List, Diagnostic{Severity: sev, File: ds.File, Line: line, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// Errorf adds an error at line, with its fix.
func (ds *Diags) Errorf(line int, fix, format string, args ...any) {
	ds.add(SeverityError, line, fix, format, args...)
}

// Warnf adds a warning at line, with its fix.
func (ds *Diags) Warnf(line int, fix, format string, args ...any) {
	ds.add(SeverityWarning, line, fix, format, args...)
}

// Notef adds a note at line, with its fix ("" for none).
func (ds *Diags) Notef(line int, fix, format string, args ...any) {
	ds.add(SeverityNote, line, fix, format, args...)
}

// SortDiagnostics orders findings by file, then line.
func SortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Line < ds[j].Line
	})
}

// FirstLine is the first of lines that is known (above 0), else 0.
func FirstLine(lines ...int) int {
	for _, l := range lines {
		if l > 0 {
			return l
		}
	}
	return 0
}

// Truncate shortens s to n runes, ending it with "…" when it cuts: how
// diagnostics quote what a file says, and how long names are shown.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
