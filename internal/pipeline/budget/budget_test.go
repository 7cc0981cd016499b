package budget

import (
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// A session starts on the first rung of its role's ladder whose estimate
// fits what is left of the run's and the role's budgets; none fitting, a
// ceiling spent, or (by the turn-fit rule) too little for the turns that
// may come, holds it with the ceiling that leaves the role least.
func TestDispatch(t *testing.T) {
	b := &jobs.Board{}
	impl := jobs.New(workflows.RoleImplementer, workflows.RoleImplementer)
	impl.Spend = work.Spend{CostUSD: 6}
	rev := jobs.New(workflows.RoleReviewer, workflows.RoleReviewer)
	b.Add(impl)
	b.Add(rev)
	s := New(roleplan.Budget{Ceilings: work.Ceilings{USD: 10}, Roles: map[string]float64{workflows.RoleReviewer: 3},
		Estimates: map[string][]float64{workflows.RoleReviewer: {5, 2.5, 1}, workflows.RoleImplementer: {8, 6}}})
	next, why, _, held := s.Dispatch(b, rev, false)
	if held || next.Rung != 1 || next.USD != 3 {
		t.Errorf("reviewer: %+v held=%v (%s), want rung 1 with $3, its own ceiling", next, held, why)
	}
	_, why, c, held := s.Dispatch(b, impl, false)
	if !held || c.Name != roleplan.CeilingRun || !strings.Contains(why, "even on the cheapest model") {
		t.Errorf("implementer: held=%v by %+v (%s), want the run's ceiling: $4 left, $6 on the cheapest", held, c, why)
	}
	if _, why, _, held := s.Dispatch(b, rev, true); !held || !strings.Contains(why, "before any turn ended") {
		t.Errorf("reviewer under the turn-fit rule: held=%v (%s), want held for its estimate of $5", held, why)
	}
	rev.Spend = work.Spend{CostUSD: 3}
	if _, why, c, held := s.Dispatch(b, rev, true); !held || c.Name != workflows.RoleReviewer || c.String() != why {
		t.Errorf("reviewer at its ceiling: held=%v by %+v (%s)", held, c, why)
	}
	cp := &roleplan.Checkpoint{Ceiling: workflows.RoleReviewer, Limit: 3}
	if text := s.Raise(b, cp, 2); s.Roles[workflows.RoleReviewer] != 6 || !strings.Contains(text, "$6.00") {
		t.Errorf("raised: %s, roles %v", text, s.Roles)
	}
}

// A turn past a ceiling stops its agent and those working beside it,
// which start again from their commits once the budget is raised; a turn
// that ended with the role's report stops nothing.
func TestSpend(t *testing.T) {
	b := &jobs.Board{}
	var running []*jobs.Job
	for _, role := range []string{workflows.RoleTester, workflows.RoleReviewer, workflows.RoleSecurity} {
		j := jobs.New(role, role)
		j.State, j.Attempts, j.PID = roleplan.Running, 1, 100+len(running)
		b.Add(j)
		running = append(running, j)
	}
	running[0].Spend = work.Spend{CostUSD: 2}
	running[2].Reported = &work.Report{Status: work.ReportComplete}
	s := New(roleplan.Budget{Ceilings: work.Ceilings{USD: 2}})
	out, c, stopped := s.Spend(b, running[0])
	if !stopped || c.Name != roleplan.CeilingRun || len(out) != 2 || out[0].Job != workflows.RoleTester || out[1].Job != workflows.RoleReviewer {
		t.Fatalf("stopped=%v at %+v: %+v; want the tester and the reviewer stopped", stopped, c, out)
	}
	if !running[0].Interrupted || running[1].State != roleplan.Pending || running[1].Next == nil || running[2].State != roleplan.Running {
		t.Errorf("after the stop: %+v", running)
	}
	if _, _, stopped := s.Spend(b, running[2]); stopped {
		t.Error("a turn that ended with its report was stopped")
	}
}
