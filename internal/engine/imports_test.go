package engine

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportRule keeps the engine pure: it imports only the standard
// library (cmd/hive's TestImportRules holds every package to its list), and
// of that no package that does I/O or draws random numbers: a journal,
// os/exec or a clock would let I/O or nondeterminism into the state machine.
func TestImportRule(t *testing.T) {
	// Its sub-machines, its vocabulary, and the one it shares with the
	// pipeline, are held to the same rule; the script reader is a test's.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"*", "../phase", "../work"} {
		shared, _ := filepath.Glob(dir + "/*.go")
		for _, f := range shared {
			if !strings.HasPrefix(f, "enginescript/") {
				files = append(files, f)
			}
		}
	}
	forbiddenStd := map[string]bool{"os": true, "os/exec": true, "net": true, "net/http": true, "math/rand": true, "math/rand/v2": true, "database/sql": true, "syscall": true}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			checked++
			first, _, _ := strings.Cut(path, "/")
			switch {
			case path == "github.com/hivectl/hive/internal/work", path == "github.com/hivectl/hive/internal/phase":
			case strings.HasPrefix(path, "github.com/hivectl/hive/internal/engine/") && !strings.HasSuffix(path, "script"):
			case strings.Contains(first, "."):
				t.Errorf("%s imports %s: the engine may import only the standard library", f, path)
			case forbiddenStd[path]:
				t.Errorf("%s imports %s: the engine does no I/O and draws no random numbers; pass them in as events", f, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no imports checked: is the test running in the engine's folder?")
	}
}
