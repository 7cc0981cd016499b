package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/piperun/oneshot"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/workflows"
)

// Options are what Plan needs: the planner's agent (a cheap model,
// Model its rung) and the objective.
type Options struct {
	Repo      *gitx.Repo
	Launcher  agent.Launcher
	Model     string
	Home      string
	Objective string
	// Timeout bounds each call (default 2 minutes): a slow planner is no
	// reason to wait.
	Timeout time.Duration
	// AllowEnv names the secrets the agent may see (secrets.env).
	AllowEnv []string
}

// Plan asks the planner which roles the objective needs (seed 003 §3.1):
// one call, validated; an answer that will not do gets one retry with what
// is wrong; then the rules of workflows.Pick decide, and say so.
func Plan(ctx context.Context, po Options) (workflows.Workflow, runjournal.Planning) {
	if po.Timeout == 0 {
		po.Timeout = 2 * time.Minute
	}
	var p runjournal.Planning
	var errs []string
	for attempt := 1; attempt <= 2; attempt++ {
		a, tokens, err := askPlanner(ctx, po, attempt, errs)
		var w workflows.Workflow
		if err == nil {
			w, err = workflows.Planned(a)
		}
		pa := runjournal.PlanAttempt{Tokens: tokens}
		if err == nil {
			p.Attempts = append(p.Attempts, pa)
			p.By, p.Reasoning, p.Workflow, p.Steps = "planner", a.Reasoning, w.String(), w.Steps
			return w, p
		}
		pa.Error = err.Error()
		p.Attempts = append(p.Attempts, pa)
		errs = []string{err.Error()}
		if ctx.Err() != nil {
			break
		}
	}
	w, why := workflows.Pick(po.Objective)
	p.By, p.Workflow, p.Steps = "rules", w.Name, w.Steps
	p.Reasoning = why + "; the planner's answers would not do (" + p.Attempts[len(p.Attempts)-1].Error + ")"
	return w, p
}

// askPlanner runs one planner session and reads its answer.
func askPlanner(ctx context.Context, po Options, attempt int, errs []string) (workflows.PlannerAnswer, int64, error) {
	var a workflows.PlannerAnswer
	_, text, err := roles.Resolve(po.Repo.Root, po.Home, workflows.RolePlanner)
	if err != nil {
		return a, 0, err
	}
	d := roles.Data{Role: workflows.RolePlanner, Objective: po.Objective, Context: &roleplan.Context{ContractErrors: errs}}
	if ix, err := index.Build(po.Repo.Root); err == nil {
		d.Parts = append(d.Parts, roles.Part{Title: "The codebase (hive's index)", Text: index.Render(ix)})
	}
	prompt, err := roles.Render(workflows.RolePlanner, text, d)
	if err != nil {
		return a, 0, err
	}
	report, spent, err := oneshot.Run(ctx, oneshot.Call{Root: po.Repo.Root, Launcher: po.Launcher, Role: workflows.RolePlanner, Attempt: attempt,
		Prompt: prompt, Model: po.Model, Timeout: po.Timeout, AllowEnv: po.AllowEnv})
	tokens := spent.InputTokens + spent.OutputTokens
	if err != nil {
		return a, tokens, err
	}
	r := report
	if r.Status != "complete" {
		why := r.Blocker
		if why == "" {
			why = r.Summary
		}
		return a, tokens, fmt.Errorf("the planner answered %s: %s", r.Status, why)
	}
	raw, _ := json.Marshal(r.Extra)
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, tokens, fmt.Errorf("the answer's fields: %v", err)
	}
	return a, tokens, nil
}
