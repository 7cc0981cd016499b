package piperun

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// reworded wraps a launcher and rewrites the HIVE_REPORT of the roles it
// names, as real models word theirs.
type reworded struct {
	agent.Launcher
	roles map[string]func(map[string]any)
}

var reportJSON = regexp.MustCompile(`(?s)(<!--HIVE_REPORT\s*)(\{.*\})(\s*HIVE_REPORT-->)`)

func (w reworded) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	edit := w.roles[spec.Plan]
	if edit == nil {
		return w.Launcher.Start(ctx, spec, sink)
	}
	return w.Launcher.Start(ctx, spec, func(o agent.Output) {
		if o.Kind == agent.OutText {
			o.Text = reportJSON.ReplaceAllStringFunc(o.Text, func(block string) string {
				m := reportJSON.FindStringSubmatch(block)
				var r map[string]any
				if json.Unmarshal([]byte(m[2]), &r) != nil {
					return block
				}
				edit(r)
				b, _ := json.Marshal(r)
				return m[1] + string(b) + m[3]
			})
		}
		sink(o)
	})
}

// TestModelWordingMeetsTheContracts: the reports real Claude Code wrote in
// issue 48 (the reviewer's "approved_with_comments", the tester's
// "passed": true) are the work done at the first attempt: the reviewer's
// comments become findings, and the run's output says how each report was
// read.
func TestModelWordingMeetsTheContracts(t *testing.T) {
	wf := workflows.Workflow{Name: "worded", Steps: []workflows.Step{{Role: workflows.RoleImplementer}, {Role: workflows.RoleTester}, {Role: workflows.RoleReviewer}}}
	res, _, o := recorded(t, gittest.Service(t), wf, func(o *Options) {
		o.Launcher = reworded{Launcher: o.Launcher, roles: map[string]func(map[string]any){
			workflows.RoleTester: func(r map[string]any) {
				delete(r, "tests_run")
				delete(r, "failed")
				r["passed"], r["summary"] = true, "Added TestHealth; all 3 tests pass."
			},
			workflows.RoleReviewer: func(r map[string]any) {
				r["approval_status"], r["comments"] = "approved_with_comments", []string{"the README does not mention /healthz"}
			},
		}}
		o.Wait = 0 // a question stops the run
	})
	for _, j := range res.Snapshot.Jobs {
		if j.Attempts != 1 || j.State != roleplan.Done {
			t.Errorf("%s: %s after %d attempts, want done at the first", j.ID, j.State, j.Attempts)
		}
	}
	if f := res.Snapshot.Findings; len(f) != 1 || f[0].Title != "the README does not mention /healthz" || f[0].Severity != roleplan.SevLow {
		t.Errorf("findings %+v, want the reviewer's comment, low", f)
	}
	said := strings.Join(o.Observer.(*notes).lines, "\n")
	for _, want := range []string{
		`note reviewer the report read as meant: approval_status: "approved_with_comments" read as "approved"`,
		"note tester the report read as meant: passed: true read with the counts in the report: 3 passed, 0 failed",
	} {
		if !strings.Contains(said, want) {
			t.Errorf("the run's output lacks %q:\n%s", want, said)
		}
	}
}
