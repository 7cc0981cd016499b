package oneshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/protocol/hivereport"
	"github.com/hivectl/hive/internal/work"
)

// Call is one agent call outside the run's machine: the planner's
// before the run, the postmortem's after it.
type Call struct {
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

// Run runs the call's agent for one turn in an empty folder, where it
// can change nothing of the user's, and returns the HIVE_REPORT it wrote
// and what it spent.
func Run(ctx context.Context, c Call) (*work.Report, work.Spend, error) {
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
	price := NewMeter(c.Prices)
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
				turn := price.Turn(o)
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
