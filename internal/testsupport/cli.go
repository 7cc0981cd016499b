package testsupport

import (
	"fmt"
	"os"
	"path/filepath"
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
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				cands = append(cands, filepath.Join(d, ".tools", "node_modules", ".bin", name))
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
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
