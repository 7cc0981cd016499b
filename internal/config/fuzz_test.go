package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse: no input makes Parse panic, and whatever Parse accepts, Marshal
// writes back into a file that Parse reads to the same configuration.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		``, `null`, `[]`, `{"parallelization": true}`, `{"parallelization": false, "dynamic_scheduling": true}`,
		`{"timeouts": {"stall": 0.1}}`, `{"timeouts": {"stall": "1h0m0s"}}`, `{"models": {"": {"cli": ""}, "x": null}}`,
		`{"models": {"default": {"args": [], "env": {}}}}`, `{"a": {"b": {"c": [1, "\u2028", {"d": 1e400}]}}}`,
		`{"git": {"branching_strategy": "phase"}, "branching_strategy": "x"}`, "\xef\xbb\xbf{\"mode\": \"\xff\"}",
		`{"mode": "a", "mode": "b", "workflow": {"research": false}, "workflow": {"verifier": false}}`,
		`{"parallelization": {"max_concurrent_agents": 64.0, "min_plans_for_parallel": 1e3}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		first, err := Parse(data)
		if err != nil {
			return
		}
		_ = first.MaxConcurrent() + len(first.Notes())
		_ = first.Model("architect")
		out, err := first.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed config: %v\ninput: %q", err, data)
		}
		second, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse of the rewrite: %v\ninput: %q\nrewrite:\n%s", err, data, out)
		}
		if !reflect.DeepEqual(known(first), known(second)) {
			t.Fatalf("rewrite changed the config\ninput: %q\nrewrite:\n%s\nfirst:  %#v\nsecond: %#v", data, out, first, second)
		}
	})
}
