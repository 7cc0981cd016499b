package answer

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// `hive answer limit resume-now` goes to the run that waits for its
// provider, and the engine then goes on at once; with no such run it is
// refused and nothing is journaled.
func TestResumeNow(t *testing.T) {
	j := journaltest.NewMemory()
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	run, err := j.CreateRun("01", t0)
	if err != nil {
		t.Fatal(err)
	}
	add := func(ev phase.Event) {
		t.Helper()
		b, _ := json.Marshal(ev)
		if _, err := j.Append(run.ID, string(ev.Type), ev.Time, b); err != nil {
			t.Fatal(err)
		}
	}
	add(phase.Event{Type: phase.EvRunStarted, Time: t0, Version: phase.Version, Spec: &phase.RunSpec{Phase: "01", MaxConcurrent: 1,
		Plans: []phase.PlanSpec{{ID: "01-01", Wave: 1, Tasks: 1}}}})
	js := Journals{Root: t.TempDir(), Phase: j}
	_, err = Record(js, Request{Plan: phase.LimitID, Text: phase.ResumeNow, Now: t0.Add(time.Second)})
	var refusedErr *RefusedError
	if !errors.As(err, &refusedErr) || !refusedErr.NoCheckpoint {
		t.Fatalf("answer with no wait: %v", err)
	}
	add(phase.Event{Type: phase.EvLimited, Time: t0.Add(time.Minute), Plan: "01-01", Attempt: 1,
		Limit: &work.Limit{Kind: work.LimitUsage, Reset: t0.Add(3 * time.Hour)}})
	if _, err := Record(js, Request{Plan: phase.LimitID, Text: "later", Now: t0.Add(2 * time.Minute)}); !errors.As(err, &refusedErr) {
		t.Fatalf("a wrong answer: %v", err)
	}
	res, err := Record(js, Request{Plan: phase.LimitID, Text: phase.ResumeNow, Now: t0.Add(2 * time.Minute)})
	if err != nil || res.Run != run.ID {
		t.Fatalf("resume-now: %+v, %v", res, err)
	}
	eng, _, err := replay(j, run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	snap := eng.Snapshot()
	if snap.Limit != nil || snap.Plans[0].State != phase.Running || snap.Plans[0].Attempt != 2 {
		t.Errorf("after resume-now: limit %+v, 01-01 %s attempt %d", snap.Limit, snap.Plans[0].State, snap.Plans[0].Attempt)
	}
}

// hive run's wait for its provider takes resume-now too.
func TestResumeNowOfHiveRun(t *testing.T) {
	j := journaltest.NewMemory()
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	run, err := j.CreateRun(runjournal.Key, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []roleplan.Event{
		{Type: roleplan.EvStarted, Time: t0, Spec: &roleplan.Spec{Objective: "add a health check", Workflow: workflows.Quick, NoInterview: true, Rules: roleplan.Rules}},
		{Type: roleplan.EvAgentStarted, Time: t0, Job: workflows.RoleImplementer, Attempt: 1, PID: 7},
		{Type: roleplan.EvLimited, Time: t0.Add(time.Minute), Job: workflows.RoleImplementer, Attempt: 1, Limit: &work.Limit{Kind: work.LimitUsage, Reset: t0.Add(3 * time.Hour)}},
	} {
		b, _ := json.Marshal(ev)
		if _, err := j.Append(run.ID, string(ev.Type), ev.Time, b); err != nil {
			t.Fatal(err)
		}
	}
	js := Journals{Root: t.TempDir(), Pipeline: j}
	res, err := Record(js, Request{Plan: phase.LimitID, Text: phase.ResumeNow, Now: t0.Add(2 * time.Minute)})
	if err != nil || !res.Pipeline || res.Run != run.ID {
		t.Fatalf("resume-now: %+v, %v", res, err)
	}
	m, err := runjournal.Replay(j, run)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Snapshot(); s.Limit != nil {
		t.Errorf("still waiting after resume-now: %+v", s.Limit)
	}
}
