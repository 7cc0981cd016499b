package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
	"github.com/hivectl/hive/internal/work"
)

// An agent whose turn ends on the account's usage limit (the sim says it as
// Claude Code does, with a reset two hours ahead) does not fail its plan,
// even under --yes: the run waits for the reset, starts no agent
// meanwhile, and then every plan goes on from its commits. No retry is
// spent, and every task is committed once. The test moves the run's clock
// on, not the wall clock.
func TestUsageLimitWaitsForTheReset(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": runnertest.WtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
		".planning/phases/01-lib/01-03-PLAN.md": runnertest.WtPlan("03", 1, nil, []string{"src/p03.go"}, ""),
	})
	obs := &noteRecorder{recorder: &recorder{}}
	o := worktreeOptions(t, root, simLauncher(t, "HIVE_SIM_FAULTS=01-02=limit@1#1", "HIVE_SIM_LIMIT_RESET=2h"), obs)
	o.Schedule.MaxConcurrent = 2
	clock := &testsupport.Clock{}
	o.Now, o.After = clock.Now, clock.After
	go clock.AdvanceWhen(t, obs.recorder.String, "waiting for the usage limit's reset", 2*time.Hour+time.Minute)
	o.Human.AutoAnswer = true
	o.Agents.Retries = 0 // a limit that spent a retry would fail the plan
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != phase.OutcomeComplete || res.Snapshot.Count(phase.Complete) != 3 {
		t.Fatalf("outcome %s, %d complete\n%s", res.Snapshot.Outcome, res.Snapshot.Count(phase.Complete), obs)
	}
	// The journal says what happened: the limit with its reset, the wake
	// after it, and 01-02's next agent no sooner.
	recs, err := o.Journal.Events(res.Run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var limited, woke, restarted time.Time
	var reset time.Time
	for _, r := range recs {
		var ev phase.Event
		if err := json.Unmarshal(r.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Type == phase.EvLimited:
			if ev.Limit == nil || ev.Limit.Kind != work.LimitUsage || ev.Limit.Reset.IsZero() || ev.Plan != "01-02" {
				t.Fatalf("limited event %+v", ev)
			}
			limited, reset = ev.Time, ev.Limit.Reset
		case ev.Type == phase.EvWake && woke.IsZero() && !limited.IsZero():
			woke = ev.Time
		case ev.Type == phase.EvAgentStarted && ev.Plan == "01-02" && ev.Attempt == 2:
			restarted = ev.Time
		}
	}
	if limited.IsZero() || woke.IsZero() || restarted.IsZero() {
		t.Fatalf("limited %v, woke %v, 01-02 restarted %v\n%s", limited, woke, restarted, obs)
	}
	if restarted.Before(reset.Truncate(time.Second)) {
		t.Errorf("01-02's next agent started at %v, before the reset at %v", restarted, reset)
	}
	if s := obs.String(); !strings.Contains(s, "note 01-02 waiting for the usage limit's reset") || strings.Contains(s, "retry 1 of") {
		t.Errorf("the wait was not said, or a retry was spent:\n%s", s)
	}
	// Each task once: one commit of 01-02's task on main.
	if n := strings.Count(gittest.Output(t, root, "log", "--format=%s", "main"), "feat(01-02):"); n != 1 {
		t.Errorf("%d commits of 01-02's task on main, want 1:\n%s", n, gittest.Output(t, root, "log", "--format=%s", "main"))
	}
	for _, f := range []string{"src/p01.go", "src/p02.go", "src/p03.go"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s is not on main: %v", f, err)
		}
	}
}

// noteRecorder records the engine's notes with their text too.
type noteRecorder struct{ *recorder }

func (r *noteRecorder) Command(c phase.Command, s phase.Snapshot) {
	if c.Type == phase.CmdNote {
		r.add("note %s %s", c.Plan, c.Text)
		return
	}
	r.recorder.Command(c, s)
}

// hive stopped during the wait waits, when resumed, for what is left of
// it: no longer, and no retry is spent.
func TestUsageLimitWaitSurvivesARestart(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
	})
	obs := &noteRecorder{recorder: &recorder{}}
	o := worktreeOptions(t, root, simLauncher(t, "HIVE_SIM_FAULTS=01-01=limit@1#1", "HIVE_SIM_LIMIT_RESET=2h"), obs)
	o.Human.AutoAnswer = true
	clock := &testsupport.Clock{}
	o.Now, o.After = clock.Now, clock.After
	o.Agents.Retries = 0
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for !strings.Contains(obs.String(), "waiting for the usage limit's reset") {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := Run(ctx, o); err == nil {
		t.Fatal("the first run was not stopped")
	}
	go clock.AdvanceWhen(t, obs.recorder.String, "still waiting for the usage limit's reset", 2*time.Hour+time.Minute)
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("resumed run: %v, %s\n%s", err, res.Snapshot.Outcome, obs)
	}
	// The resumed run waits for the same reset, not a new wait from now.
	at := regexp.MustCompile(`(still )?waiting for the usage limit's reset at (\S+ UTC)`).FindAllStringSubmatch(obs.String(), -1)
	if len(at) != 2 || at[0][1] != "" || at[1][1] != "still " || at[0][2] != at[1][2] {
		t.Errorf("the waits said: %q\n%s", at, obs)
	}
	var reset, restarted time.Time
	recs, _ := o.Journal.Events(res.Run.ID, 0)
	for _, r := range recs {
		var ev phase.Event
		json.Unmarshal(r.Payload, &ev)
		switch {
		case ev.Type == phase.EvLimited:
			reset = ev.Limit.Reset
		case ev.Type == phase.EvAgentStarted && ev.Attempt == 2:
			restarted = ev.Time
		}
	}
	if restarted.Before(reset.Truncate(time.Second)) {
		t.Errorf("01-01 went on at %v; the reset was at %v", restarted, reset)
	}
}

// Under limits.on_limit fallback the first usage limit switches the run to
// the fallback agent at once: the plan whose agent met it goes on on the
// fallback, from its commits, and so does every plan that starts after;
// nothing waits and no retry is spent. The run's own agent meets the limit
// at every turn of 01-02 (the account's limit holds): only the fallback
// can finish it.
func TestUsageLimitFallsBack(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": runnertest.WtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
		".planning/phases/01-lib/01-03-PLAN.md": runnertest.WtPlan("03", 1, nil, []string{"src/p03.go"}, ""),
	})
	obs := &noteRecorder{recorder: &recorder{}}
	own := simLauncher(t, "HIVE_SIM_FAULTS=01-02=limit@1", "HIVE_SIM_LIMIT_RESET=2h")
	fallback := simLauncher(t)
	o := worktreeOptions(t, root, own, obs)
	o.Schedule.MaxConcurrent = 2
	o.Agents.OnLimit, o.Agents.Fallback = work.OnLimitFallback, fallback
	o.Human.AutoAnswer = true
	o.Agents.Retries = 0 // a limit that spent a retry would fail the plan
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != phase.OutcomeComplete || res.Snapshot.Count(phase.Complete) != 3 || !res.Snapshot.Fallback {
		t.Fatalf("outcome %s, %d complete, fallback %v\n%s", res.Snapshot.Outcome, res.Snapshot.Count(phase.Complete), res.Snapshot.Fallback, obs)
	}
	s := obs.String()
	if !strings.Contains(s, "the rest of the run goes on with the fallback agent") || strings.Contains(s, "waiting for") || strings.Contains(s, "retry 1 of") {
		t.Errorf("the switch was not said, or the run waited, or spent a retry:\n%s", s)
	}
	// 01-01 and 01-02 started on the run's own agent; 01-02 went on, and
	// 01-03 started, on the fallback.
	if _, ok := own.dirs["01-03"]; ok {
		t.Errorf("01-03 started on the run's own agent after the switch")
	}
	for _, p := range []string{"01-02", "01-03"} {
		if _, ok := fallback.dirs[p]; !ok {
			t.Errorf("%s never ran on the fallback:\n%s", p, s)
		}
	}
	for _, f := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(gittest.Output(t, root, "log", "--format=%s", "main"), "feat("+f+"):"); n != 1 {
			t.Errorf("%d commits of %s's task on main, want 1", n, f)
		}
	}
}

// Under limits.on_limit stop the run stops once the agents at work have
// ended their turns, with the wait in its journal; the same command goes
// on later and waits only for what is left of it (here: nothing, the
// clock is past the reset), and no task is done twice.
func TestUsageLimitStops(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": runnertest.WtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
	})
	obs := &noteRecorder{recorder: &recorder{}}
	o := worktreeOptions(t, root, simLauncher(t, "HIVE_SIM_FAULTS=01-02=limit@1#1", "HIVE_SIM_LIMIT_RESET=2h"), obs)
	o.Schedule.MaxConcurrent = 2
	o.Agents.OnLimit = work.OnLimitStop
	o.Human.AutoAnswer = true
	o.Agents.Retries = 0
	clock := &testsupport.Clock{}
	o.Now, o.After = clock.Now, clock.After
	_, err := Run(context.Background(), o)
	var stopped *work.StoppedAtLimit
	if !errors.As(err, &stopped) || stopped.Wait.Kind != work.LimitUsage || stopped.Wait.Until.Sub(clock.Now()) < time.Hour {
		t.Fatalf("the run ended with %v, want it stopped at the usage limit with its reset 2h ahead\n%s", err, obs)
	}
	clock.Advance(3 * time.Hour)
	o.Agents.OnLimit = work.OnLimitWait // the resume's own flag holds
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("resumed run: %v, %s\n%s", err, res.Snapshot.Outcome, obs)
	}
	if s := obs.String(); !strings.Contains(s, "the wait for the provider's usage limit is over") || strings.Contains(s, "still waiting") {
		t.Errorf("the resumed run did not go on at once past the reset:\n%s", s)
	}
	for _, f := range []string{"01-01", "01-02"} {
		if n := strings.Count(gittest.Output(t, root, "log", "--format=%s", "main"), "feat("+f+"):"); n != 1 {
			t.Errorf("%d commits of %s's task on main, want 1", n, f)
		}
	}
}
