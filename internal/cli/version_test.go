package cli

import (
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/hivectl/hive", Version: v}}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, tc := range []struct {
		name      string
		linked    string
		buildInfo func() (*debug.BuildInfo, bool)
		want      string
	}{
		{"set with -ldflags", "v1.2.0", info("v1.1.0"), "v1.2.0"},
		{"go install of a tagged module", "", info("v1.1.0"), "v1.1.0"},
		{"pseudo-version", "", info("v0.0.0-20260101120000-abcdef123456"), "v0.0.0-20260101120000-abcdef123456"},
		{"built from a checkout", "", info("(devel)"), "dev"},
		{"no build information", "", none, "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolveVersion(tc.linked, tc.buildInfo); got != tc.want {
				t.Errorf("resolveVersion = %q, want %q", got, tc.want)
			}
		})
	}
}
