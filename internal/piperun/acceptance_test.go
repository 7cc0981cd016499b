package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// prompts wraps a launcher and keeps each agent's prompt, by job and
// attempt ("architect/1").
type prompts struct {
	agent.Launcher
	mu   sync.Mutex
	seen map[string]string
}

func (p *prompts) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	p.mu.Lock()
	if p.seen == nil {
		p.seen = map[string]string{}
	}
	p.seen[fmt.Sprintf("%s/%d", spec.Plan, spec.Attempt)] = spec.Prompt
	p.mu.Unlock()
	return p.Launcher.Start(ctx, spec, sink)
}

// recorded runs wf to completion on repo, with its agents' prompts kept;
// change adjusts the options first.
func recorded(t *testing.T, repo *gitx.Repo, wf workflows.Workflow, change ...func(*Options)) (Result, *prompts, Options) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := options(t, repo, wf)
	rec := &prompts{Launcher: o.Launcher}
	o.Launcher = rec
	for _, c := range change {
		c(&o)
	}
	res, err := Run(ctx, o)
	if err != nil || res.Snapshot.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("%v %s: %s", err, res.Snapshot.Outcome, res.Snapshot.Reason)
	}
	return res, rec, o
}

// journaled are the payloads of run's journal records of type typ.
func journaled(j journal.Journal, run int64, typ string) [][]byte {
	var out [][]byte
	j.Each(run, func(r journal.Record) error {
		if r.Type == typ {
			out = append(out, r.Payload)
		}
		return nil
	})
	return out
}

func (p *prompts) get(key string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.seen[key]
	return s, ok
}

// The interviewer of the full workflow asks its questions as checkpoints
// (a human answers them here, through Answers); the answers reach the
// architect's prompt.
func TestAcceptanceInterviewAnswersReachArchitect(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Full)
	rec := &prompts{Launcher: o.Launcher}
	o.Launcher = rec
	o.AutoAnswer, o.NoInterview = false, false
	o.Wait, o.PollInterval = -1, 10*time.Millisecond
	answers := make(chan string, 8)
	o.Answers = answers
	var mu sync.Mutex
	var asked []string
	go func() {
		last := ""
		for ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
			run, ok, err := runjournal.Latest(o.Journal)
			if err != nil || !ok {
				continue
			}
			m, err := runjournal.Replay(o.Journal, run)
			if err != nil {
				continue
			}
			open := m.Snapshot().Open
			if open == nil || open.Question == last {
				continue
			}
			if !open.Interview || open.Job != workflows.RoleInterviewer {
				// Anything else the run asks is no part of this test.
				t.Errorf("the run asks %s: %q (kind %s)", open.Job, open.Question, open.Kind)
				cancel()
				return
			}
			last = open.Question
			mu.Lock()
			asked = append(asked, open.Question)
			n := len(asked)
			mu.Unlock()
			answers <- fmt.Sprintf("interview-answer-%d-zebra", n)
		}
	}()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("outcome %s: %s", res.Snapshot.Outcome, res.Snapshot.Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 3 {
		t.Fatalf("the interviewer asked %d question(s) as checkpoints, want the sim's 3: %q", len(asked), asked)
	}
	if _, ok := rec.get("interviewer/1"); !ok {
		t.Fatal("no interviewer was started")
	}
	prompt, ok := rec.get("architect/1")
	if !ok {
		t.Fatal("no architect was started")
	}
	for i, q := range asked {
		if a := fmt.Sprintf("interview-answer-%d-zebra", i+1); !strings.Contains(prompt, a) {
			t.Errorf("the architect's prompt lacks the answer %q to %q:\n%s", a, q, prompt)
		}
	}
}

// NoInterview skips the interviewer: no interviewer is started and nothing
// is asked.
func TestAcceptanceNoInterview(t *testing.T) {
	t.Parallel()
	_, rec, _ := recorded(t, gittest.Service(t), workflows.Full, func(o *Options) {
		o.AutoAnswer, o.NoInterview = false, true
		o.Wait = 0 // any question stops the run with NeedsHumanError
	})
	if _, ok := rec.get("interviewer/1"); ok {
		t.Error("an interviewer was started with NoInterview")
	}
	if _, ok := rec.get("architect/1"); !ok {
		t.Error("no architect was started")
	}
}

// A report that breaks the reviewer's contract is never the work done: the
// reviewer runs again with the contract's errors in its prompt, and after
// the contract's attempts the run stops for a human (without --yes).
func TestAcceptanceBadReportRetriedThenEscalated(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Review, faults.EnvFaults+"=reviewer=badreport")
	rec := &prompts{Launcher: o.Launcher}
	o.Launcher = rec
	o.AutoAnswer, o.Wait = false, 0
	_, err := Run(ctx, o)
	var nh *NeedsHumanError
	if !errors.As(err, &nh) {
		t.Fatalf("the run did not stop for a human: %v", err)
	}
	if nh.Checkpoint.Kind != roleplan.KindBlocked || nh.Checkpoint.Job != workflows.RoleReviewer {
		t.Errorf("stopped at %s's %s checkpoint, want reviewer's blocked one: %q", nh.Checkpoint.Job, nh.Checkpoint.Kind, nh.Checkpoint.Question)
	}
	if !strings.Contains(nh.Checkpoint.Question, "broke its contract") {
		t.Errorf("question %q does not say the report broke the contract", nh.Checkpoint.Question)
	}
	second, ok := rec.get("reviewer/2")
	if !ok {
		t.Fatal("the reviewer was not run again")
	}
	if !strings.Contains(second, "broke your role's contract") {
		t.Errorf("attempt 2's prompt has no contract errors:\n%s", second)
	}
	if first, _ := rec.get("reviewer/1"); strings.Contains(first, "broke your role's contract") {
		t.Error("attempt 1's prompt already speaks of contract errors")
	}
	run, ok, err := runjournal.Latest(o.Journal)
	if err != nil || !ok {
		t.Fatalf("no run in the journal: %v", err)
	}
	m, err := runjournal.Replay(o.Journal, run)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Snapshot()
	if s.Outcome == roleplan.OutcomeComplete {
		t.Error("the run is journaled complete")
	}
	for _, j := range s.Jobs {
		if j.Role == workflows.RoleReviewer && j.State == roleplan.Done {
			t.Errorf("the journal counts reviewer %s done", j.ID)
		}
	}
}

// Under --yes a report that still breaks its contract after its attempts
// never blocks the run (issue 48: it waited for a human who was not
// there): hive takes continue, the default its question names, says so in
// the run's output and keeps the decision for hive report.
func TestAcceptanceBadReportUnderYesGoesOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, gittest.Service(t), workflows.Review, faults.EnvFaults+"=reviewer=badreport")
	o.Wait = 0 // a question would stop the run with NeedsHumanError
	res, err := Run(ctx, o)
	if err != nil || res.Snapshot.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q: want the run to go on without the reviewer", err, res.Snapshot.Outcome)
	}
	said := strings.Join(o.Observer.(*notes).lines, "\n")
	if !strings.Contains(said, "reviewer's report broke its contract 2 times") || !strings.Contains(said, "--yes takes the default, continue") {
		t.Errorf("the run's output does not say that --yes went on:\n%s", said)
	}
	rep, err := runreport.Build(ctx, o.Journal, o.Repo, res.Run)
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Decisions; len(d) != 1 || d[0].Choice != roleplan.AnswerContinue || d[0].By != "default" ||
		d[0].Question != "reviewer's report broke its contract 2 times" {
		t.Errorf("the report's decisions %+v, want continue taken by default", d)
	}
}

// The files a run is given for context (-c, the shell Hive's memory) reach
// the prompt of every role that works in it, under their names, and so do
// the tools found on the machine.
func TestAcceptanceContextFilesReachEveryRole(t *testing.T) {
	t.Parallel()
	quick, _ := workflows.Builtin("quick")
	const name, gotcha = ".hive/memory.json (the shell Hive's memory)", "The tests need PORT unset"
	_, rec, _ := recorded(t, gittest.Service(t), quick, func(o *Options) {
		o.Context = []roleplan.ContextFile{{Name: name, Text: "## Gotchas\n- " + gotcha + "\n"}}
	})
	started := 0
	for _, st := range quick.Steps {
		if st.Role == "" {
			continue
		}
		p, ok := rec.get(st.Role + "/1")
		if !ok {
			continue
		}
		started++
		if !strings.Contains(p, name) || !strings.Contains(p, gotcha) {
			t.Errorf("the %s's prompt lacks the context file %q:\n%s", st.Role, name, p)
		}
		// The machine's tools (go runs these tests, so go is one).
		if !regexp.MustCompile(`## Tools on this machine\n\nYou may use: [a-z0-9, -]*\bgo\b`).MatchString(p) {
			t.Errorf("the %s's prompt does not say which tools it has:\n%s", st.Role, p)
		}
	}
	if started < 2 {
		t.Errorf("%d role(s) of %s started; want at least 2", started, quick.Name)
	}
}

// Each role gets the context curated for it (seed 003 §2.3): the architect
// the codebase index, the tester the diff and the implementers' summaries, the
// reviewer the diff and the architect's plans; what was given is journaled.
func TestAcceptanceCuratedContext(t *testing.T) {
	t.Parallel()
	res, rec, o := recorded(t, gittest.Service(t), classic)
	for job, want := range map[string][]string{
		"architect/1": {"## The codebase (hive's index)\n", "Entry points:"},
		"tester/1":    {"## The change so far (git diff)\n", "```diff\n", "## The implementers' summaries\n", "-SUMMARY.md\n"},
		"reviewer/1":  {"## The change (git diff)\n", "## The architect's plans\n", "-PLAN.md\n"},
	} {
		p, ok := rec.get(job)
		if !ok {
			t.Errorf("no %s started", job)
			continue
		}
		for _, w := range want {
			if !strings.Contains(p, w) {
				t.Errorf("%s's prompt lacks %q", job, w)
			}
		}
	}
	if p, _ := rec.get("documenter/1"); strings.Contains(p, "git diff)") {
		t.Error("the documenter got the tester's context")
	}
	given := map[string]bool{}
	for _, payload := range journaled(o.Journal, res.Run.ID, runjournal.ContextEvent) {
		var g runjournal.ContextRecord
		if json.Unmarshal(payload, &g) == nil {
			given[g.Job] = len(g.Parts) > 0
		}
	}
	if !given["architect"] || !given["tester"] || !given["reviewer"] {
		t.Errorf("journaled context: %v", given)
	}
}
