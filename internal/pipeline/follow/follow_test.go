package follow

import (
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

// Only what holds of the head is routed: a failure of an older commit, a
// resolved or outdated thread, a thread hive answered last are not.
func TestRoutable(t *testing.T) {
	pr := roleplan.PullRequest{Number: 9, Head: "h2"}
	ci := []roleplan.CIFailure{{Workflow: "test", Head: "h2"}, {Workflow: "lint", Head: "h1"}}
	comment := []roleplan.ThreadComment{{Body: "why?"}}
	threads := []roleplan.Thread{
		{ID: "t1", Path: "a.go", Line: 3, Comments: comment},
		{ID: "t2", Path: "b.go", Resolved: true, Comments: comment},
		{ID: "t3", Outdated: true, Comments: comment},
		{ID: "t4", Comments: append(slices.Clone(comment), roleplan.ThreadComment{Body: "hive's reply"})},
	}
	fix, open, stale := Routable(pr, ci, threads, map[string]int{"t4": 2})
	if len(fix) != 1 || fix[0].Workflow != "test" || len(open) != 1 || open[0].ID != "t1" {
		t.Errorf("routed %+v and %+v", fix, open)
	}
	want := []string{"CI lint failed on h1, an older commit than the head h2", "the comment on b.go is resolved", "the comment on the pull request is outdated (its code changed)"}
	if !slices.Equal(stale, want) {
		t.Errorf("stale %q\nwant  %q", stale, want)
	}
}

// run is the machine as following sees it.
type run struct {
	b     jobs.Board
	asked []string
	done  []string
}

func (r *run) Jobs() *jobs.Board { return &r.b }
func (r *run) Ask(j *jobs.Job, kind roleplan.CheckpointKind, question, details string, options []string, with ...func(*roleplan.Checkpoint)) []roleplan.Command {
	r.asked = append(r.asked, question)
	return nil
}
func (r *run) Done(j *jobs.Job, s roleplan.JobState) []roleplan.Command {
	r.done = append(r.done, j.ID+" "+string(s))
	return nil
}
func (r *run) Finish(outcome, reason string) []roleplan.Command { return nil }

// Delivered, watched, a failure on the head goes to the implementer, its
// fix is pushed and the new head watched; a second failure past the fix
// loops asks a human.
func TestFollow(t *testing.T) {
	r := &run{}
	impl := jobs.New(workflows.RoleImplementer, workflows.RoleImplementer)
	impl.State = roleplan.Done
	r.b.Add(impl)
	f, j := Start(&r.b)
	if cmd := f.Command(&r.b, j); cmd.Type != roleplan.CmdDeliver {
		t.Fatalf("first %s", cmd.Type)
	}
	step := func(ev roleplan.Event) []roleplan.Command {
		t.Helper()
		out, err := f.Step(r, j, ev, 1)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := step(roleplan.Event{Type: roleplan.EvDelivered, OK: true, PR: &roleplan.PullRequest{Number: 9, Head: "h1", Branch: "hive/x"}})
	if out[len(out)-1].Type != roleplan.CmdWatch || f.Stage != roleplan.StageWatch {
		t.Fatalf("after delivery: %+v", out)
	}
	ci := []roleplan.CIFailure{{Workflow: "test", Head: "h1", Log: "FAIL"}}
	out = step(roleplan.Event{Type: roleplan.EvPullRequest, PR: &roleplan.PullRequest{Number: 9, Head: "h1", State: roleplan.PROpen}, CI: ci})
	if f.Stage != roleplan.StagePush || impl.State != roleplan.Pending || len(impl.Next.CI) != 1 || !strings.Contains(out[0].Text, "round 1 of 1") {
		t.Fatalf("routed: %+v; implementer %s %+v", out, impl.State, impl.Next)
	}
	if _, err := f.Step(r, j, roleplan.Event{Type: roleplan.EvPullRequest, PR: &roleplan.PullRequest{Number: 9}}, 1); err == nil {
		t.Error("a watch's answer while the fix is pushed")
	}
	if cmd := f.Command(&r.b, j); cmd.Type != roleplan.CmdPush {
		t.Fatalf("once fixed: %s", cmd.Type)
	}
	step(roleplan.Event{Type: roleplan.EvPushed, OK: true, PR: &roleplan.PullRequest{Number: 9, Head: "h2"}})
	if f.PR.Head != "h2" || f.Rounds[0].Pushed != "h2" {
		t.Errorf("pushed: %+v", f.Following)
	}
	ci[0].Head = "h2"
	step(roleplan.Event{Type: roleplan.EvPullRequest, PR: &roleplan.PullRequest{Number: 9, Head: "h2", State: roleplan.PROpen}, CI: ci})
	if len(r.asked) != 1 || !strings.Contains(r.asked[0], "after 1 round(s) of fixes") {
		t.Errorf("past the fix loops: asked %q", r.asked)
	}
	snap := f.Snapshot()
	snap.Rounds[0].Fix, snap.PR.Head = "changed", "changed"
	if f.Rounds[0].Fix == "changed" || f.PR.Head == "changed" {
		t.Error("the snapshot aliases the following")
	}
}

// A merge settles the job; a close ends the run.
func TestMerged(t *testing.T) {
	r := &run{}
	f, j := Start(&r.b)
	f.Command(&r.b, j)
	if _, err := f.Step(r, j, roleplan.Event{Type: roleplan.EvDelivered, OK: true, PR: &roleplan.PullRequest{Number: 9, Head: "h1"}}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Step(r, j, roleplan.Event{Type: roleplan.EvPullRequest, PR: &roleplan.PullRequest{Number: 9, Head: "h1", State: roleplan.PRMerged}}, 2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.done, []string{roleplan.FollowJob + " done"}) || f.Snapshot().PR.State != roleplan.PRMerged {
		t.Errorf("merged: done %v, %+v", r.done, f.Snapshot())
	}
}
