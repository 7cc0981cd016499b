package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// Commands printed for the user paste as they are: words with spaces or
// quotes are quoted for the shell, and --repo is added only when the user
// named a repository.
func TestPasteable(t *testing.T) {
	for _, tc := range []struct {
		repo, root string
		args       []string
		want       string
	}{
		{".", "/src/shelf", []string{"execute-phase", "01"}, "hive execute-phase 01"},
		{"../shelf", "/src/shelf", []string{"status"}, "hive status --repo /src/shelf"},
		{"/tmp/my demo", "/tmp/my demo", []string{"log"}, "hive log --repo '/tmp/my demo'"},
		{"x", "/tmp/it's", []string{"answer", "01-01", "looks good"}, `hive answer 01-01 'looks good' --repo '/tmp/it'\''s'`},
		{".", "/r", []string{""}, "hive ''"},
	} {
		g := &globalOptions{repo: tc.repo}
		if got := g.pasteable(tc.root, tc.args...); got != tc.want {
			t.Errorf("pasteable(%q, %q) with --repo %q = %s, want %s", tc.root, tc.args, tc.repo, got, tc.want)
		}
	}
}

// The commands hive prints start with what runs this hive again from the
// user's shell.
func TestSelfCommand(t *testing.T) {
	same := func(a, b string) bool { return a == b }
	dev := versionInfo{Version: "dev"}
	for _, tc := range []struct {
		name, exe, inPath string
		v                 versionInfo
		want              string
	}{
		{"the hive in PATH", "/usr/local/bin/hive", "/usr/local/bin/hive", dev, "hive"},
		{"make build's bin/hive", "/src/hive/bin/hive", "", dev, "/src/hive/bin/hive"},
		{"another hive in PATH", "/src/hive/bin/hive", "/usr/local/bin/hive", dev, "/src/hive/bin/hive"},
		{"a path to quote", "/home/me/my tools/hive", "", dev, "'/home/me/my tools/hive'"},
		{"go run in a checkout", "/tmp/go-build2646370775/b001/exe/hive", "", dev, "go run ./cmd/hive"},
		{"go run in a checkout stamped by git", "/tmp/go-build1/b001/exe/hive", "/usr/local/bin/hive",
			versionInfo{Version: "v0.0.0-20260101120000-4491182ab3c1+dirty", Revision: "4491182ab3c1"}, "go run ./cmd/hive"},
		{"go run of a released module", "/tmp/go-build1/b001/exe/hive", "",
			versionInfo{Version: "v1.2.0"}, "go run github.com/hivectl/hive/cmd/hive@v1.2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := selfCommand(tc.exe, tc.inPath, same, tc.v); got != tc.want {
				t.Errorf("selfCommand = %q, want %q", got, tc.want)
			}
		})
	}
	g := &globalOptions{self: "go run ./cmd/hive", repo: "/tmp/shelf"}
	if got, want := g.pasteable("/tmp/shelf", "status"), "go run ./cmd/hive status --repo /tmp/shelf"; got != want {
		t.Errorf("pasteable = %q, want %q", got, want)
	}
}

// The binary a hint names is the one the user started: a link they typed
// stays that link (the e2e tests start hive through one, and the hint
// named the test binary it points to); a bare name is PATH's, resolved.
func TestInvokedAs(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hive")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	if got, err := invokedAs(link); err != nil || got != link {
		t.Errorf("invokedAs(%q) = %q, %v; want the link", link, got, err)
	}
	if got, err := invokedAs("hive"); err != nil || got != self {
		t.Errorf("invokedAs(\"hive\") = %q, %v; want the running binary %q", got, err, self)
	}
}
