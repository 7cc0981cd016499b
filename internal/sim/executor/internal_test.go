package executor

import "testing"

// Only a block marked whole-file is a file's content: the code in a GSD
// plan's action is guidance, and the sim leaves it alone.
func TestFencedCode(t *testing.T) {
	if _, ok := fencedCode("Add:\n```go\ntype Catalog struct{}\n```\n"); ok {
		t.Error("an ordinary code block was taken as a whole file")
	}
	code, ok := fencedCode("Write it:\n\n```go whole-file\npackage main\n```\n")
	if !ok || code != "package main\n" {
		t.Errorf("fencedCode = %q, %v", code, ok)
	}
}

func TestRanges(t *testing.T) {
	for want, ns := range map[string][]int{"task 1": {1}, "tasks 1-3": {1, 2, 3}, "tasks 1-2, 4": {1, 2, 4}, "tasks 2, 5-6": {2, 5, 6}} {
		if got := ranges(ns); got != want {
			t.Errorf("ranges(%v) = %q, want %q", ns, got, want)
		}
	}
}
