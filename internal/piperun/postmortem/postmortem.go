package postmortem

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/oneshot"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Project is the project a run ends in: its repository and journal, and
// the run's worktree.
type Project struct {
	Repo    *gitx.Repo      // the user's repository: its memory, its .hive
	Journal journal.Journal // the project's journal of hive run
	Dir     string          // the run's worktree; "" when there is none
	Now     func() time.Time
	// Note is told what went wrong that the user should know.
	Note func(text string)
}

// Model is the cheap model that tells a finished run in a paragraph
// (piperun.Options.Postmortem): Launcher starts it on Model, at Prices;
// Home is where the user's global prompts are.
type Model struct {
	Launcher agent.Launcher
	Model    string
	Prices   pricing.Table
	Home     string
}

// Path is where run id's postmortem is kept, relative to the
// repository.
func Path(id int64) string {
	return filepath.Join(".hive", "runs", fmt.Sprint(id), "postmortem.md")
}

// Write keeps the run's postmortem in the repository's .hive.
func Write(root string, r runreport.Report) error {
	path := filepath.Join(root, Path(r.Run))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	text := fmt.Sprintf("# Run %d: %s\n\n%s\n", r.Run, r.Objective, r.Postmortem)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Tell asks the postmortem model m for run's paragraph, from the facts
// the template tells, and journals what came of it before the run is
// marked finished; without a model it does nothing.
func (p Project) Tell(ctx context.Context, m Model, run journal.Run) {
	if m.Launcher == nil {
		return
	}
	rep, err := runreport.Build(ctx, p.Journal, p.Repo, run)
	if err != nil {
		return
	}
	facts := runreport.Postmortem(rep)
	var t runjournal.PostmortemRecord
	_, text, err := roles.Resolve(p.Repo.Root, m.Home, workflows.RolePostmortem)
	if err == nil {
		var prompt string
		prompt, err = roles.Render(workflows.RolePostmortem, text, roles.Data{Role: workflows.RolePostmortem, Objective: rep.Objective,
			Parts: []roles.Part{{Title: "What the run's journal says", Text: facts}}})
		if err == nil {
			var r *work.Report
			var spent work.Spend
			r, spent, err = oneshot.Run(ctx, oneshot.Call{Root: p.Repo.Root, Launcher: m.Launcher, Role: workflows.RolePostmortem, Attempt: 1,
				Prompt: prompt, Model: m.Model, Timeout: 2 * time.Minute, Prices: m.Prices})
			t.Tokens = spent.InputTokens + spent.OutputTokens
			if err == nil {
				_ = json.Unmarshal(r.Extra["narrative"], &t.Narrative)
				if t.Narrative = strings.TrimSpace(t.Narrative); t.Narrative == "" {
					err = fmt.Errorf("the answer has no narrative (status %s)", r.Status)
				}
			}
		}
	}
	if err != nil {
		t.Error = err.Error()
		p.Note("the postmortem model: " + t.Error + "; hive's own paragraph tells the run")
	}
	payload, _ := json.Marshal(t)
	if _, err := p.Journal.Append(run.ID, runjournal.PostmortemEvent, p.Now().UTC(), payload); err != nil {
		p.Note("journal the postmortem: " + err.Error())
	}
}
