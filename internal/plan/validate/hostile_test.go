package validate

import (
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// Paths an attacker (or a confused agent) could put in a plan, in a
// repository with symbolic links (plantest.HostileRepo): those that leave
// the repository are refused with a diagnostic naming the file, the line
// and the fix.

// hostileDiagnostics is what load.Phase and Phase say of HostileRepo's
// phase, by severity: message to the whole line.
func hostileDiagnostics(t *testing.T, selfCheck string) (errs, warnings map[string]string, ds []plan.Diagnostic) {
	t.Helper()
	root, _ := plantest.HostileRepo(t, selfCheck)
	ph, err := load.Phase(root, ".planning/phases/01-core")
	if err != nil {
		t.Fatal(err)
	}
	ds = append(ph.Diagnostics, Phase(ph)...)
	errs, warnings = map[string]string{}, map[string]string{}
	for _, d := range ds {
		switch d.Severity {
		case plan.SeverityError:
			errs[d.Message] = d.String()
		case plan.SeverityWarning:
			warnings[d.Message] = d.String()
		default:
			continue
		}
		if d.Line == 0 || d.Fix == "" || d.File == "" {
			t.Errorf("%s without file, line or fix: %s", d.Severity, d)
		}
	}
	return errs, warnings, ds
}

// hostilePlanPaths are the hostile paths of HostileRepo's plan.
var hostilePlanPaths = []string{
	`files_modified: path "../../etc/passwd" leaves the repository`,
	`files_modified: path "/etc/shadow" is absolute`,
	`files_modified: path "~/.ssh/authorized_keys" is in a home directory`,
	`files_modified: path "C:\\Windows\\system.ini" is absolute (drive letter)`,
	`files_modified: path "src\\..\\..\\x" leaves the repository`,
	`files_modified: path "out/evil.sh" goes through the symbolic link out, which points outside the repository`,
	`files_modified: path "up/escape.txt" goes through the symbolic link up`,
	`files_modified: path "dangling" goes through the symbolic link dangling`,
	`files_modified: path "dangling/x" goes through the symbolic link dangling`,
	`files_modified: path "loop1/x": too many symbolic links`,
	`files_modified: path "chain/x" goes through the symbolic link up`,
	`files_modified: path "sneaky/x" goes through the symbolic link out`,
	`files_modified: path ".git/hooks/pre-commit" is inside .git`,
	`files_modified: path ".Git/hooks/post-merge" is inside .git`,
	`files_modified: path "hooks/post-checkout" goes through the symbolic link hooks, which points into .git`,
}

// hostileKeyFiles are the hostile key files of its SUMMARY: what a
// finished plan says it touched, which hive never reads, so warnings.
var hostileKeyFiles = []string{
	`key-files.created: path "../outside.txt" leaves the repository`,
	`key-files.created: path "out/x" goes through the symbolic link out`,
	`key-files.modified: path "/abs/path" is absolute`,
	`key-files.modified: path "up/y" goes through the symbolic link up`,
}

// takeAll removes from got, for each of want, the one message it begins,
// and reports those it lacks.
func takeAll(t *testing.T, what string, got map[string]string, want []string) {
	t.Helper()
	for _, w := range want {
		found := false
		for m := range got {
			if strings.HasPrefix(m, w) {
				found = true
				delete(got, m)
				break
			}
		}
		if !found {
			t.Errorf("no %s %q", what, w)
		}
	}
}

// A plan still to run whose paths leave the repository cannot run: each
// is an error, with its file, line and fix.
func TestHostilePathsRejected(t *testing.T) {
	errs, warnings, ds := hostileDiagnostics(t, "FAILED")
	takeAll(t, "error", errs, hostilePlanPaths)
	for _, d := range errs {
		t.Errorf("unexpected error: %s", d)
	}
	takeAll(t, "warning", warnings, hostileKeyFiles)
	for _, ok := range []string{"src/ok.go", "inner/ok.go", "absinner/new.go", "src/new/deeper/file.go"} {
		for _, d := range ds {
			if strings.Contains(d.Message, `"`+ok+`"`) {
				t.Errorf("a path inside the repository was flagged: %s", d)
			}
		}
	}
}

// A plan that is done never runs again: its paths that leave the
// repository (a finished plan that changed the user's ~/.claude, say) are
// warnings that say why, and the phase still runs.
func TestHostilePathsOfADonePlan(t *testing.T) {
	errs, warnings, _ := hostileDiagnostics(t, "PASSED")
	for _, d := range errs {
		t.Errorf("an error for a done plan: %s", d)
	}
	takeAll(t, "warning", warnings, hostileKeyFiles)
	for _, w := range hostilePlanPaths {
		found := false
		for m := range warnings {
			found = found || (strings.HasPrefix(m, w) && strings.HasSuffix(m, "this plan is done (01-01-SUMMARY.md), so hive never runs it"))
		}
		if !found {
			t.Errorf("no warning %q saying the plan is done", w)
		}
	}
}
