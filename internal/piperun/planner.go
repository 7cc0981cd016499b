package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/protocol/hivereport"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/work"
)

// PlannedEvent is the journal type of how the run's workflow was chosen
// (the machine never steps it).
const PlannedEvent = "run-planned"

// PlanOptions are what Plan needs: the planner's agent (a cheap model,
// Model its rung) and the objective.
type PlanOptions struct {
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

// Planning is how a run's workflow was chosen, as journaled.
type Planning struct {
	By        string          `json:"by"` // "planner", or "rules" when the planner's answers would not do
	Workflow  string          `json:"workflow"`
	Reasoning string          `json:"reasoning"`
	Attempts  []PlanAttempt   `json:"attempts"`
	Steps     []pipeline.Step `json:"steps"`
}

// PlanAttempt is one call of the planner.
type PlanAttempt struct {
	Error  string `json:"error,omitempty"`
	Tokens int64  `json:"tokens"`
}

// Plan asks the planner which roles the objective needs (seed 003 §3.1):
// one call, validated; an answer that will not do gets one retry with what
// is wrong; then the rules of pipeline.Pick decide, and say so.
func Plan(ctx context.Context, po PlanOptions) (pipeline.Workflow, Planning) {
	if po.Timeout == 0 {
		po.Timeout = 2 * time.Minute
	}
	var p Planning
	var errs []string
	for attempt := 1; attempt <= 2; attempt++ {
		a, tokens, err := askPlanner(ctx, po, attempt, errs)
		var w pipeline.Workflow
		if err == nil {
			w, err = pipeline.Planned(a)
		}
		pa := PlanAttempt{Tokens: tokens}
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
	w, why := pipeline.Pick(po.Objective)
	p.By, p.Workflow, p.Steps = "rules", w.Name, w.Steps
	p.Reasoning = why + "; the planner's answers would not do (" + p.Attempts[len(p.Attempts)-1].Error + ")"
	return w, p
}

// askPlanner runs one planner session and reads its answer.
func askPlanner(ctx context.Context, po PlanOptions, attempt int, errs []string) (pipeline.PlannerAnswer, int64, error) {
	var a pipeline.PlannerAnswer
	_, text, err := roles.Resolve(po.Repo.Root, po.Home, pipeline.RolePlanner)
	if err != nil {
		return a, 0, err
	}
	d := roles.Data{Role: pipeline.RolePlanner, Objective: po.Objective, Context: &pipeline.Context{ContractErrors: errs}}
	if ix, err := index.Build(po.Repo.Root); err == nil {
		d.Parts = append(d.Parts, roles.Part{Title: "The codebase (hive's index)", Text: index.Render(ix)})
	}
	prompt, err := roles.Render(pipeline.RolePlanner, text, d)
	if err != nil {
		return a, 0, err
	}
	report, spent, err := oneShot(ctx, oneShotCall{Root: po.Repo.Root, Launcher: po.Launcher, Role: pipeline.RolePlanner, Attempt: attempt,
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

// oneShotCall is one agent call outside the run's machine: the planner's
// before the run, the postmortem's after it.
type oneShotCall struct {
	Root     string // the repository: its .hive/logs keeps the session's log
	Launcher agent.Launcher
	Role     string
	// Job names the session (its log, the sim's faults); "" for Role.
	Job      string
	Attempt  int
	Prompt   string
	Model    string
	Timeout  time.Duration
	AllowEnv []string
	Prices   pricing.Table // nil: the built-in table
}

// oneShot runs the call's agent for one turn in an empty folder, where it
// can change nothing of the user's, and returns the HIVE_REPORT it wrote
// and what it spent.
func oneShot(ctx context.Context, c oneShotCall) (*work.Report, work.Spend, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	if c.Job == "" {
		c.Job = c.Role
	}
	dir, err := os.MkdirTemp("", "hive-"+c.Role+"-")
	if err != nil {
		return nil, work.Spend{}, err
	}
	defer os.RemoveAll(dir)
	var mu sync.Mutex
	var out strings.Builder
	var spent work.Spend
	price := newMeter(c.Prices)
	ended := make(chan struct{}, 1)
	sess, err := c.Launcher.Start(ctx, agent.Spec{Plan: c.Job, Attempt: c.Attempt, Dir: dir, Prompt: c.Prompt, Model: c.Model,
		Env:     []string{"HIVE_AGENT_ROLE=" + c.Role},
		LogPath: filepath.Join(c.Root, ".hive", "logs", fmt.Sprintf("%s.attempt-%d.log", c.Job, c.Attempt)), AllowEnv: c.AllowEnv},
		func(o agent.Output) {
			mu.Lock()
			defer mu.Unlock()
			switch o.Kind {
			case agent.OutText:
				out.WriteString(o.Text + "\n")
			case agent.OutSpend, agent.OutResult:
				turn := price.turn(o)
				spent = spent.Plus(work.Spend{InputTokens: turn.InputTokens, OutputTokens: turn.OutputTokens,
					CacheReadTokens: turn.CacheReadTokens, CacheWriteTokens: turn.CacheWriteTokens})
				spent.CostUSD = turn.CostUSD
				if o.Kind == agent.OutResult {
					select {
					case ended <- struct{}{}:
					default:
					}
				}
			}
		})
	if err != nil {
		return nil, spent, err
	}
	select {
	case <-ended: // one turn is the whole answer
		sess.Stop(5 * time.Second)
	case <-sess.Done():
	case <-ctx.Done():
		sess.Kill()
		<-sess.Done()
		return nil, spent, fmt.Errorf("no answer within %s", c.Timeout)
	}
	<-sess.Done()
	mu.Lock()
	defer mu.Unlock()
	var report *hivereport.Report
	for _, m := range protocol.Parse(out.String()) {
		if m.Kind == protocol.HiveReport {
			report = m.Report
		}
	}
	switch {
	case report == nil:
		return nil, spent, errors.New("no HIVE_REPORT in the answer")
	case report.Err != "":
		return nil, spent, errors.New("the report: " + report.Err)
	}
	return &report.Report, spent, nil
}
