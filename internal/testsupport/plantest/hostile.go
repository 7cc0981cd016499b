package plantest

import (
	"os"
	"path/filepath"
	"testing"
)

// HostileRepo is a repository whose phase lists paths that leave it: by
// "..", absolute, home, drive letter, backslashes, and through symbolic
// links (to an absolute outside folder, up the tree, dangling, in a loop,
// and a chain of two links).
//
// selfCheck is its plan's SUMMARY's verdict: PASSED makes the plan done.
func HostileRepo(t *testing.T, selfCheck string) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	mk := func(rel, content string) {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("src/ok.go", "package src\n")
	link(outside, "out")
	link("..", "up")
	link("src", "inner")
	link("../../nowhere/at/all", "dangling")
	link("loop2", "loop1")
	link("loop1", "loop2")
	link("up", "chain")
	link("inner/../out", "sneaky")
	link(filepath.Join(root, "src"), "absinner")
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(".git/hooks", "hooks")
	dir := ".planning/phases/01-core/"
	mk(dir+"01-01-PLAN.md", `---
phase: 01-core
plan: 01
wave: 1
files_modified:
  - src/ok.go
  - inner/ok.go
  - absinner/new.go
  - src/new/deeper/file.go
  - ../../etc/passwd
  - /etc/shadow
  - ~/.ssh/authorized_keys
  - C:\Windows\system.ini
  - src\..\..\x
  - out/evil.sh
  - up/escape.txt
  - dangling
  - dangling/x
  - loop1/x
  - chain/x
  - sneaky/x
  - .git/hooks/pre-commit
  - .Git/hooks/post-merge
  - hooks/post-checkout
autonomous: true
---

<objective>Hostile paths.</objective>
<tasks><task type="auto"><name>t</name><files>src/ok.go</files><action>a</action></task></tasks>
`)
	mk(dir+"01-01-SUMMARY.md", `---
phase: 01-core
plan: 01
key-files:
  created:
    - src/ok.go
    - ../outside.txt
    - out/x
  modified: [/abs/path, "up/y", inner/ok.go]
---

# Summary

## Self-Check: `+selfCheck+`
`)
	return root, outside
}
