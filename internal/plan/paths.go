package plan

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// SafeRelPath cleans a path taken from a plan and returns it slash-separated and
// relative to the repository root. It fails when the path is empty, absolute
// (including Windows drive and UNC forms and "~"), or leaves the repository
// through "..": plans are untrusted input and must never make hive touch files
// outside the worktree.
func SafeRelPath(p string) (string, error) {
	s := strings.TrimSpace(p)
	if s == "" {
		return "", errors.New("empty path")
	}
	if strings.ContainsRune(s, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	// Plans are written on every OS; treat a backslash as a separator so that
	// "..\\x" cannot slip through on the way to a Windows checkout.
	s = strings.ReplaceAll(s, `\`, "/")
	switch {
	case strings.HasPrefix(s, "/"):
		return "", fmt.Errorf("path %q is absolute; paths must be relative to the repository root", p)
	case len(s) >= 2 && s[1] == ':' && isASCIILetter(s[0]):
		return "", fmt.Errorf("path %q is absolute (drive letter); paths must be relative to the repository root", p)
	case strings.HasPrefix(s, "~"):
		return "", fmt.Errorf("path %q is in a home directory, outside the repository", p)
	}
	c := path.Clean(s)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q leaves the repository", p)
	}
	if c == "." {
		return "", fmt.Errorf("path %q names the repository root, not a file", p)
	}
	return c, nil
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
