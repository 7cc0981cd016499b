package parse_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// seedFiles returns every markdown fixture of the plan packages' tests
// (../testdata), plus inputs aimed at the scanner's corners, as fuzz seeds.
func seedFiles(f *testing.F, suffix string) {
	f.Helper()
	err := filepath.WalkDir(filepath.Dir(fixture), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || strings.Contains(p, "fuzz") {
			return err
		}
		if data, err := os.ReadFile(p); err == nil && (suffix == "" || strings.HasSuffix(p, suffix)) {
			f.Add(data)
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"", "---", "---\n", "---\n---", "\uFEFF---\nwave: 1\n---\n<task>",
		"---\nwave: *a\n---\n", "---\na: &a [*a]\n---\n", "---\n[1, 2]\n---\n",
		"<task type=\"auto\"><task><name>x</name></task></task>",
		"<tasks><task a='1' b=\"2\" c=3 d><name>n</name><files>`a`, - b (new)</files>",
		"```\n<task>\n```\n<task></task>\n~~~~\n~~~\n<!-- <task> -->",
		"## Tasks\n### 1. a\n**Files:** x\n## Task 2\n```\n## Task 3\n```\n",
		"<task type=\"checkpoint:decision\"><decision>q<options><option id=x><name>a</name></option></options></decision></task>",
		"## Self-Check: PASSED\n# T\n**b**\n",
	} {
		f.Add([]byte(s))
	}
}

func lineCount(data []byte) int {
	return strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + 1
}

func checkDiags(t *testing.T, file string, last int, ds []plan.Diagnostic) {
	t.Helper()
	for _, d := range ds {
		if d.File != file || d.Message == "" || d.Line < 0 || d.Line > last {
			t.Fatalf("bad diagnostic (file %q, %d lines): %#v", file, last, d)
		}
		if d.Severity == plan.SeverityError && (d.Fix == "" || d.Line == 0) {
			t.Fatalf("error without a line or a fix: %s", d)
		}
		plantest.CheckFixEnd(t, d)
	}
}

func FuzzParsePlan(f *testing.F) {
	seedFiles(f, "-PLAN.md")
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = ".planning/phases/01-x/01-02-PLAN.md"
		p, ds := parse.Plan(file, data)
		last := lineCount(data)
		checkDiags(t, file, last, ds)
		if p == nil {
			if !plan.HasErrors(ds) {
				t.Fatalf("nil plan without an error: %v", ds)
			}
			return
		}
		if p.ID != "01-02" || p.Path != file || p.Name == "" || p.Wave < 0 || p.BodyLine < 1 || p.BodyLine > last {
			t.Fatalf("bad plan header: %+v", p)
		}
		for k, l := range p.Lines {
			if l < 1 || l > last {
				t.Fatalf("Lines[%q] = %d of %d", k, l, last)
			}
		}
		for _, d := range p.DependsOn {
			if d == "" {
				t.Fatalf("empty dependency in %q", p.DependsOn)
			}
		}
		if again, ds2 := parse.Plan(file, data); !reflect.DeepEqual(again.Tasks, p.Tasks) || !reflect.DeepEqual(ds2, ds) {
			t.Fatal("parse.Plan is not deterministic")
		}
		prev := 0
		for i, tk := range p.Tasks {
			for _, f := range tk.Files {
				if f == "" {
					t.Fatalf("task %d has an empty file: %q", i+1, tk.Files)
				}
			}
			if tk.Number != i+1 || tk.Line < prev || tk.Line < 1 || tk.Line > last || tk.Type == "" || tk.Attrs == nil || tk.Name == "" {
				t.Fatalf("bad task %d: %+v", i+1, tk)
			}
			prev = tk.Line
		}
		ph := &plan.Phase{Dir: ".planning/phases/01-x", Plans: []*plan.Plan{p}}
		checkDiags(t, file, last, validate.Phase(ph))
		if p.ComputedWave < 0 || (p.ComputedWave > 0 && p.Wave > 0 && p.ComputedWave < p.Wave) {
			t.Fatalf("ComputedWave %d, Wave %d", p.ComputedWave, p.Wave)
		}
	})
}

func FuzzParseSummary(f *testing.F) {
	seedFiles(f, "")
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = ".planning/phases/01-x/01-02-SUMMARY.md"
		s, ds := parse.Summary(file, data)
		checkDiags(t, file, lineCount(data), ds)
		if s == nil || s.PlanID != "01-02" || s.Path != file {
			t.Fatalf("bad summary: %+v", s)
		}
		if strings.Contains(s.OneLiner, "\n") {
			t.Fatalf("OneLiner spans lines: %q", s.OneLiner)
		}
		switch s.SelfCheck {
		case "", "PASSED", "FAILED":
		default:
			t.Fatalf("SelfCheck = %q", s.SelfCheck)
		}
	})
}
