package cli

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"json", "json", 0},
		{"jsn", "json", 1},
		{"rpeo", "repo", 1}, // a swap is one edit
		{"dryrun", "dry-run", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCloseFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	for _, name := range []string{"json", "out", "dry-run", "resume", "agent", "secret"} {
		fs.Bool(name, false, "")
	}
	fs.Bool("hidden-flag", false, "")
	_ = fs.MarkHidden("hidden-flag")
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"jsn", []string{"--json"}},
		{"dryrun", []string{"--dry-run"}},
		{"dry", []string{"--dry-run"}}, // a prefix
		{"agnet", []string{"--agent"}},
		{"put", []string{"--out"}},
		{"jsonout", nil},    // too far from both
		{"hidden-flg", nil}, // hidden flags are not suggested
		{"xyzzy", nil},
	} {
		if got := closeFlags(fs, tc.typed); !slices.Equal(got, tc.want) {
			t.Errorf("closeFlags(%q) = %v, want %v", tc.typed, got, tc.want)
		}
	}
}
