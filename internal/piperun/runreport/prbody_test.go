package runreport

import (
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/roleplan"
)

// The description names the findings with what became of them.
func TestPRBodyFindings(t *testing.T) {
	t.Parallel()
	r := Report{Run: 3, Objective: "add a\nhealth check", Workflow: "full", Outcome: roleplan.OutcomeComplete}
	r.Snapshot.Findings = []roleplan.Finding{
		{ID: "F1", Job: "reviewer", Severity: roleplan.SevBlocker, File: "main.go", Line: 12, Title: "no timeout", Status: roleplan.FindingAccepted, Reason: "a proxy\ntimes out"},
		{ID: "F2", Job: "security", Severity: roleplan.SevLow, Title: "log level", Status: roleplan.FindingDeferred},
	}
	body := PRBody(r)
	for _, want := range []string{
		"add a health check\n\nhive run 3, workflow full: complete.\n",
		"### Findings\n\n- **blocker** F1 `main.go:12` no timeout (reviewer, accepted: a proxy times out)\n- **low** F2 log level (security, deferred)\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("PRBody lacks %q:\n%s", want, body)
		}
	}
}
