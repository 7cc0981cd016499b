package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether r is a terminal a human types in.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
