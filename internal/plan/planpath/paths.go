package planpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// SafeRelPath cleans a path taken from a plan and returns it slash-separated and
// relative to the repository root. It fails when the path is empty, absolute
// (including Windows drive and UNC forms and "~"), leaves the repository
// through "..", or is inside .git (in any letter case): plans are untrusted input and must never make hive touch files
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
	// Cleaning can uncover a form refused above: "./~/.ssh/x" becomes
	// "~/.ssh/x", which an agent reads as home, "./C:/x" a drive path.
	switch {
	case len(c) >= 2 && c[1] == ':' && isASCIILetter(c[0]):
		return "", fmt.Errorf("path %q is absolute (drive letter); paths must be relative to the repository root", p)
	case strings.HasPrefix(c, "~"):
		return "", fmt.Errorf("path %q is in a home directory, outside the repository", p)
	}
	for _, part := range strings.Split(c, "/") {
		// "a /x/.." cleans to "a ": a name Windows cannot hold and that a
		// second reading would trim to another file.
		if strings.TrimSpace(part) != part {
			return "", fmt.Errorf("path %q has a file or folder name that starts or ends with a space", p)
		}
	}
	if inGitDir(c) {
		return "", fmt.Errorf("path %q is inside .git, which only git may change (a hook written there runs on hive's next git command)", p)
	}
	return c, nil
}

// inGitDir reports whether a clean slash-separated path has a .git
// component, compared as case-insensitive file systems and Windows do
// (".GIT", ".git." and ".git " name the same folder there).
func inGitDir(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if strings.EqualFold(strings.TrimRight(c, ". "), ".git") {
			return true
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// maxLinks bounds how many symbolic links ResolveInRepo follows for one path.
const maxLinks = 40

// ResolveInRepo checks a path taken from a plan against the repository at
// root as it is on disk: besides what SafeRelPath refuses, it refuses a path
// that goes through a symbolic link pointing outside the repository (a link
// that dangles included), so that writing to it cannot touch files outside
// the worktree. It returns the absolute path with links resolved; the
// part of the path that does not exist yet is kept as written.
func ResolveInRepo(root, p string) (string, error) {
	rel, err := SafeRelPath(p)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve %q: repository root: %w", p, err)
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return "", fmt.Errorf("resolve %q: repository root: %w", p, err)
	}
	links := 0
	cur := realRoot
	rest := strings.Split(rel, "/")
	for len(rest) > 0 {
		next := filepath.Join(cur, rest[0])
		rest = rest[1:]
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("path %q: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("path %q: too many symbolic links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("path %q: %w", p, err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		target = filepath.Clean(target)
		inside, err := filepath.Rel(realRoot, target)
		if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("path %q goes through the symbolic link %s, which points outside the repository (to %s)",
				p, filepath.ToSlash(mustRel(realRoot, next)), target)
		}
		if inGitDir(filepath.ToSlash(inside)) {
			return "", fmt.Errorf("path %q goes through the symbolic link %s, which points into .git", p, filepath.ToSlash(mustRel(realRoot, next)))
		}
		// Follow the link from the root again: its target may hold links too.
		cur = realRoot
		if inside != "." {
			rest = append(strings.Split(filepath.ToSlash(inside), "/"), rest...)
		}
	}
	return cur, nil
}

func mustRel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}
