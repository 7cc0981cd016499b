// Command testtimes reads `go test -json` output and prints where the suite's
// time goes: each package's wall time, then the slowest tests. `make
// test-times` runs the suite through it; the figures are what issue notes
// quote before and after a change to the suite.
//
//	go test -json ./... | go run ./internal/testtimes [-n 30]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is the part of test2json's record that timing needs.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type timing struct {
	pkg, test string
	seconds   float64
	result    string
}

func main() {
	n := flag.Int("n", 30, "how many of the slowest tests to print")
	flag.Parse()
	pkgs, tests, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
	print(os.Stdout, pkgs, tests, *n)
}

// read collects the final pass/fail/skip record of every package and test.
// Lines that are not JSON (a build error printed beside the stream) are
// skipped: the figures are for what ran.
func read(r io.Reader) (pkgs, tests []timing, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
		default:
			continue
		}
		t := timing{pkg: e.Package, test: e.Test, seconds: e.Elapsed, result: e.Action}
		if e.Test == "" {
			pkgs = append(pkgs, t)
		} else {
			tests = append(tests, t)
		}
	}
	return pkgs, tests, sc.Err()
}

func print(w io.Writer, pkgs, tests []timing, n int) {
	bySeconds := func(ts []timing) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].seconds > ts[j].seconds })
	}
	bySeconds(pkgs)
	bySeconds(tests)
	total := 0.0
	fmt.Fprintf(w, "%-8s  %-6s  %s\n", "seconds", "result", "package")
	for _, p := range pkgs {
		total += p.seconds
		fmt.Fprintf(w, "%8.1f  %-6s  %s\n", p.seconds, p.result, p.pkg)
	}
	fmt.Fprintf(w, "%8.1f  packages' time added up (%d packages)\n\n", total, len(pkgs))
	fmt.Fprintf(w, "%-8s  %-6s  %s\n", "seconds", "result", "test")
	for i, t := range tests {
		if i == n {
			break
		}
		fmt.Fprintf(w, "%8.1f  %-6s  %s %s\n", t.seconds, t.result, short(t.pkg), t.test)
	}
}

// short drops the module path, which every package shares.
func short(pkg string) string {
	if i := strings.Index(pkg, "/internal/"); i >= 0 {
		return pkg[i+1:]
	}
	return pkg
}
