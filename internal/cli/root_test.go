package cli

import "testing"

// Commands printed for the user paste as they are: words with spaces or
// quotes are quoted for the shell, and --repo is added only when the user
// named a repository.
func TestPasteable(t *testing.T) {
	for _, tc := range []struct {
		repo, root string
		args       []string
		want       string
	}{
		{".", "/src/shelf", []string{"execute-phase", "01"}, "hive execute-phase 01"},
		{"../shelf", "/src/shelf", []string{"status"}, "hive status --repo /src/shelf"},
		{"/tmp/my demo", "/tmp/my demo", []string{"log"}, "hive log --repo '/tmp/my demo'"},
		{"x", "/tmp/it's", []string{"answer", "01-01", "looks good"}, `hive answer 01-01 'looks good' --repo '/tmp/it'\''s'`},
		{".", "/r", []string{""}, "hive ''"},
	} {
		g := &globalOptions{repo: tc.repo}
		if got := g.pasteable(tc.root, tc.args...); got != tc.want {
			t.Errorf("pasteable(%q, %q) with --repo %q = %s, want %s", tc.root, tc.args, tc.repo, got, tc.want)
		}
	}
}
