package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/hivectl/hive/internal/cli"
)

// docsDir is the repository's docs/ folder, which holds the committed
// reference.
var docsDir = filepath.Join("..", "..", "..", "docs")

// pages returns the reference's files under dir (the names of those that
// gendocs owns, relative to dir) with their contents.
func pages(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for _, g := range []string{filepath.Join(markdownDir, markdownGlob), filepath.Join(manDir, manGlob)} {
		files, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, f)
			got[filepath.ToSlash(rel)] = data
		}
	}
	return got
}

func generated(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if err := generate(cli.Command(), dir); err != nil {
		t.Fatal(err)
	}
	return pages(t, dir)
}

// The committed command reference (docs/commands, docs/man) is what the
// command tree generates now: a changed flag, command or help text without
// `make docs` fails here.
func TestDocsCommandReference(t *testing.T) {
	want := generated(t)
	if len(want) < 2*20 {
		t.Fatalf("gendocs wrote %d pages: fewer than hive's commands", len(want))
	}
	have := pages(t, docsDir)
	for _, name := range slices.Sorted(maps.Keys(want)) {
		switch old, ok := have[name]; {
		case !ok:
			t.Errorf("docs/%s is missing: run `make docs` and commit docs/", name)
		case !bytes.Equal(old, want[name]):
			t.Errorf("docs/%s is stale: the command's help changed; run `make docs` and commit docs/", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/%s documents a command hive no longer has: run `make docs` (it removes the page) and commit docs/", name)
		}
	}
}

// The reference does not depend on the day or the build: cobra's
// "Auto generated … on DATE" line is off, the man pages' date is empty,
// and SOURCE_DATE_EPOCH, which cobra reads for that date, changes nothing.
func TestDocsReferenceUndated(t *testing.T) {
	first := generated(t)
	t.Setenv("SOURCE_DATE_EPOCH", "86400000")
	second := generated(t)
	th := regexp.MustCompile(`(?m)^\.TH "[^"]*" "1" "" "hive" "hive manual"$`)
	for name, data := range first {
		if !bytes.Equal(data, second[name]) {
			t.Errorf("%s changes with SOURCE_DATE_EPOCH", name)
		}
		if bytes.Contains(data, []byte("Auto generated")) {
			t.Errorf("%s carries cobra's generator stamp", name)
		}
		if filepath.Ext(name) == ".1" && !th.Match(data) {
			t.Errorf("%s: no undated .TH line:\n%.200s", name, data)
		}
	}
}

// A command removed from hive loses its page when the reference is
// generated again, and files gendocs does not own stay.
func TestDocsRegenerateRemovesOldPages(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"commands/hive_gone.md", "man/hive-gone.1", "commands/notes.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := generate(cli.Command(), dir); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]bool{"commands/hive_gone.md": false, "man/hive-gone.1": false, "commands/notes.txt": true, "commands/hive_run.md": true, "man/hive-run.1": true} {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		if got := err == nil; got != want {
			t.Errorf("%s exists: %v, want %v", f, got, want)
		}
	}
}
