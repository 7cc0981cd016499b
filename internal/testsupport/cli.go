package testsupport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireCLI finds the real agent CLI name: $HIVE_TOOLS/name, else
// <module root>/.tools/node_modules/.bin/name. Without it the test fails
// under CI and skips otherwise.
func RequireCLI(t testing.TB, name string) string {
	t.Helper()
	var cands []string
	if d := os.Getenv("HIVE_TOOLS"); d != "" {
		cands = append(cands, filepath.Join(d, name))
	}
	if root := moduleRoot(); root != "" {
		cands = append(cands, filepath.Join(root, ".tools", "node_modules", ".bin", name))
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return c
		}
	}
	msg := fmt.Sprintf("the %s CLI is not installed (looked at %v: $HIVE_TOOLS/%s and <module root>/.tools/node_modules/.bin/%s); run `make tools`", name, cands, name, name)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// FindTool is the program name that `make TARGET` installs for the tests:
// path where it is given (from the test's environment) and exists, else
// rel under the module's root, else name in PATH. Missing, the test fails
// where CI is set and is skipped elsewhere.
func FindTool(t testing.TB, name, path, rel, target string) string {
	t.Helper()
	var tried []string
	try := func(p string) bool {
		tried = append(tried, p)
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir()
	}
	if path != "" && try(path) {
		return path
	}
	if root := moduleRoot(); root != "" && try(filepath.Join(root, rel)) {
		return filepath.Join(root, rel)
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found (tried %s and PATH); run `make %s`", name, strings.Join(tried, ", "), target)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (skipping because CI is unset)")
	return ""
}

// moduleRoot is the folder of the go.mod above the working directory ("":
// none).
func moduleRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
