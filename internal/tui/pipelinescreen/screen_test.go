package pipelinescreen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport/tuitest"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// midRun steps a full workflow under a $5 budget, each role's session
// costing $0.35, to the tester's second challenge of the implementer-fix,
// through a default decision and a fix loop.
func midRun(t *testing.T) roleplan.Snapshot {
	t.Helper()
	m := pipeline.New()
	step := func(ev roleplan.Event) {
		t.Helper()
		if _, err := m.Step(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	attempt := func(job string) int {
		for _, j := range m.Snapshot().Jobs {
			if j.ID == job {
				return j.Attempts
			}
		}
		return 0
	}
	role := func(job, status string, r work.Report) {
		r.Status = status
		step(roleplan.Event{Type: roleplan.EvUsage, Job: job, Attempt: attempt(job), Spend: work.Spend{InputTokens: 9000, OutputTokens: 800, CostUSD: 0.35}})
		step(roleplan.Event{Type: roleplan.EvReport, Job: job, Attempt: attempt(job), Report: &r})
		step(roleplan.Event{Type: roleplan.EvAgentExited, Job: job, Attempt: attempt(job)})
	}
	step(roleplan.Event{Type: roleplan.EvStarted, Spec: &roleplan.Spec{Objective: "add a health check endpoint", Workflow: workflows.Full, AutoAnswer: true,
		NoInterview: true, Facts: map[string]bool{workflows.CondHasFrontend: false}, Budget: roleplan.Budget{Ceilings: work.Ceilings{USD: 5}}}})
	role("architect", work.ReportNeedsInput, work.Report{Blocker: "REST or GraphQL?", Options: []string{"REST", "GraphQL"}, DefaultChoice: "REST"})
	role("architect", work.ReportComplete, work.Report{})
	step(roleplan.Event{Type: roleplan.EvLinted})
	step(roleplan.Event{Type: roleplan.EvPhaseDone, OK: true})
	role("comb", work.ReportComplete, work.Report{})
	step(roleplan.Event{Type: roleplan.EvBuilt, Job: workflows.StepBuild, Attempt: 1, Tests: &roleplan.Tests{Command: "go build ./..."}})
	role("security", work.ReportComplete, work.Report{})
	role("tester", work.ReportComplete, work.Report{})
	step(roleplan.Event{Type: roleplan.EvTestsRan, Job: "tester", Tests: &roleplan.Tests{ExitCode: 1, Failed: 1, Failing: []string{"TestHealth"}}})
	built := func() { // what the fix changed builds again before the tester looks
		step(roleplan.Event{Type: roleplan.EvBuilt, Job: workflows.StepBuild, Attempt: attempt(workflows.StepBuild), Tests: &roleplan.Tests{Command: "go build ./..."}})
	}
	role(roleplan.FixJob, work.ReportComplete, work.Report{})
	built()
	role("tester", work.ReportChallenge, work.Report{ChallengedAgent: "implementer", Issue: "HEAD requests get 405"})
	role(roleplan.FixJob, work.ReportComplete, work.Report{})
	built()
	role("tester", work.ReportChallenge, work.Report{ChallengedAgent: "implementer", Issue: "HEAD requests still get 405, now with a body"})
	return m.Snapshot()
}

// The pipeline view at 120 and 80 columns: done roles, the implementers
// side by side, the challenges and the fix loop on the tester's edge, the
// decision, and the question that waits; no line wider than the terminal.
func TestPipelineView(t *testing.T) {
	s := midRun(t)
	plans := []PlanState{{"05-01", phase.Complete}, {"05-02", phase.Complete}, {"05-03", phase.Complete}}
	for _, w := range []int{120, 80} {
		got := ansi.Strip(View(s, plans, w))
		tuitest.Golden(t, "./internal/tui/pipelinescreen", "pipeline_"+map[int]string{120: "120", 80: "80"}[w], got)
		tuitest.CheckFits(t, got, w, 100)
	}
	running := ansi.Strip(View(roleplan.Snapshot{Jobs: []roleplan.Job{{ID: "architect", Role: "architect", State: roleplan.Done, Attempts: 1},
		{ID: roleplan.PhaseJob, Role: "implementer", Phase: true, State: roleplan.Running, Attempts: 1}}},
		[]PlanState{{"05-01", phase.Complete}, {"05-02", phase.Running}, {"05-03", phase.Pending}}, 80))
	tuitest.Golden(t, "./internal/tui/pipelinescreen", "pipeline_parallel", running)
}

// interview starts a full run of "add a version endpoint" whose
// interviewer asks the sim's three questions (long options, a default, a
// why): the first one waits.
func interview(t *testing.T) *pipeline.Machine {
	t.Helper()
	m := pipeline.New()
	step := func(ev roleplan.Event) {
		t.Helper()
		if _, err := m.Step(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	step(roleplan.Event{Type: roleplan.EvStarted, Spec: &roleplan.Spec{Objective: "add a version endpoint", Workflow: workflows.Full,
		Facts: map[string]bool{workflows.CondHasFrontend: false}}})
	qs, err := json.Marshal([]roleplan.Question{
		{Question: `How much of "add a version endpoint" should this run build?`, Options: interviewOptions,
			Default: interviewOptions[0], Why: "decides how many plans the architect writes"},
		{Question: "What should happen when it fails at run time?", Options: []string{"return an error to the caller", "log it and go on"},
			Default: "return an error to the caller", Why: "decides the error handling and its tests"},
		{Question: "Where should the change be documented?", Options: []string{"in the README", "on a page under docs/"},
			Default: "in the README", Why: "decides what the documenter writes"},
	})
	if err != nil {
		t.Fatal(err)
	}
	step(roleplan.Event{Type: roleplan.EvReport, Job: "interviewer", Attempt: 1, Report: &work.Report{Status: work.ReportComplete,
		Summary: "three questions", Extra: map[string]json.RawMessage{"questions": qs}}})
	step(roleplan.Event{Type: roleplan.EvAgentExited, Job: "interviewer", Attempt: 1})
	if open := m.Snapshot().Open; open == nil || open.Job != "interviewer" {
		t.Fatalf("the interviewer does not ask: %+v", open)
	}
	return m
}

func interviewing(t *testing.T) roleplan.Snapshot { return interview(t).Snapshot() }

// lastQuestion is the interview with two questions answered by the human:
// the third waits.
func lastQuestion(t *testing.T) roleplan.Snapshot {
	m := interview(t)
	for _, a := range []string{interviewOptions[1], "log it and go on"} {
		if _, err := m.Step(roleplan.Event{Type: roleplan.EvAnswer, Job: "interviewer", Checkpoint: m.Snapshot().Open.ID, Text: a}); err != nil {
			t.Fatal(err)
		}
	}
	return m.Snapshot()
}

var interviewOptions = []string{"the smallest version that works", "the complete feature, edge cases included"}

// pipelineScreen builds hive run's screen at w×h from msgs and returns it
// without styles.
func pipelineScreen(t *testing.T, m Model, w, h int, msgs ...tea.Msg) (Model, string) {
	t.Helper()
	var tm tea.Model = m
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, msg := range msgs {
		tm, _ = tm.Update(msg)
	}
	m = tm.(Model)
	return m, ansi.Strip(m.Screen())
}

// The live screen of hive run at 80×24 and 120×40, while the interviewer
// asks (long options), while the tester's second challenge waits (a long
// run, whose finished roles fold at 80×24), and while the interviewer's
// last question is answered in words (the decisions before it fold at
// 80×24): the question, every option and the line that says how to answer
// are all there, wrapped, not cut; the log takes the room left.
func TestPipelineScreen(t *testing.T) {
	answers := make(chan string, 1)
	for _, sc := range []struct {
		name string
		snap roleplan.Snapshot
		keys string
	}{{"question", interviewing(t), ""}, {"challenge", midRun(t), ""}, {"typed", lastQuestion(t), "in CHANGELOG.md"}} {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			name := fmt.Sprintf("pipeline_screen_%s_%dx%d", sc.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				msgs := []tea.Msg{SnapshotMsg{Snapshot: sc.snap}}
				if sc.name == "challenge" {
					msgs = append(msgs, PlansMsg{{"05-01", phase.Complete}, {"05-02", phase.Complete}})
				}
				for i := range 40 {
					msgs = append(msgs, LogMsg(fmt.Sprintf("    %ds  %-15s log line %d", i, sc.snap.Open.Job, i)))
				}
				for _, r := range sc.keys {
					msgs = append(msgs, tuitest.Press(string(r)))
				}
				_, got := pipelineScreen(t, New(answers, nil), size[0], size[1], msgs...)
				tuitest.CheckFits(t, got, size[0], size[1])
				for i, l := range strings.Split(got, "\n") {
					if strings.HasSuffix(l, "…") {
						t.Errorf("line %d is cut: %q", i+1, l)
					}
				}
				cp := sc.snap.Open
				words := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(got)) // the chosen option's brackets
				for _, want := range append([]string{cp.Question, "→ YOUR ACTION:", "hive answer " + cp.Job + ` "…" works from any terminal too`,
					"enter send", "help"}, cp.Options...) {
					if !tuitest.InOrder(words, strings.Fields(want)) {
						t.Errorf("%q is not all on the screen", want)
					}
				}
				tuitest.Golden(t, "./internal/tui/pipelinescreen", name, got)
			})
		}
	}
}

// send presses keys on hive run's screen at 80×24 and returns what the
// last one sent ("(nothing)" when it sent nothing).
func send(t *testing.T, snap roleplan.Snapshot, keys ...string) string {
	t.Helper()
	answers := make(chan string, 1)
	var tm tea.Model = New(answers, nil)
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm, _ = tm.Update(SnapshotMsg{Snapshot: snap})
	var cmd tea.Cmd
	for _, k := range keys {
		tm, cmd = tm.Update(tuitest.Press(k))
	}
	if cmd != nil {
		cmd()
	}
	select {
	case a := <-answers:
		return a
	default:
		return "(nothing)"
	}
}

// The keys of hive run's screen are execute-phase's: a digit picks that
// option, tab (and ←/→) move through them, enter sends the option's text,
// never the digit; once an answer is typed, digits are characters of it
// and tab completes it to an option. A question of options only (the
// tester's challenge) takes no typing.
func TestPipelineAnswerKeys(t *testing.T) {
	question, challenge := interviewing(t), midRun(t)
	for _, c := range []struct {
		snap roleplan.Snapshot
		keys []string
		want string
	}{
		{question, []string{"enter"}, interviewOptions[0]}, // the default
		{question, []string{"2", "enter"}, interviewOptions[1]},
		{question, []string{"tab", "enter"}, interviewOptions[1]},
		{question, []string{"tab", "tab", "enter"}, interviewOptions[0]}, // round
		{question, []string{"right", "left", "right", "enter"}, interviewOptions[1]},
		{question, []string{"v", "2", "enter"}, "v2"},
		{question, []string{"t", "h", "e", " ", "c", "tab", "enter"}, interviewOptions[1]},
		{question, []string{"x", "esc", "2", "enter"}, interviewOptions[1]},
		{challenge, []string{"3", "enter"}, "abort"},
		{challenge, []string{"o", "v", "tab", "tab", "enter"}, "abort"}, // letters do not type
	} {
		if got := send(t, c.snap, c.keys...); got != c.want {
			t.Errorf("%v sent %q, want %q", c.keys, got, c.want)
		}
	}
}

// ? opens the key help over hive run's question and ? or esc closes it;
// once an answer is typed, ? is one of its characters and f1 opens the
// help. The footer says which.
func TestPipelineHelp(t *testing.T) {
	m, s := pipelineScreen(t, New(make(chan string), nil), 80, 24, SnapshotMsg{Snapshot: interviewing(t)}, tuitest.Press("?"))
	if !strings.Contains(s, "── Keys") || !strings.Contains(s, "?/esc close help") || !strings.Contains(s, "stop the run: the agents stop") {
		t.Fatalf("? does not open the help over the question:\n%s", s)
	}
	for _, closeKey := range []string{"?", "esc"} {
		if _, s := pipelineScreen(t, m, 80, 24, tuitest.Press(closeKey)); strings.Contains(s, "── Keys") || !strings.Contains(s, "interviewer asks") {
			t.Errorf("%s does not close the help:\n%s", closeKey, s)
		}
	}
	m, s = pipelineScreen(t, New(make(chan string), nil), 80, 24, SnapshotMsg{Snapshot: interviewing(t)},
		tuitest.Press("w"), tuitest.Press("h"), tuitest.Press("y"), tuitest.Press("?"))
	if strings.Contains(s, "── Keys") || !strings.Contains(s, "> why?") || !strings.Contains(s, "f1 help (? types)") {
		t.Fatalf("? while typing is not a character, or the footer does not say so:\n%s", s)
	}
	if _, s = pipelineScreen(t, m, 80, 24, tuitest.Press("f1")); !strings.Contains(s, "── Keys") {
		t.Errorf("f1 does not open the help while typing:\n%s", s)
	}
}

// TestPipelineAnswerInRunningProgram answers the interviewer's questions
// in a running program at 80×24, keys in order: 2 and enter send the
// second option of the first question; the screen then asks the next one,
// where tab and enter send its second option.
func TestPipelineAnswerInRunningProgram(t *testing.T) {
	answers := make(chan string)
	tm := teatest.NewTestModel(t, New(answers, nil), teatest.WithInitialTermSize(80, 24))
	first := interviewing(t)
	tm.Send(SnapshotMsg{Snapshot: first})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("edge cases included")) },
		teatest.WithDuration(10*time.Second))
	tm.Send(tuitest.Press("2"))
	tm.Send(tuitest.Press("enter"))
	got := func() string {
		select {
		case a := <-answers:
			return a
		case <-time.After(10 * time.Second):
			t.Fatal("no answer reached the run")
		}
		return ""
	}
	if a := got(); a != interviewOptions[1] {
		t.Fatalf("2 enter sent %q, want %q", a, interviewOptions[1])
	}
	next := first
	next.Open = &roleplan.Checkpoint{ID: first.Open.ID + 1, Job: "interviewer", Kind: roleplan.KindNeedsInput, Interview: true,
		Question: "What should happen when it fails at run time?", Options: []string{"return an error to the caller", "log it and go on"},
		Default: "return an error to the caller"}
	tm.Send(SnapshotMsg{Snapshot: next})
	tm.Send(tuitest.Press("tab"))
	tm.Send(tuitest.Press("enter"))
	if a := got(); a != "log it and go on" {
		t.Fatalf("tab enter sent %q, want the second option", a)
	}
	tm.Send(FinishedMsg{})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// A rich checkpoint (seed 003 §6.4) after the architect of refactor, with
// evaluation on: the three verdicts, what the architect produced, the
// computed confidence; details adds every check. At 120 and 80 columns.
func TestRichCheckpointView(t *testing.T) {
	m := pipeline.New()
	step := func(ev roleplan.Event) {
		t.Helper()
		if _, err := m.Step(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	step(roleplan.Event{Type: roleplan.EvStarted, Spec: &roleplan.Spec{Objective: "add file uploads", Workflow: workflows.Refactor,
		Routing: roleplan.Routing{Evaluate: true}}})
	step(roleplan.Event{Type: roleplan.EvReport, Job: "architect", Attempt: 1, Report: &work.Report{Status: work.ReportComplete, Summary: "4 plans for uploads"}})
	step(roleplan.Event{Type: roleplan.EvAgentExited, Job: "architect", Attempt: 1})
	step(roleplan.Event{Type: roleplan.EvLinted})
	step(roleplan.Event{Type: roleplan.EvEvaluated, Job: "architect", Attempt: 1, Evaluation: &roleplan.Evaluation{Role: "architect",
		Checks: &confidence.Score{Role: "architect", Points: 55, Max: 70, Checks: []confidence.Check{
			{Name: "plans lint clean", OK: true, Points: 20, Max: 20, Detail: "0 lint error(s)"},
			{Name: "referenced paths exist", OK: false, Points: 0, Max: 15, Detail: "0 of 1 referenced path(s) exist; missing: api/upload.go"},
			{Name: "tasks have verify and done", OK: true, Points: 20, Max: 20, Detail: "11 of 11 task(s)"},
			{Name: "few vague words", OK: true, Points: 15, Max: 15, Detail: "2 vague word(s) in 11 task(s)"}}},
		Verdicts: []roleplan.Verdict{{Aspect: "completeness", Verdict: "ok"},
			{Aspect: "coherence", Verdict: "warn", Notes: []string{"unclear how auth tokens refresh after upload"}},
			{Aspect: "risk", Verdict: "warn", Notes: []string{"no file size limit specified"}}},
		Produced: "4 plans, 11 tasks"}})
	for _, w := range []int{120, 80} {
		got := ansi.Strip(View(m.Snapshot(), nil, w))
		tuitest.Golden(t, "./internal/tui/pipelinescreen", fmt.Sprintf("pipeline_rich_checkpoint_%d", w), got)
		tuitest.CheckFits(t, got, w, 100)
	}
	step(roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: m.Snapshot().Open.ID, Text: "details"})
	tuitest.Golden(t, "./internal/tui/pipelinescreen", "pipeline_rich_checkpoint_details", ansi.Strip(View(m.Snapshot(), nil, 120)))
}

// A tester with no test to run is shown skipped, with why, never ✓; a
// tester a human let go on past failing tests is skipped without it.
func TestPipelineViewNoTests(t *testing.T) {
	s := roleplan.Snapshot{Jobs: []roleplan.Job{{ID: "implementer", Role: "implementer", State: roleplan.Done, Attempts: 1},
		{ID: "tester", Role: "tester", State: roleplan.Skipped, Attempts: 1}}, Tests: &roleplan.Tests{None: true}}
	got := ansi.Strip(View(s, nil, 80))
	if !strings.Contains(got, "– tester  no test to run: not verified") || strings.Contains(got, "✓ tester") {
		t.Errorf("no tests:\n%s", got)
	}
	s.Tests = &roleplan.Tests{Command: "go test ./...", ExitCode: 1, Failed: 1}
	if got := ansi.Strip(View(s, nil, 80)); strings.Contains(got, "no test to run") || !strings.Contains(got, "– tester") {
		t.Errorf("failing tests the human went on past:\n%s", got)
	}
}

// A followed pull request's step says what hive does with it: opens it,
// waits for its checks and reviews, pushes a fix.
func TestPipelineViewFollowing(t *testing.T) {
	s := roleplan.Snapshot{Jobs: []roleplan.Job{{ID: "implementer", Role: "implementer", State: roleplan.Done, Attempts: 1},
		{ID: roleplan.FollowJob, Type: roleplan.StepFollow, State: roleplan.Checking, Attempts: 1}},
		Follow: &roleplan.Following{Stage: roleplan.StageDeliver}}
	for _, tc := range []struct{ stage, want string }{
		{roleplan.StageDeliver, "pull-request  hive pushes the branch and opens the pull request"},
		{roleplan.StageWatch, "pull-request  waits for #8: its checks, reviews, merge"},
		{roleplan.StagePush, "pull-request  hive pushes the fix to pull request #8"},
	} {
		s.Follow.Stage = tc.stage
		if tc.stage != roleplan.StageDeliver {
			s.Follow.PR = &roleplan.PullRequest{Number: 8}
		}
		if got := ansi.Strip(View(s, nil, 80)); !strings.Contains(got, tc.want) || strings.Contains(got, "runs the tests") {
			t.Errorf("%s:\n%s", tc.stage, got)
		}
	}
	s.Follow.Rounds = []roleplan.Round{{N: 1, Head: "e02bc74aa", CI: []string{"test (u)"}, Pushed: "a368812bb"},
		{N: 2, Head: "a368812bb", Threads: []string{"health.go:12: handle the error from Encode"}}}
	got := ansi.Strip(View(s, nil, 80))
	for _, want := range []string{"    ↺ round 1: 1 failed check(s) on e02bc74 → fix pushed as a368812",
		"    ↺ round 2: comment health.go:12: handle the error from Encode on a368812 →"} {
		if !strings.Contains(got, want) {
			t.Errorf("the rounds: want %q in\n%s", want, got)
		}
	}
}

// TestPipelineSendsOnce: the run applies an answer to whatever it asks
// when the answer arrives, so a second enter before the next question
// shows sends nothing (it would answer that question); an answer the
// question does not take is not sent, and the screen says why.
func TestPipelineSendsOnce(t *testing.T) {
	answers := make(chan string, 2)
	var tm tea.Model = New(answers, nil)
	tm, _ = tm.Update(SnapshotMsg{Snapshot: interviewing(t)})
	tm, first := tm.Update(tuitest.Press("enter"))
	tm, second := tm.Update(tuitest.Press("enter"))
	if first == nil || second != nil {
		t.Fatalf("enter, enter: commands %v, %v; want one answer sent", first != nil, second != nil)
	}
	if _, s := pipelineScreen(t, tm.(Model), 80, 24); !strings.Contains(s, `"the smallest version that works" sent to the interviewer`) {
		t.Errorf("the screen does not say the answer was sent:\n%s", s)
	}

	review := roleplan.Snapshot{Spec: roleplan.Spec{Objective: "add file uploads"}, Open: &roleplan.Checkpoint{ID: 4, Job: "architect",
		Kind: roleplan.KindReview, Question: "architect finished: 4 plans. Look at its work before the run goes on",
		Options: []string{roleplan.AnswerContinue, roleplan.AnswerDetails, roleplan.AnswerReject, roleplan.AnswerAbort}}}
	msgs := []tea.Msg{SnapshotMsg{Snapshot: review}}
	for _, r := range "reject" {
		msgs = append(msgs, tuitest.Press(string(r)))
	}
	m, _ := pipelineScreen(t, New(answers, nil), 80, 24, msgs...)
	tm, cmd := m.Update(tuitest.Press("enter"))
	if cmd != nil {
		t.Error("reject without its feedback was sent")
	}
	if s := ansi.Strip(tm.(Model).Screen()); !strings.Contains(strings.Join(strings.Fields(s), " "), "reject needs the feedback the architect works again with") {
		t.Errorf("the screen does not say why the answer was not sent:\n%s", s)
	}
}

// TestPipelineLimitWait: while hive run waits for a provider's limit, its
// screen says until when, and how to go on now, above the keys.
func TestPipelineLimitWait(t *testing.T) {
	snap := midRun(t)
	snap.Open = nil
	until := time.Date(2026, 12, 2, 22, 19, 0, 0, time.Local)
	snap.Limit = &work.LimitWait{Kind: work.LimitUsage, Since: until.Add(-2 * time.Hour), Until: until, Job: "tester"}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		_, got := pipelineScreen(t, New(make(chan string, 1), nil), size[0], size[1], SnapshotMsg{Snapshot: snap})
		tuitest.CheckFits(t, got, size[0], size[1])
		words := strings.Fields(ansi.Strip(got))
		if want := "waiting for the usage limit's reset at 22:19: no role starts meanwhile; hive answer limit resume-now goes on now"; !tuitest.InOrder(words, strings.Fields(want)) {
			t.Errorf("%dx%d: %q is not on the screen:\n%s", size[0], size[1], want, got)
		}
	}
}
