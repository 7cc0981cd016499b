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

// terminalWidth is the width of the terminal f, or 0 when it is none.
func terminalWidth(f any) int {
	file, ok := f.(*os.File)
	if !ok {
		return 0
	}
	w, _, err := term.GetSize(int(file.Fd()))
	if err != nil {
		return 0
	}
	return w
}
