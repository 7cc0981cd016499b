package shellhive

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInspectShellHiveFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".hive/memory.json":           `{"schema_version": 2, "project": {"language": "go", "test_command": "go test ./..."}, "conventions": ["wrap errors"], "gotchas": ["PORT must be unset"], "run_count": 3}`,
		".hive/config.json":           `{"version": 1, "codex_enabled": false, "models": {"default": {"cli": "claude", "model": "sonnet"}}, "features": {"worktree_parallel": true}}`,
		".hive/agents/implementer.md": "# Implementer\n```\nbd ready\n```\nunder {{EPIC_ID}}\n",
		".hive/agents/reviewer.md":    "# Reviewer\nReview it.\n<!--HIVE_REPORT\n{}\nHIVE_REPORT-->\n",
		".hive/workflows/lean.json":   `{"name": "lean", "phases": [{"name": "implementation", "agent": "implementer"}]}`,
		".hive/workflows/bad.json":    `{"name": "bad", "phases": [{"name": "x", "agent": "poet"}]}`,
	})
	r := Inspect(root)
	if !r.Found {
		t.Fatal("not found")
	}
	got := map[string]File{}
	for _, f := range r.Files {
		got[f.Path] = f
	}
	want := map[string]string{
		".hive/memory.json": Used, ".hive/config.json": Used, ".hive/agents/implementer.md": Unusable,
		".hive/agents/reviewer.md": Used, ".hive/workflows/lean.json": Used, ".hive/workflows/bad.json": Unusable,
	}
	for p, st := range want {
		if got[p].Status != st {
			t.Errorf("%s: %+v, want %s", p, got[p], st)
		}
		if st == Unusable && got[p].Fix == "" {
			t.Errorf("%s: no fix", p)
		}
	}
	if d := got[".hive/config.json"].Detail; !strings.Contains(d, "ignores codex_enabled, features, version") {
		t.Errorf("config detail %q", d)
	}
}

func TestInspectSimpleConfigAndHiveFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{".hive/config.json": `{"models": {"default": "sonnet"}, "cli_overrides": {}}`})
	r := Inspect(root)
	if len(r.Files) != 1 || r.Files[0].Status != Used || !strings.Contains(r.Files[0].Detail, "ignores cli_overrides") {
		t.Fatalf("%+v", r)
	}
	simple := t.TempDir()
	write(t, simple, map[string]string{"hive.config.json": `{"_comment": "x", "models": {"default": "sonnet"}, "features": {}}`})
	if r := Inspect(simple); !r.Found || len(r.Files) != 1 || r.Files[0].Path != "hive.config.json" || r.Files[0].Status != Used || !strings.HasSuffix(r.Files[0].Detail, "; ignores features") {
		t.Fatalf("hive.config.json: %+v", r)
	}
	hive := t.TempDir()
	write(t, hive, map[string]string{".hive/config.json": `{"models": {"executor": {"cli": "claude"}}}`, ".hive/agents/vue-implementer.md": "{{template \"context\" .}}"})
	if r := Inspect(hive); r.Found {
		t.Fatalf("hive's own folder read as the shell Hive's: %+v", r)
	}
}

func TestMemory(t *testing.T) {
	root := t.TempDir()
	if _, ok := Memory(root); ok {
		t.Fatal("memory without a file")
	}
	long := make([]string, 400)
	for i := range long {
		long[i] = `"convention number ` + strings.Repeat("x", 20) + `"`
	}
	write(t, root, map[string]string{".hive/memory.json": `{"schema_version": 2, "gotchas": ["PORT must be unset"], "conventions": [` + strings.Join(long, ",") + `]}`})
	s, ok := Memory(root)
	if !ok || len(s) > MaxMemory || !strings.Contains(s, "## Conventions") || !strings.Contains(s, "PORT must be unset") {
		t.Fatalf("ok %v, %d bytes:\n%s", ok, len(s), s)
	}
}

// An entry that is no string (an object) is carried as its JSON text,
// not a reason to drop the whole memory.
func TestMemoryMixedEntries(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{".hive/memory.json": `{"schema_version": 2, "gotchas": ["PORT must be unset", {"text": "tests need docker"}], "conventions": []}`})
	s, ok := Memory(root)
	if !ok || !strings.Contains(s, "PORT must be unset") || !strings.Contains(s, `{"text": "tests need docker"}`) {
		t.Fatalf("ok %v:\n%s", ok, s)
	}
	if r := Inspect(root); len(r.Files) != 1 || r.Files[0].Status != Used {
		t.Fatalf("%+v", r)
	}
}
