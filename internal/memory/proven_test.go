package memory

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A role is proven when its last n runs here all completed with it
// scoring the minimum at the first attempt, unchallenged, without fix
// loops: one weak run among them, or fewer runs than n, and it is not.
func TestProven(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	record := func(run int64, outcome string, roles ...RoleStats) {
		t.Helper()
		if err := st.Record(Facts{Run: run, Objective: "o", Workflow: "quick", Outcome: outcome, Finished: time.Unix(run, 0), Roles: roles}); err != nil {
			t.Fatal(err)
		}
	}
	good := func(role string) RoleStats { return RoleStats{Role: role, Attempts: 1, Confidence: 70} }
	record(1, "complete", good("reviewer"), RoleStats{Role: "documenter", Attempts: 1, Confidence: 40}, good("tester"))
	record(2, "complete", good("reviewer"), good("documenter"), RoleStats{Role: "tester", Attempts: 2, Confidence: 70})
	record(3, "complete", good("reviewer"), good("documenter"), good("tester"), good("security"))
	record(4, "complete", good("reviewer"), good("documenter"), good("tester"))
	record(5, "failed", good("security"))
	got, err := st.Proven(3, 63)
	if err != nil {
		t.Fatal(err)
	}
	// documenter: runs 4, 3, 2 all good; tester: run 2 took 2 attempts;
	// security: 2 runs only, one failed.
	if want := []string{"documenter", "reviewer"}; !slices.Equal(got, want) {
		t.Errorf("proven %v; want %v", got, want)
	}
	if got, _ := st.Proven(4, 63); !slices.Equal(got, []string{"reviewer"}) {
		t.Errorf("proven over 4 runs %v; want [reviewer]", got)
	}
}
