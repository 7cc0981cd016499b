package planpath

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport/plantest"
)

func TestSafeRelPath(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"src/a.ts", "src/a.ts", ""},
		{" ./src//b/../a.ts ", "src/a.ts", ""},
		{`src\win\a.ts`, "src/win/a.ts", ""},
		{"a/..b", "a/..b", ""},
		{"", "", "empty"},
		{"/etc/passwd", "", "absolute"},
		{`\\server\share`, "", "absolute"},
		{"C:/x", "", "drive letter"},
		{"~/.zshrc", "", "home directory"},
		{"..", "", "leaves"},
		{"a/../../b", "", "leaves"},
		{`..\x`, "", "leaves"},
		{".", "", "repository root"},
		{"a/..", "", "repository root"},
		{"a\x00b", "", "NUL"},
		// Found hardening the plan reader: a plan could name git's hooks.
		{".git/hooks/pre-commit", "", "inside .git"},
		{".GIT/hooks/post-checkout", "", "inside .git"},
		{"sub/.git/config", "", "inside .git"},
		{".git./x", "", "inside .git"},
		{"a/../.git/x", "", "inside .git"},
		{".github/workflows/ci.yml", ".github/workflows/ci.yml", ""},
		{".gitignore", ".gitignore", ""},
		// Found by FuzzSafeRelPath (testdata/fuzz/FuzzSafeRelPath/f502c2d0c9b08322):
		// the clean form must read back as itself.
		{"0 /x/..", "", "ends with a space"},
		{"dir /file", "", "ends with a space"},
		{"a b/c d.txt", "a b/c d.txt", ""},
		// Found by FuzzSafeRelPath (testdata/fuzz/FuzzSafeRelPath/89a7bb5a91da2880):
		// cleaning must not make a home path that an agent would expand.
		{`.\~`, "", "home directory"},
		{"./~/.ssh/authorized_keys", "", "home directory"},
		{"a/~b", "a/~b", ""},
		// Found by FuzzSafeRelPath (testdata/fuzz/FuzzSafeRelPath/c1cbf34c66a5db43).
		{"./A:", "", "drive letter"},
		{`.\C:\Windows\system.ini`, "", "drive letter"},
		{"a/C:", "a/C:", ""},
	}
	for _, tt := range tests {
		got, err := SafeRelPath(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("SafeRelPath(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("SafeRelPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestResolveInRepo(t *testing.T) {
	root, _ := plantest.HostileRepo(t, "PASSED")
	real, _ := filepath.EvalSymlinks(root)
	for p, want := range map[string]string{
		"src/ok.go":         "src/ok.go",
		"inner/ok.go":       "src/ok.go",
		"inner/../README":   "README", // cleaned before it is resolved: never through the link
		"absinner/a/b.go":   "src/a/b.go",
		"src/ok.go/nothing": "src/ok.go/nothing",
	} {
		got, err := ResolveInRepo(root, p)
		if err != nil || got != filepath.Join(real, filepath.FromSlash(want)) {
			t.Errorf("ResolveInRepo(%q) = %q, %v; want %s", p, got, err, want)
		}
	}
	for _, p := range []string{"out", "out/x", "up", "dangling", "loop1", "chain/x", "sneaky", "../x", "/etc", "", "hooks/x", ".git/x"} {
		if got, err := ResolveInRepo(root, p); err == nil {
			t.Errorf("ResolveInRepo(%q) = %q, want an error", p, got)
		}
	}
}

func FuzzSafeRelPath(f *testing.F) {
	for _, s := range []string{"src/a.go", "../x", `..\x`, "/etc", "C:x", "~u", ".git/x", ".GIT./x", "a/./b/../c", "a\x00", " a ", "a//b", `\\srv\s`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := SafeRelPath(p)
		if err != nil {
			if c != "" {
				t.Fatalf("%q with an error", c)
			}
			return
		}
		switch {
		case c == "" || c == "." || strings.HasPrefix(c, "/") || strings.HasPrefix(c, "~"):
			t.Fatalf("SafeRelPath(%q) = %q", p, c)
		case c == ".." || strings.HasPrefix(c, "../") || strings.Contains(c, "/../") || strings.HasSuffix(c, "/.."):
			t.Fatalf("SafeRelPath(%q) = %q leaves the repository", p, c)
		case strings.ContainsAny(c, "\x00\\"):
			t.Fatalf("SafeRelPath(%q) = %q", p, c)
		case len(c) >= 2 && c[1] == ':' && isASCIILetter(c[0]):
			t.Fatalf("SafeRelPath(%q) = %q has a drive letter", p, c)
		case inGitDir(c):
			t.Fatalf("SafeRelPath(%q) = %q is in .git", p, c)
		}
		if again, err := SafeRelPath(c); err != nil || again != c {
			t.Fatalf("not idempotent: %q → %q → %q, %v", p, c, again, err)
		}
	})
}
