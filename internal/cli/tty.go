package cli

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f (stdin, stdout) is a terminal: one a human
// types in, or one a dashboard can draw on.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
