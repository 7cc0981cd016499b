package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is hive's version. Release builds set it:
//
//	go build -ldflags "-X github.com/hivectl/hive/internal/cli.version=v1.2.0" ./cmd/hive
//
// Left empty, hive reports the module version `go install` recorded.
var version = ""

// versionInfo is what `hive version` reports: enough to tell which build a
// bug report came from, a build from a checkout included.
type versionInfo struct {
	Version    string `json:"version"`
	Revision   string `json:"revision"`    // the commit built, "" when the build recorded none
	CommitTime string `json:"commit_time"` // that commit's time (RFC 3339), "" when unknown
	Modified   bool   `json:"modified"`    // the work tree had uncommitted changes
	GoVersion  string `json:"go_version"`
}

// buildVersion is this binary's versionInfo.
func buildVersion() versionInfo { return resolveVersion(version, debug.ReadBuildInfo) }

// resolveVersion reads the build information Go embeds: the version set at
// link time first, then the main module's version ("(devel)" in a build
// from a checkout, which says nothing: "dev"), and the VCS stamp that
// `go build` and `go run` record in a checkout (test binaries record none).
func resolveVersion(linked string, buildInfo func() (*debug.BuildInfo, bool)) versionInfo {
	v := versionInfo{Version: "dev"}
	bi, ok := buildInfo()
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if linked != "" {
		v.Version = linked
	}
	if !ok {
		return v
	}
	v.GoVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// line is the one line `hive --version` and `hive version` print, e.g.
// "hive v1.2.0 (commit 4491182ab3c1, modified; go1.26.8)".
func (v versionInfo) line() string {
	var about []string
	if v.Revision != "" {
		commit := "commit " + shortRevision(v.Revision)
		if v.Modified {
			commit += ", modified"
		}
		about = append(about, commit)
	}
	if v.GoVersion != "" {
		about = append(about, v.GoVersion)
	}
	if len(about) == 0 {
		return "hive " + v.Version
	}
	return fmt.Sprintf("hive %s (%s)", v.Version, strings.Join(about, "; "))
}

// shortRevision is a revision as git log --oneline abbreviates it, at 12
// characters so that it stays unique in a large history.
func shortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

func newVersionCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print hive's version, the commit it was built from, and the Go version",
		Long: `version prints hive's version: the version set at link time, else the module
version that go install recorded, else "dev"; the commit it was built from and
whether that work tree had uncommitted changes (go build and go run record
them in a git checkout); and the Go version that built it. hive --version
prints the same line.`,
		Example: `  hive version
  hive version --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := buildVersion()
			if asJSON {
				return printJSON(g.stdout, v)
			}
			fmt.Fprintln(g.stdout, v.line())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the version as JSON")
	return cmd
}
