package objectives

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The three repositories the pipeline bench creates, one per language, and
// the real test runs that tell, for every function and variant, which of
// the visible, the tester's and the hidden cases pass.

// Variants an implementer may write.
const (
	VariantCorrect = "correct"
	VariantSubtle  = "subtle" // passes the visible cases, fails an edge case
	VariantStub    = "stub"   // a TODO left: fails the visible cases too
)

// Case suites: the file names say them.
const (
	SuiteVisible = "visible"
	SuiteTester  = "tester"
	SuiteHidden  = "hidden"
)

var (
	Languages     = []string{"go", "python", "js"}
	benchVariants = []string{VariantCorrect, VariantSubtle, VariantStub}
	Suites        = []string{SuiteVisible, SuiteTester, SuiteHidden}
)

// Lang is how one language's repository is laid out and tested.
type Lang struct {
	// Source is a function's file in the repository.
	Source func(fn string) string
	// Stub is the body under a function's first line that leaves it undone.
	Stub func(zero string) string
	// Files are the repository's fixed files: its manifest and its harness.
	Files map[string]string
	// Test is the project's test command.
	Test []string
	// File turns a function's code into its file's text.
	File func(code string) string
}

var Langs = map[string]Lang{
	"go": {
		Source: func(fn string) string { return fn + ".go" },
		Stub: func(zero string) string {
			return "\t// TODO: implement\n\treturn " + map[string]string{"string": `""`, "int": "0", "bool": "false"}[zero] + "\n}\n"
		},
		Files: map[string]string{"go.mod": "module example.com/benchgo\n\ngo 1.22\n", "cases_test.go": goHarness},
		Test:  []string{"go", "test", "-count=1", "."},
		File:  goFile,
	},
	"python": {
		Source: func(fn string) string { return "lib/" + fn + ".py" },
		Stub: func(zero string) string {
			return "    # TODO: implement\n    return " + map[string]string{"string": `""`, "int": "0", "bool": "False"}[zero] + "\n"
		},
		Files: map[string]string{"lib/__init__.py": "", "tests/__init__.py": "", "tests/test_cases.py": pyHarness, "pyproject.toml": "[project]\nname = \"benchpy\"\nversion = \"0.1.0\"\n"},
		Test:  []string{"python3", "-m", "unittest", "discover", "-s", "tests", "-t", "."},
		File:  func(code string) string { return code },
	},
	"js": {
		Source: func(fn string) string { return "src/" + fn + ".js" },
		Stub: func(zero string) string {
			return "  // TODO: implement\n  return " + map[string]string{"string": `""`, "int": "0", "bool": "false"}[zero] + ";\n}\n"
		},
		Files: map[string]string{"package.json": `{"name": "benchjs", "version": "0.1.0", "type": "module", "scripts": {"test": "node --test test/"}}` + "\n", "test/cases.test.js": jsHarness},
		Test:  []string{"node", "--test", "test/"},
		File:  func(code string) string { return code },
	},
}

// CodeIn is a function's text in a language and variant.
func (o Objective) CodeIn(lang, variant string) string {
	c := o.Code[lang]
	switch variant {
	case VariantSubtle:
		return c.Subtle
	case VariantStub:
		first, _, _ := strings.Cut(c.Correct, "\n")
		return first + "\n" + Langs[lang].Stub(o.Zero)
	}
	return c.Correct
}

var goImportRE = regexp.MustCompile(`\b(fmt|strconv|strings)\.`)

// goFile is a Go function's file: the package clause and what it imports.
func goFile(code string) string {
	seen := map[string]bool{}
	var imports []string
	for _, m := range goImportRE.FindAllStringSubmatch(code, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			imports = append(imports, fmt.Sprintf("%q", m[1]))
		}
	}
	head := "package benchgo\n\n"
	if len(imports) > 0 {
		head += "import (\n\t" + strings.Join(imports, "\n\t") + "\n)\n\n"
	}
	return head + code
}

// casesJSON is a suite's cases of every objective, as the harnesses read them.
func casesJSON(suite string) []byte {
	var all []benchCase
	for _, o := range All {
		for _, c := range map[string][][2]any{SuiteVisible: o.Visible, SuiteTester: o.Tester, SuiteHidden: o.Hidden}[suite] {
			all = append(all, benchCase{Fn: o.Fn, Args: c[0].([]any), Want: c[1]})
		}
	}
	data, _ := json.MarshalIndent(all, "", " ")
	return data
}

// writeRepo lays out lang's repository in dir with every function in
// variant, and the visible cases (cases/visible.test.json).
func writeRepo(dir, lang, variant string) error {
	l := Langs[lang]
	files := map[string]string{"cases/visible.test.json": string(casesJSON(SuiteVisible))}
	for name, text := range l.Files {
		files[name] = text
	}
	for _, o := range All {
		files[l.Source(o.Fn)] = l.File(o.CodeIn(lang, variant))
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// SuiteResult is how one function's cases of one suite went.
type SuiteResult struct{ Passed, Failed int }

// Outcomes are the real test runs' results: language → variant → function
// → suite.
type Outcomes map[string]map[string]map[string]map[string]SuiteResult

// Measure creates each language's repository in each variant under
// dir and runs its test command on all three suites (the hidden and the
// tester's cases from outside the repository), reading each case's result
// from the harness. Nine real test runs in all.
func Measure(ctx context.Context, dir string) (Outcomes, error) {
	suites := filepath.Join(dir, "suites")
	if err := os.MkdirAll(suites, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, s := range Suites {
		p := filepath.Join(suites, s+".test.json")
		if err := os.WriteFile(p, casesJSON(s), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	out := Outcomes{}
	for _, lang := range Languages {
		out[lang] = map[string]map[string]map[string]SuiteResult{}
		for _, v := range benchVariants {
			repo := filepath.Join(dir, lang+"-"+v)
			if err := writeRepo(repo, lang, v); err != nil {
				return nil, err
			}
			res, err := runCases(ctx, repo, lang, strings.Join(paths, ","))
			if err != nil {
				return nil, fmt.Errorf("%s repository, %s variant: %w", lang, v, err)
			}
			out[lang][v] = res
		}
	}
	return out, nil
}

// runCases runs lang's test command in repo on the case files and reads
// the harness's results. A failing case makes the command exit non-zero,
// which is expected; no results at all is an error, with the output.
func runCases(ctx context.Context, repo, lang, cases string) (map[string]map[string]SuiteResult, error) {
	l := Langs[lang]
	if _, err := exec.LookPath(l.Test[0]); err != nil {
		return nil, fmt.Errorf("%s is not installed: the %s fixtures need it to run their tests", l.Test[0], lang)
	}
	results := filepath.Join(repo, ".results.json")
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.Test[0], l.Test[1:]...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CASES="+cases, "RESULTS="+results, "GOFLAGS=-mod=mod", "NODE_NO_WARNINGS=1")
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	runErr := cmd.Run()
	data, err := os.ReadFile(results)
	if err != nil {
		tail := output.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return nil, fmt.Errorf("%s wrote no results (%v): %s", strings.Join(l.Test, " "), errors.Join(runErr, err), tail)
	}
	var passed map[string]bool // "suite/fn/i" → passed
	if err := json.Unmarshal(data, &passed); err != nil {
		return nil, fmt.Errorf("the %s harness's results: %w", lang, err)
	}
	res := map[string]map[string]SuiteResult{}
	for name, ok := range passed {
		parts := strings.Split(name, "/")
		if len(parts) != 3 {
			return nil, fmt.Errorf("the %s harness named a case %q", lang, name)
		}
		suite, fn := parts[0], parts[1]
		if res[fn] == nil {
			res[fn] = map[string]SuiteResult{}
		}
		r := res[fn][suite]
		if ok {
			r.Passed++
		} else {
			r.Failed++
		}
		res[fn][suite] = r
	}
	return res, nil
}

// The harnesses: each reads the case files named in CASES (by default the
// repository's cases/*.test.json), calls the function, compares the JSON
// of what it returned with the case's, writes each case's result to
// RESULTS when set, and fails when a case does.

const goHarness = `package benchgo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func str(a any) string { return a.(string) }
func num(a any) int    { return int(a.(float64)) }
func ints(a any) []int {
	out := []int{}
	for _, x := range a.([]any) {
		out = append(out, num(x))
	}
	return out
}

var fns = map[string]func(a []any) any{
	"greet":            func(a []any) any { return Greet(str(a[0])) },
	"month_name":       func(a []any) any { return MonthName(num(a[0])) },
	"clamp":            func(a []any) any { return Clamp(num(a[0]), num(a[1]), num(a[2])) },
	"slugify":          func(a []any) any { return Slugify(str(a[0])) },
	"is_leap":          func(a []any) any { return IsLeap(num(a[0])) },
	"mean":             func(a []any) any { return Mean(ints(a[0])) },
	"roman":            func(a []any) any { return Roman(num(a[0])) },
	"format_duration":  func(a []any) any { return FormatDuration(num(a[0])) },
	"compare_versions": func(a []any) any { return CompareVersions(str(a[0]), str(a[1])) },
	"rle":              func(a []any) any { return Rle(str(a[0])) },
}

func TestCases(t *testing.T) {
	files, _ := filepath.Glob("cases/*.test.json")
	if env := os.Getenv("CASES"); env != "" {
		files = strings.Split(env, ",")
	}
	results := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Fn   string
			Args []any
			Want any
		}
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatal(err)
		}
		suite, _, _ := strings.Cut(filepath.Base(file), ".")
		for i, c := range cases {
			name := suite + "/" + c.Fn + "/" + strconv.Itoa(i)
			got, _ := json.Marshal(fns[c.Fn](c.Args))
			want, _ := json.Marshal(c.Want)
			results[name] = string(got) == string(want)
			if !results[name] {
				t.Errorf("%s: got %s, want %s", name, got, want)
			}
		}
	}
	if out := os.Getenv("RESULTS"); out != "" {
		data, _ := json.Marshal(results)
		os.WriteFile(out, data, 0o644)
	}
}
`

const pyHarness = `import glob
import importlib
import json
import os
import unittest


class Cases(unittest.TestCase):
    def test_cases(self):
        files = sorted(glob.glob("cases/*.test.json"))
        if os.environ.get("CASES"):
            files = os.environ["CASES"].split(",")
        results, failed = {}, []
        for file in files:
            suite = os.path.basename(file).split(".")[0]
            with open(file) as f:
                cases = json.load(f)
            for i, c in enumerate(cases):
                fn = getattr(importlib.import_module("lib." + c["fn"]), c["fn"])
                name = "%s/%s/%d" % (suite, c["fn"], i)
                got = json.dumps(fn(*c["args"]))
                results[name] = got == json.dumps(c["want"])
                if not results[name]:
                    failed.append("%s: got %s, want %s" % (name, got, json.dumps(c["want"])))
        if os.environ.get("RESULTS"):
            with open(os.environ["RESULTS"], "w") as f:
                json.dump(results, f)
        self.assertEqual(failed, [])
`

const jsHarness = `import { test } from "node:test";
import assert from "node:assert";
import fs from "node:fs";
import path from "node:path";

test("cases", async () => {
  let files = fs.readdirSync("cases").filter((f) => f.endsWith(".test.json")).map((f) => path.join("cases", f));
  if (process.env.CASES) files = process.env.CASES.split(",");
  const results = {}, failed = [];
  for (const file of files) {
    const suite = path.basename(file).split(".")[0];
    const cases = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const [i, c] of cases.entries()) {
      const mod = await import(path.resolve("src", c.fn + ".js"));
      const fn = mod[c.fn.replace(/_(\w)/g, (_, ch) => ch.toUpperCase())];
      const name = suite + "/" + c.fn + "/" + i;
      const got = JSON.stringify(fn(...c.args));
      results[name] = got === JSON.stringify(c.want);
      if (!results[name]) failed.push(name + ": got " + got + ", want " + JSON.stringify(c.want));
    }
  }
  if (process.env.RESULTS) fs.writeFileSync(process.env.RESULTS, JSON.stringify(results));
  assert.deepStrictEqual(failed, []);
});
`
