package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// thisHive is the command that runs this hive binary from the user's
// shell, for the commands hive prints to paste: "hive" when that is the
// hive in PATH; "go run ./cmd/hive" (or the module at its version) when
// `go run` built it in a temporary folder that is gone once it exits; else
// the binary's own path (./bin/hive, a copy outside PATH).
func thisHive() string {
	exe, err := invokedAs(os.Args[0])
	if err != nil {
		return "hive"
	}
	inPath, _ := exec.LookPath("hive")
	return selfCommand(exe, inPath, sameFile, buildVersion())
}

// invokedAs is the binary as the user's shell started it: the path they
// typed (a link stays a link: ~/bin/hive, not what it points to), or, for
// a name PATH found, the binary itself.
func invokedAs(arg0 string) (string, error) {
	if strings.ContainsRune(arg0, filepath.Separator) {
		return filepath.Abs(arg0)
	}
	return os.Executable()
}

// selfCommand is thisHive's choice, given the running binary exe, the hive
// that PATH finds (inPath, "" when none) and the build's version.
func selfCommand(exe, inPath string, same func(a, b string) bool, v versionInfo) string {
	if builtByGoRun(exe) {
		if v.Revision == "" && strings.HasPrefix(v.Version, "v") {
			// `go run github.com/hivectl/hive/cmd/hive@v1.2.0`: a module
			// from the module cache, which has no VCS stamp.
			return "go run github.com/hivectl/hive/cmd/hive@" + v.Version
		}
		return "go run ./cmd/hive" // from the checkout it was built in, as the README does
	}
	if inPath != "" && same(exe, inPath) {
		return "hive"
	}
	return shellQuote(exe)
}

// builtByGoRun tells a binary that `go run` built: it lives in go's
// temporary work folder, as …/go-build123456/b001/exe/hive.
func builtByGoRun(exe string) bool {
	dir := filepath.Dir(exe)
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
