package prompt

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner/check"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
)

//go:embed prompts/executor.md
var executorTemplate string

var executorPrompt = template.Must(template.New("executor").Parse(executorTemplate))

// OverridePath is where a project replaces hive's executor prompt, relative
// to the repository root. The file is a Go text/template with the same
// fields as the embedded one (prompts/executor.md).
const OverridePath = ".hive/agents/executor.md"

// Load returns the project's executor prompt template, or hive's own when
// the project has none.
func Load(root string) (*template.Template, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(OverridePath)))
	if os.IsNotExist(err) {
		return executorPrompt, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", OverridePath, err)
	}
	t, err := template.New("executor").Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid template (fix it, or remove it to use hive's own): %w", OverridePath, err)
	}
	return t, nil
}

// continuationData fills the continuation part of the prompt (seed 002's
// continuation template).
type continuationData struct {
	Reason       string
	Completed    []completedTask
	ResumeTask   int
	ResumeName   string
	Answer       string
	Instructions string
	Fix          string // the post-merge gate's failing output
	Answers      []priorAnswer
	// Rollover: the previous session handed over (its context filled, or
	// the team paused); Next is the task it was on, WIP its work in
	// progress committed so far, Notes what it wrote when it handed over.
	Rollover bool
	Next     string
	WIP      []wipCommit
	Notes    *work.Report
}

// wipCommit is a commit of a task's work in progress (Hive-WIP trailer).
type wipCommit struct {
	Commit, Subject string
	Files           []string
}

// priorAnswer is a checkpoint of the plan the human already answered.
type priorAnswer struct {
	Task   int
	Type   string
	Answer string
}

type completedTask struct {
	Number int
	Name   string
	Commit string
}

// ExecutorPrompt is the first message an executor agent gets: where its plan
// is, which protocol to speak, and the commit and SUMMARY rules (seed 000's
// team prompt, seed 002's subagent prompt). It names files by path and does
// not inline them, so the orchestrator's message stays small. A
// continuation agent also gets the tasks already committed, the task to
// resume and the human's answer.
//
// since is the commit the run's work on the plan starts after: the agent
// counts only later commits as its plan's, since real histories hold
// commits of earlier plans with the same id.
func ExecutorPrompt(t *template.Template, ph *plan.Phase, p *plan.Plan, team bool, since string, cont *continuationData, brief Briefing) (string, error) {
	short := since[:min(12, len(since))]
	var b strings.Builder
	err := t.Execute(&b, map[string]any{
		"Continuation": cont,
		"ID":           p.ID,
		"Name":         p.Name,
		"Path":         p.Path,
		"PlanNumber":   p.PlanNumber,
		"PhaseNumber":  ph.Number,
		"PhaseSlug":    ph.Slug,
		"Tasks":        len(p.Tasks),
		"Summary":      p.SummaryPath(),
		"Team":         team,
		"Since":        short,
		"Warnings":     brief.Warnings,
		"Curated":      brief.Context,
	})
	if err != nil {
		return "", fmt.Errorf("executor prompt template: %w", err)
	}
	return b.String(), nil
}

// Builder builds the first message of each kind of agent: a plan's
// executor (or its continuation), a conflict's resolver, the phase's
// verifier. What hive says to live agents later is Message's.
type Builder struct {
	Template *template.Template // the executor prompt (Load)
	Team     bool               // agents run as live team members
	Repo     *gitx.Repo         // the repository the run works on
	Phase    *plan.Phase
	Plans    map[string]*plan.Plan // the phase's plans by id
	Work     Workspace             // where plans work, their scope and commits
	Brief    func(*plan.Plan) Briefing
}

// Workspace is where the plans of a run work, as their prompts tell it:
// the run's workspace.
type Workspace interface {
	// Since is the commit plan id's work in this run starts after: only
	// later commits are the plan's.
	Since(id string) string
	// PlanCommits are plan id's commits of this run, newest first.
	PlanCommits(ctx context.Context, id string) ([]gitx.Commit, error)
	// PlanRepo is the working tree plan id's agent works in.
	PlanRepo(id string) *gitx.Repo
	// Branches are the integration branch and plan id's branch in
	// worktree mode; "" in the shared tree.
	Branches(id string) (integration, branch string)
}

// Briefing is what an executor is told besides its plan: what went wrong
// in earlier runs, and the context hive curated for it (the content of the
// files it will change, a test to follow).
type Briefing struct {
	Warnings []string
	Context  string
}

func (pr *Builder) briefing(p *plan.Plan) Briefing {
	if pr.Brief == nil {
		return Briefing{}
	}
	return pr.Brief(p)
}

// Executor builds the prompt of the executor about to start on p.
func (pr *Builder) Executor(ctx context.Context, p *plan.Plan, c *phase.Continuation) (string, error) {
	since := pr.Work.Since(p.ID)
	if c == nil {
		return ExecutorPrompt(pr.Template, pr.Phase, p, pr.Team, since, nil, pr.briefing(p))
	}
	cd := &continuationData{Reason: c.Reason, Completed: pr.completedTasks(ctx, p), Fix: c.Fix, Rollover: c.Rollover, Notes: c.Notes}
	if c.Rollover || c.Notes != nil {
		cd.Next, cd.WIP = pr.inProgress(ctx, p, cd.Completed)
	}
	for _, a := range c.Answered {
		cd.Answers = append(cd.Answers, priorAnswer{Task: a.Task, Type: a.Type, Answer: words.OneLine(a.Answer)})
	}
	if cp := c.Checkpoint; cp != nil {
		cd.ResumeTask, cd.Answer = cp.Task, cp.Answer
		if cp.Task >= 1 && cp.Task <= len(p.Tasks) {
			cd.ResumeName = p.Tasks[cp.Task-1].Name
		}
		cd.Instructions = resumeInstructions(cp)
	}
	return ExecutorPrompt(pr.Template, pr.Phase, p, pr.Team, since, cd, pr.briefing(p))
}

// completedTasks reads the plan's task commits of this run from git: the
// disk, not the agent's word, says what is done. Several commits of one
// task (a TDD task's RED, GREEN and REFACTOR) are one completed task, shown
// with its latest commit.
func (pr *Builder) completedTasks(ctx context.Context, p *plan.Plan) []completedTask {
	commits, err := pr.Work.PlanCommits(ctx, p.ID)
	if err != nil {
		return nil
	}
	byTask := map[int]completedTask{}
	for _, c := range commits {
		for _, n := range c.TaskNumbers(p.ID) {
			if _, seen := byTask[n]; !seen { // newest first: keep the latest commit of a task
				name := c.Subject
				if n <= len(p.Tasks) {
					name = p.Tasks[n-1].Name
				}
				byTask[n] = completedTask{Number: n, Name: name, Commit: c.Hash[:min(7, len(c.Hash))]}
			}
		}
	}
	out := make([]completedTask, 0, len(byTask))
	for n := 1; n <= len(p.Tasks)+len(byTask); n++ {
		if t, ok := byTask[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// inProgress is the task a handed-over session was on (the first without
// its commit) and the commits of its work in progress, newest first.
func (pr *Builder) inProgress(ctx context.Context, p *plan.Plan, done []completedTask) (string, []wipCommit) {
	finished := map[int]bool{}
	for _, t := range done {
		finished[t.Number] = true
	}
	next := ""
	for _, t := range p.Tasks {
		if !finished[t.Number] {
			next = fmt.Sprintf("Task %d: %s", t.Number, t.Name)
			break
		}
	}
	repo := pr.Work.PlanRepo(p.ID)
	commits, err := pr.Work.PlanCommits(ctx, p.ID)
	if err != nil {
		return next, nil
	}
	var wip []wipCommit
	for _, c := range commits {
		if !strings.Contains(c.Body, "Hive-WIP: "+p.ID+"/") {
			continue
		}
		w := wipCommit{Commit: c.Hash[:min(7, len(c.Hash))], Subject: c.Subject}
		if out, err := repo.Git(ctx, "show", "--name-only", "--format=", c.Hash); err == nil {
			w.Files = strings.Fields(out)
		}
		wip = append(wip, w)
	}
	return next, wip
}

// resumeInstructions says what the answer means for the checkpoint's type
// (seed 000 §3.1's table).
func resumeInstructions(cp *phase.Checkpoint) string {
	a := strings.TrimSpace(cp.Answer)
	switch {
	case cp.Kind == phase.KindDeviation:
		return "The architectural decision is: " + a + ". Proceed accordingly."
	case cp.Type == "human-verify" && strings.EqualFold(a, "approved"):
		return "User approved. Commit the checkpoint task and continue to the next task."
	case cp.Type == "human-verify":
		return "The user found issues: " + a + ". Address them, verify again, and raise the same checkpoint again."
	case cp.Type == "decision":
		return "User selected " + a + ". Implement accordingly, then continue."
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return "User completed the action (" + a + "). Run the task's verification; continue if it passes, otherwise raise the checkpoint again."
	}
	return "The user answered: " + a + ". Continue accordingly."
}

//go:embed prompts/verifier.md
var verifierTemplate string

var verifierPrompt = template.Must(template.New("verifier").Parse(verifierTemplate))

// Verifier is the verifier agent's prompt.
func (pr *Builder) Verifier() (string, error) {
	var plans []string
	for _, p := range pr.Phase.Plans {
		plans = append(plans, p.Path)
	}
	var b strings.Builder
	err := verifierPrompt.Execute(&b, map[string]any{"PhaseNumber": pr.Phase.Number, "PhaseSlug": pr.Phase.Slug,
		"Report": check.VerificationPath(pr.Phase), "Plans": plans})
	return b.String(), err
}

//go:embed prompts/comb.md
var combTemplate string

var combPrompt = template.Must(template.New("comb").Parse(combTemplate))

type otherPlan struct{ ID, Path, Objective string }

// Comb is the resolver's prompt: the conflict, both plans and their
// objectives.
func (pr *Builder) Comb(ctx context.Context, p *plan.Plan, c *phase.Continuation) (string, error) {
	var files []string
	if c != nil {
		files = c.Conflict
	}
	integration, branch := pr.Work.Branches(p.ID)
	var others []otherPlan
	if integration != "" && len(files) > 0 {
		args := append([]string{"log", "--format=%B", integration, "--"}, files...)
		out, _ := pr.Repo.Git(ctx, args...)
		seen := map[string]bool{p.ID: true}
		for _, line := range strings.Split(out, "\n") {
			id, ok := strings.CutPrefix(strings.TrimSpace(line), "Hive-Plan: ")
			if !ok || seen[id] || pr.Plans[id] == nil {
				continue
			}
			seen[id] = true
			o := pr.Plans[id]
			others = append(others, otherPlan{ID: id, Path: o.Path, Objective: objective(o)})
		}
	}
	var b strings.Builder
	err := combPrompt.Execute(&b, map[string]any{
		"ID": p.ID, "Name": p.Name, "Path": p.Path, "Objective": objective(p),
		"PhaseNumber": pr.Phase.Number, "PhaseSlug": pr.Phase.Slug,
		"Integration": integration, "Branch": branch,
		"Files": files, "Others": others,
	})
	return b.String(), err
}

// objective is a plan's objective in one line.
func objective(p *plan.Plan) string {
	text := strings.Join(strings.Fields(p.Objective), " ")
	if text == "" {
		text = p.Name
	}
	return clip(text, 300)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
