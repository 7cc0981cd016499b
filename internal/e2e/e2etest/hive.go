package e2etest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The tests that run hive as a program run their own test binary under
// the name hive: a package's TestMain calls HiveMain first, which turns
// the binary into hive when it was started by that name (and into the sim
// agent, which hive starts through the same link). No go build of
// cmd/hive is needed, which took minutes of a package's time on a loaded
// machine.

var (
	hiveBinOnce sync.Once
	hiveBinPath string
	hiveBinErr  error
)

// IsHive says whether this process was started as hive (HiveBin's link).
func IsHive() bool { return filepath.Base(os.Args[0]) == "hive" }

// HiveBin is a link named hive to this test binary.
func HiveBin(t testing.TB) string {
	t.Helper()
	hiveBinOnce.Do(func() {
		self, err := os.Executable()
		if err != nil {
			hiveBinErr = err
			return
		}
		dir, err := os.MkdirTemp("", "hive-e2e-bin-")
		if err != nil {
			hiveBinErr = err
			return
		}
		hiveBinPath = filepath.Join(dir, "hive")
		hiveBinErr = os.Symlink(self, hiveBinPath)
	})
	if hiveBinErr != nil {
		t.Fatal(hiveBinErr)
	}
	return hiveBinPath
}

// RemoveHiveBin removes HiveBin's link, once the package's tests are done.
func RemoveHiveBin() {
	if hiveBinPath != "" {
		os.RemoveAll(filepath.Dir(hiveBinPath))
	}
}

// HiveCmd runs the hive binary bin in root with env and returns its exit
// code and output.
func HiveCmd(t testing.TB, bin, root string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("hive %v: %v", args, err)
	}
	return code, out.String()
}
