package testsupport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fakeM struct{ seen map[string]string }

func (f *fakeM) Run() int {
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "TMPDIR"} {
		f.seen[k] = os.Getenv(k)
	}
	return 7
}

// TestWithTempHome: the wrapped tests see a fresh home with the cache and
// config folders inside it, get the inner exit code back, and the folder
// is gone afterwards.
func TestWithTempHome(t *testing.T) {
	real := os.Getenv("HOME")
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(k, os.Getenv(k))
	}
	f := &fakeM{seen: map[string]string{}}
	if code := WithTempHome(f).Run(); code != 7 {
		t.Fatalf("exit code %d, want the inner 7", code)
	}
	home := f.seen["HOME"]
	if home == "" || home == real || !strings.HasPrefix(filepath.Base(home), "hive-test-home-") {
		t.Fatalf("HOME during the tests = %q (real %q)", home, real)
	}
	if f.seen["XDG_CACHE_HOME"] != filepath.Join(home, ".cache") || f.seen["XDG_CONFIG_HOME"] != filepath.Join(home, ".config") {
		t.Fatalf("cache/config not inside the temporary home: %v", f.seen)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("the temporary home %s is still there: %v", home, err)
	}
}

// TestTempFilesInMemory: without a TMPDIR of the developer's, the wrapped
// tests' temporary files go to a fresh folder in /dev/shm, where the
// machine has room, removed afterwards; a TMPDIR the developer set stays.
func TestTempFilesInMemory(t *testing.T) {
	chosen := t.TempDir()
	t.Setenv("TMPDIR", chosen)
	f := &fakeM{seen: map[string]string{}}
	WithTempHome(f).Run()
	if f.seen["TMPDIR"] != chosen {
		t.Fatalf("TMPDIR during the tests = %q, want the developer's", f.seen["TMPDIR"])
	}
	os.Unsetenv("TMPDIR") // t.Setenv puts it back
	WithTempHome(f).Run()
	tmp := f.seen["TMPDIR"]
	if !memRoom() {
		// A small /dev/shm (a container's 64 MB): the system's folder.
		if tmp != "" || !strings.HasPrefix(f.seen["HOME"], os.TempDir()) {
			t.Fatalf("without room in /dev/shm: TMPDIR during the tests = %q, HOME %q; want the system's temporary folder", tmp, f.seen["HOME"])
		}
		return
	}
	if !strings.HasPrefix(tmp, "/dev/shm/hive-test-") || !strings.HasPrefix(f.seen["HOME"], tmp+"/") {
		t.Fatalf("TMPDIR during the tests = %q, HOME %q: want a fresh folder in /dev/shm holding the home", tmp, f.seen["HOME"])
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("the temporary folder %s is still there: %v", tmp, err)
	}
}

// TestEveryPackageUsesATempHome: every package with tests runs them under
// WithTempHome, so that `make test` leaves the developer's ~/.cache/hive as
// it found it. A new test package without it fails here, by name.
func TestEveryPackageUsesATempHome(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	missing := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		dir := filepath.Dir(p)
		if _, seen := missing[dir]; !seen {
			missing[dir] = true
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "func TestMain(") && strings.Contains(string(src), "WithTempHome(m)") {
			missing[dir] = false
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, miss := range missing {
		if miss && dir != filepath.Join(root, "internal", "testsupport") {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("%s: its tests do not run under testsupport.WithTempHome; add\n\tfunc TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }", rel)
		}
	}
}
