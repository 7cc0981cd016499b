package sim

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
