package cli

import (
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	info := func(v string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{
				GoVersion: "go1.26.8",
				Main:      debug.Module{Path: "github.com/hivectl/hive", Version: v},
				Settings:  settings,
			}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "4491182ab3c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5"}
	at := debug.BuildSetting{Key: "vcs.time", Value: "2026-01-01T12:00:00Z"}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	clean := debug.BuildSetting{Key: "vcs.modified", Value: "false"}
	for _, tc := range []struct {
		name      string
		linked    string
		buildInfo func() (*debug.BuildInfo, bool)
		want      versionInfo
		line      string
	}{
		{"set with -ldflags", "v1.2.0", info("v1.1.0"),
			versionInfo{Version: "v1.2.0", GoVersion: "go1.26.8"}, "hive v1.2.0 (go1.26.8)"},
		{"go install of a tagged module", "", info("v1.1.0"),
			versionInfo{Version: "v1.1.0", GoVersion: "go1.26.8"}, "hive v1.1.0 (go1.26.8)"},
		{"pseudo-version", "", info("v0.0.0-20260101120000-abcdef123456"),
			versionInfo{Version: "v0.0.0-20260101120000-abcdef123456", GoVersion: "go1.26.8"}, "hive v0.0.0-20260101120000-abcdef123456 (go1.26.8)"},
		{"go build in a clean checkout", "", info("(devel)", rev, at, clean),
			versionInfo{Version: "dev", Revision: rev.Value, CommitTime: at.Value, GoVersion: "go1.26.8"},
			"hive dev (commit 4491182ab3c1; go1.26.8)"},
		{"go run in a checkout with changes", "", info("(devel)", rev, at, dirty),
			versionInfo{Version: "dev", Revision: rev.Value, CommitTime: at.Value, Modified: true, GoVersion: "go1.26.8"},
			"hive dev (commit 4491182ab3c1, modified; go1.26.8)"},
		{"no build information", "", none, versionInfo{Version: "dev"}, "hive dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resolveVersion(tc.linked, tc.buildInfo)
			if got != tc.want {
				t.Errorf("resolveVersion = %+v, want %+v", got, tc.want)
			}
			if l := got.line(); l != tc.line {
				t.Errorf("line = %q, want %q", l, tc.line)
			}
		})
	}
}
