package validate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// A plan of phase 5 may depend on a plan of an earlier phase by its full id:
// hive looks it up there and in archived milestones, whatever naming its
// SUMMARY has, and advice only ever names a plan that exists.
func TestInProjectForeignDeps(t *testing.T) {
	root := t.TempDir()
	plantest.WriteFiles(t, root, map[string]string{
		".planning/milestones/v1.0-phases/01-setup/01-01-PLAN.md":    plantest.Plan("wave: 1", plantest.AutoTask),
		".planning/milestones/v1.0-phases/01-setup/01-01-SUMMARY.md": plantest.Passed,
		".planning/phases/03-auth/03-02-PLAN.md":                     plantest.Plan("wave: 1", plantest.AutoTask),
		".planning/phases/03-auth/03-auth-02-SUMMARY.md":             plantest.Passed,
		".planning/phases/03-auth/03-03-PLAN.md":                     plantest.Plan("wave: 1", plantest.AutoTask),
		".planning/phases/05-ui/05-01-PLAN.md":                       plantest.Plan("wave: 1", plantest.AutoTask),
		".planning/phases/05-ui/05-02-ui-PLAN.md":                    plantest.Plan("depends_on:\n  - 03-02\n  - 3-3\n  - 01-01\n  - 03-09\n  - 04-07\n  - 07-01\n  - 05-ui-01", plantest.AutoTask),
	})
	proj, err := load.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	ph, err := proj.FindPhase("5")
	if err != nil {
		t.Fatal(err)
	}
	if got := ph.Plan("05-02-ui").DependsOn; !reflect.DeepEqual(got, []string{"03-02", "3-3", "01-01", "03-09", "04-07", "07-01", "05-01"}) {
		t.Errorf("DependsOn = %q", got)
	}
	var got []string
	for _, d := range InProject(proj, ph) {
		got = append(got, d.String())
	}
	p := ".planning/phases/05-ui/05-02-ui-PLAN.md"
	want := []string{
		p + ":4: warning: depends_on names 3-3 (.planning/phases/03-auth/03-03-PLAN.md), which is not done yet; hive runs this phase once it is (fix: run phase 3 first)",
		p + ":6: error: depends_on names 03-09, which is no plan of phase 3 (looked in .planning/phases and .planning/milestones) (fix: replace 03-09 with 03-02, the closest plan id of phase 3)",
		p + ":7: error: depends_on names 04-07, which is no plan of phase 4 (looked in .planning/phases and .planning/milestones) (fix: remove 04-07 from depends_on)",
		p + ":8: error: depends_on names 07-01, a plan of a later phase, which runs after this one (fix: move this plan to a later phase, or remove the dependency)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for id, done := range map[string]bool{"03-02": true, "3-3": false, "01-01": true, "03-auth-02": true} {
		if ref, ok := load.LookupPlan(proj, id); !ok || ref.Done() != done {
			t.Errorf("LookupPlan(%s) = %+v, %v; want done %v", id, ref, ok, done)
		}
	}
	if _, ok := load.LookupPlan(proj, "03-09"); ok {
		t.Error("LookupPlan(03-09) found a plan that does not exist")
	}
}
