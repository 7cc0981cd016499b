package evaluation

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/contract"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/checks"
	"github.com/hivectl/hive/internal/piperun/oneshot"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/workflows"
)

// Evaluator judges the work of a run's roles in the run's worktree.
type Evaluator struct {
	Repo *gitx.Repo // the user's repository: the evaluators' prompt, their logs
	// Journal is the run's, whose records hold hive's earlier checks of
	// it; nil for a worker away from the run's folder.
	Journal journal.Journal
	Run     int64
	// Checks is the run's worktree, with the project's commands.
	Checks checks.Worktree
	Home   string // where the user's global prompts are; "" for none
	// Launcher starts the evaluators: Model their model, Timeout each
	// call's bound (2 minutes by default), Prices their prices.
	Launcher agent.Launcher
	Model    string
	Timeout  time.Duration
	Prices   pricing.Table
}

// workLimit bounds what the evaluators read of a role's work.
const workLimit = 12 << 10

// Evaluate judges a role's attempt (seed 003 §3.2, §3.3): hive's own
// checks for its role, run in the run's worktree, and the three
// evaluators side by side, each reading the same account of the work.
func (x *Evaluator) Evaluate(ctx context.Context, c roleplan.Command, snap roleplan.Snapshot) roleplan.Event {
	e := roleplan.Evaluation{Role: c.Role}
	var report string
	for _, j := range snap.Jobs {
		if j.ID == c.Job && j.Report != nil {
			e.SelfReported = j.Report.Confidence
			report = reportText(j.Report.Summary, j.Report.Files, j.Report.Concerns)
		}
	}
	ev := x.evidence(snap.Spec.Base)
	if isWriter(c.Role) {
		// The role just changed the code: its build and tests are run now,
		// not taken from an earlier check.
		ev.build, ev.tests = x.freshRuns(ctx)
	}
	e.Checks, e.Produced = x.checkRole(c.Role, snap, ev)
	work := "### Its report\n\n" + report + "\n\n" + x.workText(ctx, c.Role, snap, ev)
	if len(work) > workLimit {
		work = work[:workLimit] + "\n[… cut at " + fmt.Sprint(workLimit) + " bytes]"
	}
	e.Verdicts = make([]roleplan.Verdict, len(roleplan.Aspects))
	var wg sync.WaitGroup
	for i, aspect := range roleplan.Aspects {
		wg.Go(func() { e.Verdicts[i] = x.judge(ctx, c, snap.Spec.Objective, aspect, work) })
	}
	wg.Wait()
	for _, v := range e.Verdicts {
		e.Spend = e.Spend.Plus(v.Spend)
	}
	return roleplan.Event{Type: roleplan.EvEvaluated, Job: c.Job, Attempt: c.Attempt, Evaluation: &e}
}

// isWriter says whether a role's work is code, judged by the build and
// the tests.
func isWriter(role string) bool {
	return slices.Contains([]string{workflows.RoleImplementer, workflows.RoleDebugger, workflows.RoleMigrator, workflows.RoleUIDesigner,
		workflows.RoleComb, workflows.RoleDocumenter}, role)
}

// evidence is what hive's checks of a run have found so far: the last
// lint of the architect's plans, build and test run, read from the journal.
type evidence struct {
	lint           []string
	build, tests   confidence.Run
	changed, added []string
}

func (x *Evaluator) evidence(base string) evidence {
	var ev evidence
	if x.Journal == nil {
		return ev // a worker away from the run's folder: what hive runs now is the evidence
	}
	_ = x.Journal.Each(x.Run, func(rec journal.Record) error {
		var e roleplan.Event
		if json.Unmarshal(rec.Payload, &e) != nil || string(e.Type) != rec.Type {
			return nil
		}
		switch e.Type {
		case roleplan.EvLinted:
			ev.lint = e.Errors
		case roleplan.EvBuilt:
			ev.build = runOf(e.Tests)
		case roleplan.EvTestsRan:
			ev.tests = runOf(e.Tests)
		}
		return nil
	})
	ev.changed, ev.added = checks.Changes(context.Background(), x.Repo.At(x.Checks.Dir), base)
	return ev
}

func runOf(t *roleplan.Tests) confidence.Run {
	if t == nil {
		return confidence.Run{}
	}
	return confidence.Run{Ran: t.Ran(), OK: t.ExitCode == 0,
		Passed: t.Passed, Failed: t.Failed, Command: t.Command, Output: t.Output}
}

// freshRuns runs the project's build and tests in the run's worktree
// now, as the build step and the tester's check run them.
func (x *Evaluator) freshRuns(ctx context.Context) (build, tests confidence.Run) {
	b, _ := x.Checks.Build(ctx, nil)
	t, _ := x.Checks.Tests(ctx, nil)
	return runOf(b), runOf(t)
}

// checkRole runs hive's mechanical checks of a role (nil for a role it
// has none for) and says what the role produced.
func (x *Evaluator) checkRole(role string, snap roleplan.Snapshot, ev evidence) (*confidence.Score, string) {
	switch {
	case role == workflows.RoleArchitect:
		var plans []confidence.Plan
		tasks := 0
		if ph, err := load.Phase(x.Checks.Dir, snap.Spec.PhaseDir); err == nil {
			for _, p := range ph.Plans {
				plans = append(plans, confidencePlan(p))
				tasks += len(p.Tasks)
			}
		}
		sc := confidence.Architect(ev.lint, plans, x.exists)
		return &sc, fmt.Sprintf("%d plan(s), %d task(s)", len(plans), tasks)
	case isWriter(role):
		var planned []string
		if ph, err := load.Phase(x.Checks.Dir, snap.Spec.PhaseDir); err == nil && role == workflows.RoleImplementer {
			for _, p := range ph.Plans {
				planned = append(planned, p.FilesModified...)
			}
		}
		sc := confidence.Implementer(ev.build, ev.tests, planned, ev.changed, ev.added)
		sc.Role = role
		return &sc, fmt.Sprintf("%d file(s) changed", len(ev.changed))
	case isTesting(role):
		sc := confidence.Tester(ev.tests, ev.changed)
		sc.Role = role
		return &sc, fmt.Sprintf("a test run of %d passed, %d failed", ev.tests.Passed, ev.tests.Failed)
	case isReviewing(role):
		var fs []confidence.Finding
		for _, f := range x.findingsOf(role, snap) {
			fs = append(fs, confidence.Finding{File: f.File, Line: f.Line})
		}
		sc := confidence.Reviewer(role, fs, x.lineCount)
		return &sc, fmt.Sprintf("%d finding(s)", len(fs))
	}
	return nil, fmt.Sprintf("%d file(s) changed", len(ev.changed))
}

func isTesting(role string) bool {
	return slices.Contains([]string{workflows.RoleTester, workflows.RoleE2ETester, workflows.RoleComponentTester}, role)
}

func isReviewing(role string) bool {
	return slices.Contains([]string{workflows.RoleReviewer, workflows.RoleSecurity, workflows.RoleBrowserValidator}, role)
}

// findingsOf are the findings of a role's jobs.
func (x *Evaluator) findingsOf(role string, snap roleplan.Snapshot) []roleplan.Finding {
	var out []roleplan.Finding
	for _, f := range snap.Findings {
		if x.roleOf(snap, f.Job) == role {
			out = append(out, f)
		}
	}
	return out
}

// workText is a role's work as the evaluators read it: the architect's
// plans; the tests hive ran; a reviewer's findings; and the change.
func (x *Evaluator) workText(ctx context.Context, role string, snap roleplan.Snapshot, ev evidence) string {
	if role == workflows.RoleArchitect {
		var texts []string
		if ph, err := load.Phase(x.Checks.Dir, snap.Spec.PhaseDir); err == nil {
			for _, p := range ph.Plans {
				if data, err := os.ReadFile(filepath.Join(x.Checks.Dir, filepath.FromSlash(p.Path))); err == nil {
					texts = append(texts, "### "+p.Path+"\n\n"+string(data))
				}
			}
		}
		return strings.Join(texts, "\n\n")
	}
	var parts []string
	switch {
	case isTesting(role):
		parts = append(parts, "### The tests hive ran\n\n`"+ev.tests.Command+"`\n\n```\n"+ev.tests.Output+"\n```")
	case isReviewing(role):
		parts = append(parts, "### Its findings\n\n"+roleplan.FindingsText(x.findingsOf(role, snap)))
	}
	wt := x.Repo.At(x.Checks.Dir)
	stat, _ := wt.Git(ctx, "diff", "--stat", snap.Spec.Base, "--")
	patch, _ := wt.Git(ctx, "diff", snap.Spec.Base, "--")
	return strings.Join(append(parts, "### The change on the run's branch\n\n```\n"+stat+"\n"+patch+"\n```"), "\n\n")
}

// exists says whether a path of the run's worktree exists.
func (x *Evaluator) exists(p string) bool {
	_, err := os.Stat(filepath.Join(x.Checks.Dir, filepath.FromSlash(p)))
	return err == nil && filepath.IsLocal(p)
}

// aspectTasks say what each evaluator looks for (seed 003 §3.2).
var aspectTasks = map[string]string{
	roleplan.AspectCompleteness: "Completeness: list every noun and verb of the objective. Which does the %s's work address, and which are missing? Block only when a part of the objective is missing.",
	roleplan.AspectCoherence:    "Coherence: read the %s's work as the next role would. What would it need to ask before starting? Block only when it could not start without an answer.",
	roleplan.AspectRisk:         "Risk: what is the likeliest way the %s's work fails in production? Block only for a failure that is likely and serious.",
}

// judge asks one evaluator for its verdict; an evaluator that gives none
// (it fails, is slow, or answers out of its contract) says why.
func (x *Evaluator) judge(ctx context.Context, c roleplan.Command, objective, aspect, work string) roleplan.Verdict {
	v := roleplan.Verdict{Aspect: aspect}
	_, text, err := roles.Resolve(x.Repo.Root, x.Home, workflows.RoleEvaluator)
	if err != nil {
		v.Error = err.Error()
		return v
	}
	prompt, err := roles.Render(workflows.RoleEvaluator, text, roles.Data{Role: workflows.RoleEvaluator, Objective: objective,
		Context: &roleplan.Context{Task: fmt.Sprintf(aspectTasks[aspect], c.Role)},
		Parts:   []roles.Part{{Title: "The " + c.Role + "'s work", Text: work}}})
	if err != nil {
		v.Error = err.Error()
		return v
	}
	timeout := x.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	r, spent, err := oneshot.Run(ctx, oneshot.Call{Root: x.Repo.Root, Launcher: x.Launcher, Role: workflows.RoleEvaluator,
		Job: fmt.Sprintf("evaluate-%s-%s", c.Job, aspect), Attempt: c.Attempt, Prompt: prompt, Model: x.Model, Timeout: timeout, Prices: x.Prices})
	v.Tokens, v.Spend = spent.InputTokens+spent.OutputTokens, spent
	if err != nil {
		v.Error = err.Error()
		return v
	}
	terms, _ := contract.Bundled(workflows.RoleEvaluator)
	_, errs := contract.Accept(terms, r, "")
	if errs = append(errs, contract.Validate(terms, *r)...); len(errs) > 0 || r.Status != "complete" {
		v.Error = cmp.Or(strings.Join(errs, "; "), "it answered "+r.Status)
		return v
	}
	var a struct {
		Verdict string   `json:"verdict"`
		Notes   []string `json:"notes"`
	}
	raw, _ := json.Marshal(r.Extra)
	_ = json.Unmarshal(raw, &a)
	v.Verdict, v.Notes = a.Verdict, a.Notes
	return v
}

// reportText is a role's report as the evaluators read it.
func reportText(summary string, files, concerns []string) string {
	var b strings.Builder
	b.WriteString(cmp.Or(strings.TrimSpace(summary), "(no summary)"))
	if len(files) > 0 {
		b.WriteString("\n\nFiles: " + strings.Join(files, ", "))
	}
	for _, c := range concerns {
		b.WriteString("\n- concern: " + c)
	}
	return b.String()
}
