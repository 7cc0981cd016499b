package frontmatter

import (
	"reflect"
	"testing"
)

func TestGSDFrontmatterShapes(t *testing.T) {
	tests := []struct {
		name, src string
		want      map[string]any
	}{
		{"verbatim escapes", `a: "x\s"` + "\nb: 'it''s'\nc: \"tab\\there\"",
			map[string]any{"a": `x\s`, "b": "it's", "c": "tab\there"}},
		{"colon in an unquoted value", "pattern: a: b\nwave:3\nn: 4 # comment",
			map[string]any{"pattern": "a: b", "wave": 3, "n": 4}},
		{"list at the key's indentation", "x: \"\\d\"\nfiles:\n- a.ts\n- b.ts\nauto: false",
			map[string]any{"x": `\d`, "files": []any{"a.ts", "b.ts"}, "auto": false}},
		{"inline list with a bad escape", `x: "\s"` + "\ndeps: [\"01-01\", '01-02', 01-03]",
			map[string]any{"x": `\s`, "deps": []any{"01-01", "01-02", "01-03"}}},
		{"inline list split as GSD does", `deps: ["a\s", b]`,
			map[string]any{"deps": []any{`a\s`, "b"}}},
		{"flow list over lines", "x: \"\\s\"\nfiles: [a.ts,\n  b.ts]",
			map[string]any{"x": `\s`, "files": []any{"a.ts", "b.ts"}}},
		{"block text and folded text", "x: \"\\s\"\nnote: |\n  one\n    two\nsum: >\n  a\n  b",
			map[string]any{"x": `\s`, "note": "one\n  two", "sum": "a b"}},
		{"multi-line plain value", "x: \"\\s\"\nobjective: first part\n  second part",
			map[string]any{"x": `\s`, "objective": "first part second part"}},
		{"list of mappings", "x: \"\\s\"\nlinks:\n  - from: a.ts\n    to: b.ts\n  - Class::method\n  - - nested",
			map[string]any{"x": `\s`, "links": []any{map[string]any{"from": "a.ts", "to": "b.ts"}, "Class::method", []any{"nested"}}}},
		{"empty and null", "x: \"\\s\"\nempty:\nnone: ~",
			map[string]any{"x": `\s`, "empty": nil, "none": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, bad := gsdFrontmatter(tt.src)
			if n == nil {
				t.Fatalf("line %d not read", bad)
			}
			d := &Document{budget: nodeBudget}
			if got := d.Value(n, 0); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestGSDFrontmatterUnreadable(t *testing.T) {
	for _, tt := range []struct {
		src  string
		line int
	}{
		{"a: 1\nthis is prose\nb: 2", 2},
		{"a: [1, 2\nb: 3", 1},
		{"a:\n  b: 1\n c: 2", 3},
		{"- a\n- b", 1},
	} {
		if n, bad := gsdFrontmatter(tt.src); n != nil || bad != tt.line {
			t.Errorf("%q: got %v, line %d; want line %d", tt.src, n, bad, tt.line)
		}
	}
}
