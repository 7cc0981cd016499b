package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/sim"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__sim" {
		os.Exit(sim.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

type notes struct{ lines []string }

func (n *notes) Event(ev roleplan.Event, _ roleplan.Snapshot) {
	if os.Getenv("PIPERUN_TRACE") != "" {
		println(time.Now().Format("15:04:05.000"), string(ev.Type), ev.Job)
	}
}
func (n *notes) Command(c roleplan.Command, _ roleplan.Snapshot) {
	if c.Type == roleplan.CmdNote || c.Type == roleplan.CmdCheckpoint {
		n.lines = append(n.lines, string(c.Type)+" "+c.Job+" "+c.Text)
	}
}
func (n *notes) Note(job, text string) { n.lines = append(n.lines, "note "+job+" "+text) }

func options(t *testing.T, repo *gitx.Repo, wf workflows.Workflow, env ...string) Options {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(repo.Root, ".hive", "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return Options{Repo: repo, Journal: j, Observer: &notes{}, Objective: "add a health check endpoint", Workflow: wf,
		Launcher: adapter.Sim{Bin: self, Env: env}, AutoAnswer: true, MaxConcurrent: 2,
		// The sim tester is silent while go test runs, which on a loaded
		// machine can take a minute: a short stall would judge it hung.
		WorktreeRoot: filepath.Join(t.TempDir(), "wt"), Stall: 5 * time.Minute}
}

// classic is the full workflow as it was before the shell Hive's roles,
// one role after another: the paths of seed 003's faults are read from
// the journal in that order.
var classic = workflows.Workflow{Name: "classic", Steps: []workflows.Step{{Role: workflows.RoleArchitect}, {Role: workflows.RoleImplementer},
	{Role: workflows.RoleComb}, {Role: workflows.RoleTester}, {Role: workflows.RoleReviewer}, {Role: workflows.RoleDocumenter}}}

func jobs(s roleplan.Snapshot) string {
	var b []string
	for _, j := range s.Jobs {
		b = append(b, j.ID+"="+string(j.State))
	}
	return strings.Join(b, " ")
}

// The full workflow with the sim playing every role: the architect's two
// plans run as implementers in parallel and are merged, the tests run, and
// the work is merged into main, the user's tree untouched until then.
func TestFullWorkflow(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Full)
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	if s.Outcome != roleplan.OutcomeComplete || !res.Merged {
		t.Fatalf("outcome %s merged %v notes %q jobs %s", s.Outcome, res.Merged, res.Notes, jobs(s))
	}
	want := "interviewer=skipped architect=done implementers=done comb=done ui-designer=skipped build=done tester=done reviewer=done security=done " +
		"e2e-tester=skipped browser-validator=skipped fix_blocking=done documenter=done"
	if got := jobs(s); got != want {
		t.Fatalf("jobs: %s", got)
	}
	// After the build, the tester, the reviewer and security work side by
	// side: each started before the others ended, as the journal says.
	var order []string
	o.Journal.Each(res.Run.ID, func(rec journal.Record) error {
		var ev roleplan.Event
		json.Unmarshal(rec.Payload, &ev)
		if (ev.Type == roleplan.EvAgentStarted || ev.Type == roleplan.EvAgentExited) && slices.Contains([]string{"tester", "reviewer", "security"}, ev.Job) {
			order = append(order, string(ev.Type))
		}
		return nil
	})
	if got := strings.Join(order, " "); !strings.HasPrefix(got, "role-started role-started role-started ") {
		t.Errorf("tester, reviewer and security did not work side by side: %s", got)
	}
	for _, f := range []string{"add_a_health_check_endpoint.go", "add_a_health_check_endpoint_test.go", "docs/add-a-health-check-endpoint.md",
		".hive/runs/1/phase/01-01-PLAN.md", ".hive/runs/1/phase/01-03-SUMMARY.md"} {
		if _, err := os.Stat(filepath.Join(repo.Root, f)); err != nil {
			t.Errorf("main lacks %s: %v", f, err)
		}
	}
	// The architect's phase is the run's: kept in hive's folder, never
	// merged into the project's phases.
	if _, err := os.Stat(filepath.Join(repo.Root, ".planning", "phases")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run's plans reached the project's .planning/phases: %v", err)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "plans are kept in .hive/runs/1/phase") }) {
		t.Errorf("notes do not say where the plans are: %q", res.Notes)
	}
	if readme, _ := os.ReadFile(filepath.Join(repo.Root, "README.md")); !strings.Contains(string(readme), "documented by the hive sim") {
		t.Errorf("the documenter's change is not on main: %q", readme)
	}
	// The fixture's test and the endpoint's test the sim wrote, both real.
	if s.Tests == nil || s.Tests.ExitCode != 0 || s.Tests.Passed != 2 {
		t.Errorf("tests: %+v", s.Tests)
	}
	if b := gittest.Trimmed(t, repo.Root, "branch", "--list", "hive/*"); b != "" {
		t.Errorf("branches left: %s", b)
	}
	if st := gittest.Trimmed(t, repo.Root, "status", "--porcelain"); st != "" {
		t.Errorf("the user's tree is not clean: %s", st)
	}
	// The roles committed all they did: nothing was set aside.
	if left := gittest.Trimmed(t, repo.Root, "for-each-ref", "refs/hive/left/"); left != "" {
		t.Errorf("leftovers set aside: %s", left)
	}
}

// The quick workflow with a failing test: the fix loop sends it back to
// the implementer, which fixes it; a needs_input is answered by default.
func TestQuickWorkflowFixLoop(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick, faults.EnvFaults+"=tester=fail#1,implementer=needs-input#1")
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	if s.Outcome != roleplan.OutcomeComplete || s.FixLoops != 1 || len(s.Decisions) != 1 || s.Decisions[0].By != "default" {
		t.Fatalf("outcome %s fix loops %d decisions %+v notes %q", s.Outcome, s.FixLoops, s.Decisions, o.Observer.(*notes).lines)
	}
	if _, err := os.Stat(filepath.Join(repo.Root, "hive_sim_failing_test.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failing test reached main: %v", err)
	}
}

// A second challenge of the same handoff stops the run for a human; the
// answer on resume goes on, and the run completes.
func TestChallengeNeedsHumanThenResume(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick, faults.EnvFaults+"=tester=challenge#1,tester=challenge#2")
	_, err := Run(ctx, o)
	var needs *NeedsHumanError
	if !errors.As(err, &needs) || needs.Checkpoint.Kind != roleplan.KindChallenge {
		t.Fatalf("Run = %v, want a challenge for a human", err)
	}
	// Refused, naming the run (the command line adds how to resume it).
	var unfinished *UnfinishedError
	if _, err := Run(ctx, o); !errors.As(err, &unfinished) || unfinished.Run.ID != needs.Run {
		t.Fatalf("a new run over an unfinished one: %v", err)
	}
	o.Resume, o.Answer = true, "override"
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Merged || len(res.Snapshot.Challenges) != 2 {
		t.Fatalf("outcome %s merged %v challenges %+v", res.Snapshot.Outcome, res.Merged, res.Snapshot.Challenges)
	}
}

// An implementer of the phase challenges the architect's plans: the
// architect runs again with the challenge, then the phase runs again (a
// new phase run), and the run completes.
func TestImplementerChallengesArchitect(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Full, faults.EnvFaults+"=implementer=challenge#1")
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("%v\n%q", err, o.Observer.(*notes).lines)
	}
	s := res.Snapshot
	if s.Outcome != roleplan.OutcomeComplete || len(s.Challenges) != 1 || s.Challenges[0].From != "implementer" || s.Challenges[0].To != "architect" {
		t.Fatalf("outcome %s challenges %+v jobs %s", s.Outcome, s.Challenges, jobs(s))
	}
	attempts := map[string]int{}
	for _, j := range s.Jobs {
		attempts[j.ID] = j.Attempts
	}
	if attempts["architect"] != 2 || attempts[roleplan.PhaseJob] != 2 {
		t.Fatalf("attempts %v, want the architect and the phase twice", attempts)
	}
}

// A run that may wait takes its answer from `hive answer` (the journal)
// while it runs, or from its terminal; a wrong answer typed is refused and
// the run keeps waiting.
func TestAnswersWhileWaiting(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"hive answer", "terminal"} {
		t.Run(how, func(t *testing.T) {
			repo := gittest.Service(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			o := options(t, repo, workflows.Quick, faults.EnvFaults+"=tester=challenge#1,tester=challenge#2")
			o.Wait, o.PollInterval = -1, 10*time.Millisecond
			answers := make(chan string, 2)
			o.Answers = answers
			go func() {
				for {
					time.Sleep(20 * time.Millisecond)
					if ctx.Err() != nil {
						return
					}
					if how == "terminal" {
						if open := waitingFor(t, o); open != "" {
							answers <- "maybe"
							answers <- "override"
							return
						}
						continue
					}
					if _, _, err := runjournal.Answer(o.Journal, "tester", "override", time.Now()); err == nil {
						return
					}
				}
			}()
			res, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot.Outcome != roleplan.OutcomeComplete || len(res.Snapshot.Challenges) != 2 {
				t.Fatalf("outcome %s challenges %+v", res.Snapshot.Outcome, res.Snapshot.Challenges)
			}
			if how == "terminal" && !slices.ContainsFunc(o.Observer.(*notes).lines, func(l string) bool { return strings.Contains(l, `not "maybe"`) }) {
				t.Errorf("a wrong answer typed was not refused: %q", o.Observer.(*notes).lines)
			}
		})
	}
}

// waitingFor is the job the newest run asks, "" when none.
func waitingFor(t *testing.T, o Options) string {
	run, ok, err := runjournal.Latest(o.Journal)
	if err != nil || !ok {
		return ""
	}
	m, err := runjournal.Replay(o.Journal, run)
	if err != nil {
		t.Error(err)
		return ""
	}
	if open := m.Snapshot().Open; open != nil {
		return open.Job
	}
	return ""
}

// The four faults of the issue together, in the full workflow with --yes:
// the architect's question takes its default, an implementer of the phase
// challenges the plans, the tester's failing test goes through a fix loop,
// and the reviewer challenges the tester; the run still completes, with
// each path journaled.
func TestFourFaultsTogether(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, classic, faults.EnvFaults+"=implementer=challenge#1,tester=fail#1,architect=needs-input#1,reviewer=challenge#1")
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("%v\n%q", err, o.Observer.(*notes).lines)
	}
	s := res.Snapshot
	var challenges []string
	for _, c := range s.Challenges {
		challenges = append(challenges, fmt.Sprintf("%s>%s#%d", c.From, c.To, c.Round))
	}
	if s.Outcome != roleplan.OutcomeComplete || !res.Merged || s.FixLoops != 1 || len(s.Decisions) != 1 || s.Decisions[0].By != "default" ||
		strings.Join(challenges, " ") != "implementer>architect#1 reviewer>tester#1" {
		t.Fatalf("outcome %s merged %v fix loops %d decisions %+v challenges %v jobs %s", s.Outcome, res.Merged, s.FixLoops, s.Decisions, challenges, jobs(s))
	}
	if _, err := os.Stat(filepath.Join(repo.Root, "hive_sim_failing_test.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failing test reached main: %v", err)
	}
}

// Each fault of the issue alone takes seed 003's path, read back from the
// journal: which roles started, in order, and how many times hive ran the
// phase and the tests; a tester that keeps failing reaches a human after
// the two fix loops.
func TestFaultPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		faults      string
		starts      string // role-started events, in order
		phases      int    // phase-done events
		failedTests int    // tests-ran events with a failure
		needsHuman  roleplan.CheckpointKind
	}{
		{faults: "implementer=challenge#1", starts: "architect architect comb tester reviewer documenter", phases: 2},
		{faults: "tester=fail#1", starts: "architect comb tester implementer-fix tester reviewer documenter", phases: 1, failedTests: 1},
		{faults: "architect=needs-input#1", starts: "architect architect comb tester reviewer documenter", phases: 1},
		{faults: "reviewer=challenge#1", starts: "architect comb tester reviewer tester reviewer documenter", phases: 1},
		{faults: "tester=fail", starts: "architect comb tester implementer-fix tester implementer-fix tester", phases: 1, failedTests: 3,
			needsHuman: roleplan.KindTests},
	} {
		t.Run(tc.faults, func(t *testing.T) {
			repo := gittest.Service(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			o := options(t, repo, classic, faults.EnvFaults+"="+tc.faults)
			res, err := Run(ctx, o)
			var needs *NeedsHumanError
			switch {
			case tc.needsHuman != "":
				if !errors.As(err, &needs) || needs.Checkpoint.Kind != tc.needsHuman {
					t.Fatalf("Run = %v, want a %s question for a human", err, tc.needsHuman)
				}
			case err != nil:
				t.Fatal(err)
			case res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Merged:
				t.Fatalf("outcome %s merged %v", res.Snapshot.Outcome, res.Merged)
			}
			run, _, err := runjournal.Latest(o.Journal)
			if err != nil {
				t.Fatal(err)
			}
			var starts []string
			phases, failed := 0, 0
			o.Journal.Each(run.ID, func(rec journal.Record) error {
				var ev roleplan.Event
				json.Unmarshal(rec.Payload, &ev)
				switch ev.Type {
				case roleplan.EvAgentStarted:
					starts = append(starts, ev.Job)
				case roleplan.EvPhaseDone:
					phases++
				case roleplan.EvTestsRan:
					if ev.Tests.ExitCode != 0 {
						failed++
					}
				}
				return nil
			})
			if got := strings.Join(starts, " "); got != tc.starts || phases != tc.phases || failed != tc.failedTests {
				t.Fatalf("journal: starts %q (want %q), %d phase runs (want %d), %d failing test runs (want %d)",
					got, tc.starts, phases, tc.phases, failed, tc.failedTests)
			}
		})
	}
}

// A role agent that goes silent is ended by the watchdog after the stall
// timeout; its exit without a report is retried once, and the run goes on.
func TestSilentRoleIsEnded(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick, faults.EnvFaults+"=tester=hang#1")
	// Long enough that the retry's first output comes within it on a
	// loaded 2-core machine, after the sim tester's own go test, which
	// prints nothing while it builds (at 1 s a full make test saw it time
	// out; at 3 s, a make test beside other builds at load 18; at 8 s, the
	// package run at nice 19 beside chaos iterations at load 11).
	o.Stall = 20 * time.Second
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	attempts := map[string]int{}
	for _, j := range res.Snapshot.Jobs {
		attempts[j.ID] = j.Attempts
	}
	if res.Snapshot.Outcome != roleplan.OutcomeComplete || attempts["tester"] != 2 {
		t.Fatalf("outcome %s attempts %v notes %q", res.Snapshot.Outcome, attempts, o.Observer.(*notes).lines)
	}
	if !slices.ContainsFunc(o.Observer.(*notes).lines, func(l string) bool { return strings.Contains(l, "silent for") }) {
		t.Errorf("the watchdog said nothing: %q", o.Observer.(*notes).lines)
	}
}

// The run's budget holds hive run's roles: the role whose turns pass the
// ceiling is interrupted and the run stops at the budget checkpoint; a
// resume with a raise goes on with the spend so far kept, and completes.
func TestBudgetStopThenRaise(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick)
	// The sim's model at a dollar per thousand input tokens: its first
	// session passes a budget of a cent.
	o.Prices = pricing.Table{"sim": {Input: 1000, Output: 1000}}
	o.Budget = roleplan.Budget{Ceilings: work.Ceilings{USD: 0.01}}
	_, err := Run(ctx, o)
	var needs *NeedsHumanError
	if !errors.As(err, &needs) || needs.Checkpoint.Kind != roleplan.KindBudget || needs.Checkpoint.Job != workflows.RoleImplementer {
		t.Fatalf("Run = %v, want the budget checkpoint at the implementer", err)
	}
	run, _, err := runjournal.Latest(o.Journal)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runjournal.Replay(o.Journal, run)
	if err != nil {
		t.Fatal(err)
	}
	spent := m.Snapshot().Spent
	if spent.CostUSD < 0.01 || spent.InputTokens == 0 {
		t.Fatalf("spent at the stop = %+v, want the ceiling passed", spent)
	}
	o.Resume, o.Answer = true, "raise 0.005"
	if _, err := Run(ctx, o); !errors.As(err, new(*runjournal.AnswerError)) {
		t.Fatalf("a raise below what is spent: %v", err)
	}
	o.Answer = "raise 1000"
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	if s.Outcome != roleplan.OutcomeComplete || s.Budget.USD != 1000 {
		t.Fatalf("outcome %s budget %+v jobs %s", s.Outcome, s.Budget, jobs(s))
	}
	if s.Spent.CostUSD <= spent.CostUSD || s.Spent.InputTokens <= spent.InputTokens {
		t.Errorf("spent after the raise = %+v, not more than at the stop (%+v): the spend was reset", s.Spent, spent)
	}
	// The interrupted implementer runs again after the raise, unless its
	// report came through before it was ended (the sim is quick): then its
	// work is taken as done.
	impl := s.Jobs[0]
	if impl.Role != workflows.RoleImplementer || impl.State != roleplan.Done || (impl.Attempts != 2 && impl.Report == nil) {
		t.Errorf("implementer = %+v, want it done: a second attempt after the raise, or its report", impl)
	}
}

// A role's own ceiling holds the implementers' phase too: the phase stops
// at its allotment with its plans where they were, and the raise reaches
// the phase's own budget, so that its run resumes and completes.
func TestPhaseBudgetStopThenRaise(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Workflow{Name: "plans", Steps: []workflows.Step{{Role: workflows.RoleArchitect}, {Role: workflows.RoleImplementer}}})
	o.Prices = pricing.Table{"sim": {Input: 1000, Output: 1000}}
	o.Budget = roleplan.Budget{Roles: map[string]float64{workflows.RoleImplementer: 0.01}}
	_, err := Run(ctx, o)
	var needs *NeedsHumanError
	if !errors.As(err, &needs) || needs.Checkpoint.Kind != roleplan.KindBudget || needs.Checkpoint.Job != roleplan.PhaseJob {
		t.Fatalf("Run = %v, want the budget checkpoint at the implementers' phase", err)
	}
	if !strings.Contains(needs.Checkpoint.Question, "budget.roles.implementer") {
		t.Errorf("question %q does not name the role's ceiling", needs.Checkpoint.Question)
	}
	o.Resume, o.Answer = true, "raise 1000"
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	if s.Outcome != roleplan.OutcomeComplete || !res.Merged {
		t.Fatalf("outcome %s merged %v notes %q jobs %s", s.Outcome, res.Merged, res.Notes, jobs(s))
	}
	var phase roleplan.Job
	for _, j := range s.Jobs {
		if j.Phase {
			phase = j
		}
	}
	if phase.Attempts != 2 || phase.Spend.CostUSD < 0.01 {
		t.Errorf("phase = %+v, want two attempts and the spend of both", phase)
	}
	for _, p := range s.Plans {
		if p.State != "complete" {
			t.Errorf("plan %s %s", p.ID, p.State)
		}
	}
}

// TestShareBeforeWorkIsJournaled: with Options.Share, the run's worktree
// is handed on before each event that follows work there is journaled:
// the architect's plans are in what was shared before its report reached
// the journal; a share that fails stops the run before that event is
// journaled, and the run resumes once it can share.
func TestShareBeforeWorkIsJournaled(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	wf := workflows.Workflow{Name: "three", Steps: []workflows.Step{{Role: workflows.RoleArchitect}, {Role: workflows.RoleImplementer}, {Role: workflows.RoleTester}}}
	o := options(t, repo, wf)
	type shared struct {
		records int64
		plans   bool
	}
	var shares []shared
	failAt := 2 // the architect's report: the run's start is shared first
	o.Share = func(ctx context.Context, dir string, run journal.Run) error {
		if len(shares)+1 == failAt {
			failAt = 0
			return errors.New("the remote does not answer")
		}
		recs, err := o.Journal.Events(run.ID, 1)
		if err != nil {
			return err
		}
		plans, _ := filepath.Glob(filepath.Join(dir, ".planning", "phases", "*", "*-PLAN.md"))
		shares = append(shares, shared{int64(len(recs)), len(plans) > 0 && gittest.Trimmed(t, dir, "status", "--porcelain", ".planning") == ""})
		return nil
	}
	_, err := Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "share the run's work: the remote does not answer") {
		t.Fatalf("a share that failed: %v", err)
	}
	last, _, _ := runjournal.Latest(o.Journal)
	exits := 0
	o.Journal.Each(last.ID, func(rec journal.Record) error {
		if rec.Type == string(roleplan.EvReport) {
			exits++
		}
		return nil
	})
	if exits != 0 {
		t.Fatalf("the architect's report was journaled though its work was not shared")
	}
	o.Resume = true
	res, err := Run(ctx, o)
	if err != nil || res.Snapshot.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("resumed: %v %+v", err, res.Snapshot.Outcome)
	}
	// Each role's report and exit and the phase's end were shared before
	// they were journaled: the architect's report (the resumed run's
	// first) with its plans committed.
	var exitSeqs []int64
	o.Journal.Each(res.Run.ID, func(rec journal.Record) error {
		if rec.Type == string(roleplan.EvReport) || rec.Type == string(roleplan.EvAgentExited) || rec.Type == string(roleplan.EvPhaseDone) {
			exitSeqs = append(exitSeqs, rec.Seq)
		}
		return nil
	})
	if len(exitSeqs) < 3 {
		var types []string
		o.Journal.Each(res.Run.ID, func(rec journal.Record) error { types = append(types, rec.Type); return nil })
		t.Fatalf("the resumed run journaled %d exits and phase ends: %v", len(exitSeqs), types)
	}
	prev := int64(0)
	for i, seq := range exitSeqs {
		if i > 0 && seq == exitSeqs[i-1]+1 {
			continue // journaled in one batch with the one before
		}
		if !slices.ContainsFunc(shares, func(s shared) bool { return s.records >= prev && s.records < seq }) {
			t.Errorf("nothing was shared after record %d and before record %d was journaled: %+v", prev, seq, shares)
		}
		prev = seq
	}
	for _, s := range shares {
		if s.records < exitSeqs[0] && s.records > 0 && !s.plans {
			t.Errorf("the share before the architect's report lacks its committed plans")
		}
	}
}

// A role whose turn ends on its provider's usage limit (the sim says it as
// Claude Code does, with a reset 2 s ahead) makes the run wait for the
// reset, then runs again from its commits: the run completes, and no crash
// is counted.
func TestUsageLimitWaits(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick, "HIVE_SIM_FAULTS=implementer=limit#1", "HIVE_SIM_LIMIT_RESET=2s")
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("outcome %s: %s\n%s", res.Snapshot.Outcome, res.Snapshot.Reason, o.Observer)
	}
	var limited, woke bool
	o.Journal.Each(res.Run.ID, func(rec journal.Record) error {
		limited = limited || rec.Type == string(roleplan.EvLimited)
		woke = woke || rec.Type == string(roleplan.EvWake)
		return nil
	})
	said := strings.Join(o.Observer.(*notes).lines, "\n")
	if !limited || !woke || !strings.Contains(said, "waiting for the usage limit's reset") || strings.Contains(said, "without a HIVE_REPORT") {
		t.Errorf("limited %v, woke %v; notes:\n%s", limited, woke, said)
	}
	for _, j := range res.Snapshot.Jobs {
		if j.ID == workflows.RoleImplementer && j.Attempts != 2 {
			t.Errorf("the implementer ran %d times, want 2", j.Attempts)
		}
	}
}

// roleCounter counts the sessions a launcher started, by job.
type roleCounter struct {
	agent.Launcher
	mu   sync.Mutex
	jobs []string
}

func (r *roleCounter) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	r.mu.Lock()
	r.jobs = append(r.jobs, spec.Plan)
	r.mu.Unlock()
	return r.Launcher.Start(ctx, spec, sink)
}

func (r *roleCounter) started() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.jobs, " ")
}

// Under limits.on_limit fallback the implementer's usage limit (met at
// each of its turns on the run's own agent: the account's limit holds)
// switches the run to the fallback agent: the implementer goes on there
// at once, from its commits, and the tester starts there; nothing waits.
func TestUsageLimitFallsBackInARun(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick, "HIVE_SIM_FAULTS=implementer=limit", "HIVE_SIM_LIMIT_RESET=2h")
	own := &roleCounter{Launcher: o.Launcher}
	fallback := &roleCounter{Launcher: adapter.Sim{Bin: o.Launcher.(adapter.Sim).Bin}}
	o.Launcher, o.OnLimit, o.Fallback = own, work.OnLimitFallback, fallback
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	said := strings.Join(o.Observer.(*notes).lines, "\n")
	if res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Snapshot.Fallback {
		t.Fatalf("outcome %s (%s), fallback %v\n%s", res.Snapshot.Outcome, res.Snapshot.Reason, res.Snapshot.Fallback, said)
	}
	if !strings.Contains(said, "the rest of the run goes on with the fallback agent") || strings.Contains(said, "waiting for") || strings.Contains(said, "without a HIVE_REPORT") {
		t.Errorf("the switch was not said, or the run waited, or counted a crash:\n%s", said)
	}
	if got := own.started(); got != workflows.RoleImplementer {
		t.Errorf("the run's own agent started %q, want the implementer's first session only", got)
	}
	if got := fallback.started(); !strings.HasPrefix(got, workflows.RoleImplementer+" ") || !strings.Contains(got, workflows.RoleTester) {
		t.Errorf("the fallback started %q, want the implementer's next session and the tester's", got)
	}
}

// Under limits.on_limit stop a plan of the implementers' phase that meets
// the usage limit stops the phase and then the run, with the wait in the
// journals; hive run --resume goes on once it is over, and every task of
// the phase is committed once.
func TestUsageLimitStopsARun(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The reset is 2 h ahead on the run's clock, which the test moves past
	// it for the resume (a short reset on the wall clock could pass before
	// the phase's other plans end their turns, under load).
	o := options(t, repo, classic, "HIVE_SIM_FAULTS=01-02=limit@1#1", "HIVE_SIM_LIMIT_RESET=2h")
	clock := &testsupport.Clock{}
	o.Now, o.After = clock.Now, clock.After
	o.Stall = 24 * time.Hour // the clock jumps hours: no agent may seem silent for that
	o.OnLimit = work.OnLimitStop
	_, err := Run(ctx, o)
	var stopped *work.StoppedAtLimit
	if !errors.As(err, &stopped) || stopped.Wait.Job != roleplan.PhaseJob {
		t.Fatalf("Run = %v, want it stopped at the phase's usage limit\n%s", err, strings.Join(o.Observer.(*notes).lines, "\n"))
	}
	clock.Advance(3 * time.Hour) // past the reset
	o.Resume, o.OnLimit = true, work.OnLimitWait
	res, err := Run(ctx, o)
	if err != nil || res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Merged {
		t.Fatalf("resumed: %v, outcome %s (%s)\n%s", err, res.Snapshot.Outcome, res.Snapshot.Reason, strings.Join(o.Observer.(*notes).lines, "\n"))
	}
	log := gittest.Trimmed(t, repo.Root, "log", "--format=%s", "main")
	for _, p := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(log, "feat("+p+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", p, n, log)
		}
	}
}
