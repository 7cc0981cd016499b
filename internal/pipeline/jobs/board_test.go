package jobs

import (
	"slices"
	"testing"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

// board is architect → implementers (a phase) → build → tester, each done
// but the tester, which is on the agenda.
func board() *Board {
	b := &Board{}
	prev := ""
	for _, j := range []*Job{
		{Job: roleplan.Job{ID: workflows.RoleArchitect, Role: workflows.RoleArchitect}},
		{Job: roleplan.Job{ID: roleplan.PhaseJob, Role: workflows.RoleImplementer, Phase: true}},
		{Job: roleplan.Job{ID: workflows.StepBuild, Type: workflows.StepBuild}, Step: workflows.Step{Type: workflows.StepBuild, OnFailure: workflows.RoleDebugger}},
		{Job: roleplan.Job{ID: workflows.RoleTester, Role: workflows.RoleTester}},
	} {
		j.State, j.Attempts = roleplan.Done, 1
		if prev != "" {
			j.Deps = []string{prev}
		}
		prev = j.ID
		b.Add(j)
	}
	b.Get(workflows.RoleTester).State = roleplan.Running
	b.Agenda = []string{workflows.RoleTester}
	return b
}

// A challenge names a role that ran before the challenger; the phase is
// answered by one implementer made for fixes, and a name that is no role
// of the run is the implementation's when a tester challenges.
func TestChallenged(t *testing.T) {
	b := board()
	tester := b.Get(workflows.RoleTester)
	for name, want := range map[string]string{
		"architect":      workflows.RoleArchitect,
		"implementers":   roleplan.FixJob,
		"the-documenter": roleplan.FixJob,
	} {
		if got := b.Challenged(tester, name); got == nil || got.ID != want {
			t.Errorf("Challenged(tester, %q) = %v, want %s", name, got, want)
		}
	}
	if got := b.Challenged(b.Get(workflows.RoleArchitect), "tester"); got != nil {
		t.Errorf("the architect challenged %s, which had not run before it", got.ID)
	}
}

// A fix sent back runs the fixer first, then the build the check waits
// for, then the check; the build waits for the fixer.
func TestSendBack(t *testing.T) {
	b := board()
	tester, build := b.Get(workflows.RoleTester), b.Get(workflows.StepBuild)
	fixer := b.Fixer(build)
	if fixer.ID != workflows.RoleDebugger || b.Get(workflows.RoleDebugger) != fixer {
		t.Fatalf("the build's fixer is %s, want a debugger made for it", fixer.ID)
	}
	b.SendBack(tester, fixer, &roleplan.Context{Fix: &roleplan.Tests{Failed: 1}})
	if want := []string{workflows.RoleDebugger, workflows.StepBuild, workflows.RoleTester}; !slices.Equal(b.Agenda, want) {
		t.Errorf("agenda %v, want %v", b.Agenda, want)
	}
	if !slices.Equal(tester.Wait, []string{workflows.RoleDebugger, workflows.StepBuild}) || !slices.Equal(build.Wait, []string{workflows.RoleDebugger}) {
		t.Errorf("tester waits for %v, build for %v", tester.Wait, build.Wait)
	}
	if fixer.State != roleplan.Pending || fixer.Next.Fix == nil || b.Ready(tester) || !b.Ready(fixer) {
		t.Errorf("fixer %s with %+v; tester ready %v, fixer ready %v", fixer.State, fixer.Next, b.Ready(tester), b.Ready(fixer))
	}
	// A second fix while the first is at work joins it.
	fixer.State = roleplan.Running
	b.SendBack(tester, fixer, &roleplan.Context{Feedback: "and this"})
	if fixer.Rerun == nil || fixer.Rerun.Feedback != "and this" {
		t.Errorf("a fix ordered while the fixer works: rerun %+v", fixer.Rerun)
	}
}
