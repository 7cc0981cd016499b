package plan

import (
	"fmt"
	"strings"
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

// diags collects the findings about one file.
type diags struct {
	file string
	list []Diagnostic
}

func (ds *diags) add(sev Severity, line int, fix, format string, args ...any) {
	ds.list = append(ds.list, Diagnostic{Severity: sev, File: ds.file, Line: line, Message: fmt.Sprintf(format, args...), Fix: fix})
}

func (ds *diags) errorf(line int, fix, format string, args ...any) {
	ds.add(SeverityError, line, fix, format, args...)
}

func (ds *diags) warnf(line int, fix, format string, args ...any) {
	ds.add(SeverityWarning, line, fix, format, args...)
}

func (ds *diags) notef(line int, fix, format string, args ...any) {
	ds.add(SeverityNote, line, fix, format, args...)
}
