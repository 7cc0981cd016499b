package repo

import (
	"os"
	"path/filepath"
	"testing"
)

// The package clause of a Go file the sim creates keeps the project
// building: a sibling's package, main for main.go and cmd/, else one named
// after its folder; at a root without Go files, a library package named
// after the module (a root "package main" without a main func broke go
// build ./... of a public project that keeps its commands in cmd/).
func TestGoPackageFor(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{
		"go.mod":              "module github.com/acme/stock-rush\n\ngo 1.22\n",
		"internal/store/a.go": "package store\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, want := range map[string]string{
		"hive_sim_change.go":        "stockrush",
		"main.go":                   "main",
		"cmd/tool.go":               "main",
		"internal/store/b.go":       "store",
		"internal/new-feature/x.go": "newfeature",
	} {
		if got := GoPackageFor(root, rel); got != want {
			t.Errorf("GoPackageFor(%s) = %q, want %q", rel, got, want)
		}
	}
	if got := GoPackageFor(t.TempDir(), "x.go"); got != "hivesim" {
		t.Errorf("a root without go.mod: %q, want hivesim", got)
	}
}
