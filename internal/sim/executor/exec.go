package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/plan/planpath"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/repo"
	"github.com/hivectl/hive/internal/sim/session"
)

// planLine finds the plan in the executor prompt: "- Plan: .planning/…-PLAN.md"
// (team prompt) or "Plan: @.planning/…-PLAN.md" (standalone and continuation
// prompts).
var planLine = regexp.MustCompile(`Plan:\s*@?(\S+PLAN\.md)`)

// runStart finds the commit the run's work starts after, which the
// executor prompt names: only later commits are this plan's (an earlier
// milestone may have used the same plan id).
var runStart = regexp.MustCompile(`This run started at commit ([0-9a-f]{7,64})\.`)

var (
	resumeFrom   = regexp.MustCompile(`(?s)<resume_from>\s*Task\s+(\d+)`)
	userResponse = regexp.MustCompile(`(?s)<user_response>(.*?)</user_response>`)
)

// previousAnswers finds the "- Task N (type): answer" lines of a
// continuation prompt's <previous_answers>.
var (
	previousAnswers = regexp.MustCompile(`(?s)<previous_answers>(.*?)</previous_answers>`)
	previousAnswer  = regexp.MustCompile(`(?m)^- Task (\d+) \([^)]*\): (.*)$`)
)

// continuation is what a continuation prompt asks: apply response to task,
// and the answers already given to the plan's other checkpoints (by task).
type continuation struct {
	task     int
	response string
	answered map[int]string
}

func parseContinuation(prompt string) *continuation {
	c := &continuation{answered: map[int]string{}}
	if block := previousAnswers.FindStringSubmatch(prompt); block != nil {
		for _, m := range previousAnswer.FindAllStringSubmatch(block[1], -1) {
			n, _ := strconv.Atoi(m[1])
			c.answered[n] = strings.TrimSpace(m[2])
		}
	}
	m := resumeFrom.FindStringSubmatch(prompt)
	if m == nil {
		if len(c.answered) == 0 {
			return nil
		}
		return c
	}
	c.task, _ = strconv.Atoi(m[1])
	if r := userResponse.FindStringSubmatch(prompt); r != nil {
		c.response = strings.TrimSpace(r[1])
	}
	return c
}

// planRun is the state of the plan being carried out.
type planRun struct {
	p        *plan.Plan
	since    string // the run's start: commits reachable from it are not this plan's
	faults   faults.Active
	team     bool
	started  time.Time
	commits  []planCommit // this plan's commits reachable from HEAD, oldest first
	skipped  []string     // unsafe paths, reported in the SUMMARY
	complete bool
	// rolledOver: the agent handed the plan over at hive's rollover
	// request and does no more of it.
	rolledOver bool
}

func (r *planRun) taskCommit(n int) (planCommit, bool) {
	for _, c := range r.commits {
		if c.Task == n {
			return c, true
		}
	}
	return planCommit{}, false
}

func (r *planRun) doneCount() int {
	n := 0
	for _, t := range r.p.Tasks {
		if _, ok := r.taskCommit(t.Number); ok {
			n++
		}
	}
	return n
}

func (r *planRun) fixCount(n int) int {
	k := 0
	for _, c := range r.commits {
		if c.Fix == n {
			k++
		}
	}
	return k
}

// Execute carries out the plan named in prompt. It returns nil after PLAN
// COMPLETE or PLAN FAILED was printed and the turn ended, ErrRolledOver
// after the plan was handed over, session.ErrExited when the process is to
// exit, repo.ErrStopped when stdin closed, and any other error for the
// caller to report as PLAN FAILED.
func (a *Agent) Execute(prompt string) error {
	p, err := a.loadPlan(prompt)
	if err != nil {
		return err
	}
	since := ""
	if m := runStart.FindStringSubmatch(prompt); m != nil {
		since = m[1]
	}
	r := &planRun{p: p, since: since, faults: a.Set.ForPlan(p.ID), team: strings.Contains(prompt, "<team_protocol>"), started: time.Now()}
	a.pr = r
	if r.faults.Has(faults.FaultGarbage) {
		a.Out.SetGarbage(true)
	}
	if err := a.refresh(); err != nil {
		return err
	}
	mode := "standalone"
	if r.team {
		mode = "team"
	}
	a.Out.Text(fmt.Sprintf("Executing plan %s (%s): %d tasks, %s mode.", p.ID, p.Name, len(p.Tasks), mode))
	if a.challengesPlan(p.ID) {
		return nil
	}

	cont := parseContinuation(prompt)
	if cont != nil && cont.task > 0 {
		for _, t := range p.Tasks {
			if t.Number >= cont.task {
				break
			}
			if _, ok := r.taskCommit(t.Number); !ok {
				a.PlanFailed(fmt.Sprintf("continuation from task %d: task %d (%s) has no commit", cont.task, t.Number, t.Name))
				return nil
			}
		}
		a.Out.Text(fmt.Sprintf("Verified the commits of tasks before task %d; resuming with the user's response.", cont.task))
	}
	if failed, err := a.runTasks(cont); failed || err != nil {
		return err
	}
	if a.takeRollover() {
		return a.rollover(nil, false, false)
	}
	if r.faults.Has(faults.FaultNoSummary) {
		fmt.Fprintf(a.Log, "hive sim: simulated lost completion: exiting without SUMMARY\n")
		a.Exit(0)
		return session.ErrExited
	}
	return a.complete()
}

// loadPlan finds the plan named in the prompt and parses it.
func (a *Agent) loadPlan(prompt string) (*plan.Plan, error) {
	m := planLine.FindStringSubmatch(prompt)
	if m == nil {
		return nil, errors.New("no plan in the prompt: expected a line like \"- Plan: .planning/phases/01-x/01-01-PLAN.md\"")
	}
	rel := m[1]
	if filepath.IsAbs(rel) {
		if r, err := filepath.Rel(a.Dir, rel); err == nil {
			rel = filepath.ToSlash(r)
		}
	}
	rel, err := planpath.SafeRelPath(rel)
	if err != nil {
		return nil, fmt.Errorf("plan path: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(a.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	p, diags := parse.Plan(rel, data)
	for _, d := range diags {
		fmt.Fprintf(a.Log, "hive sim: %s\n", d)
	}
	if p == nil || plan.HasErrors(diags) {
		return nil, fmt.Errorf("plan %s does not parse; see the diagnostics on stderr", rel)
	}
	return p, nil
}

// runTasks does the tasks in order, skipping those already committed. It
// reports failed when it printed PLAN FAILED. A rollover request that came
// before a task stops the plan before it; one that comes while the agent
// works on a task (its delay) stops the plan with the task in progress.
// Either way it returns ErrRolledOver.
func (a *Agent) runTasks(cont *continuation) (failed bool, err error) {
	r := a.pr
	// The tasks already committed are said in one PROGRESS line (the
	// latest), as an agent that read its completed tasks says where it
	// stands; a line each would be a model request each.
	done, subject := 0, ""
	sayDone := func() {
		if done > 0 {
			a.progress(done, subject)
			done = 0
		}
	}
	defer sayDone()
	for _, t := range r.p.Tasks {
		n := t.Number
		if c, ok := r.taskCommit(n); ok {
			done, subject = n, c.Subject
			continue
		}
		sayDone()
		if a.takeRollover() {
			return false, a.rollover(&t, false, false)
		}
		d := a.Set.Delay
		if r.faults.At(faults.FaultSlow, n) {
			d = 10 * max(d, faults.SlowBase)
		}
		rolled, err := a.work(d)
		if err != nil {
			return false, err
		}
		if rolled {
			// A checkpoint has no work of its own to save before it asks.
			return false, a.rollover(&t, !t.IsCheckpoint(), false)
		}
		if r.faults.At(faults.FaultHang, n) {
			a.Hang()
		}
		if r.faults.At(faults.FaultFail, n) {
			a.PlanFailed("simulated failure")
			return true, nil
		}
		if t.IsCheckpoint() {
			var resp *string
			switch {
			case cont != nil && cont.task == n:
				resp = &cont.response
			case cont != nil && cont.answered[n] != "":
				// Answered before this agent started: never ask again.
				answer := cont.answered[n]
				resp = &answer
			}
			err = a.checkpoint(t, resp)
		} else {
			err = a.autoTask(t)
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// refresh rereads this plan's commits from git; other agents may be
// committing to the same branch meanwhile.
func (a *Agent) refresh() error {
	list, err := planLog(a.Git, a.pr.p.ID, a.pr.since)
	if err != nil {
		return err
	}
	a.pr.commits = list
	return nil
}

// autoTask does an auto or tdd task: files, commit, progress.
func (a *Agent) autoTask(t plan.Task) error {
	r := a.pr
	kind := "feat"
	if t.Type == plan.TaskTDD || t.Attrs["tdd"] == "true" {
		kind = "test"
	}
	subject := fmt.Sprintf("%s(%s): %s", kind, r.p.ID, taskName(t))
	if r.faults.At(faults.FaultLimit, t.Number) {
		fmt.Fprintf(a.Log, "hive sim: simulated usage limit in plan %s at task %d, reset in %s\n", r.p.ID, t.Number, a.Set.LimitReset)
		a.Out.LimitReached(time.Now().Add(a.Set.LimitReset))
		a.Exit(1)
		return session.ErrExited
	}
	files, err := a.writeFiles(t, fmt.Sprintf("%s/%d", r.p.ID, t.Number), taskName(t))
	if err != nil {
		return err
	}
	if r.faults.At(faults.FaultCrash, t.Number) {
		fmt.Fprintf(a.Log, "hive sim: simulated crash in plan %s at task %d (%s): files written, nothing committed\n", r.p.ID, t.Number, taskName(t))
		a.Exit(3)
		return session.ErrExited
	}
	return a.commitTask(t.Number, files, subject, fmt.Sprintf("Hive-Task: %s/%d", r.p.ID, t.Number))
}

// commitTask commits files with the plan's trailers and prints the
// PROGRESS line.
func (a *Agent) commitTask(n int, files []string, subject string, trailers ...string) error {
	if err := a.commit(files, subject, trailers...); err != nil {
		return err
	}
	a.Out.Grow(a.Set.Context.Task)
	a.progress(n, subject)
	return nil
}

func (a *Agent) progress(n int, subject string) {
	a.Out.Text(fmt.Sprintf("PROGRESS: Task %d/%d complete: %s", n, len(a.pr.p.Tasks), subject))
}

// taskNumberPrefix matches the "Task 2:" many plans start task names with;
// commit subjects and summaries number tasks themselves.
var taskNumberPrefix = regexp.MustCompile(`(?i)^task\s+\d+\s*[:.)\-–—]\s*`)

func taskName(t plan.Task) string {
	if name := repo.OneLine(taskNumberPrefix.ReplaceAllString(strings.TrimSpace(t.Name), ""), 72); name != "" {
		return name
	}
	return fmt.Sprintf("task %d", t.Number)
}

// writeFiles touches every safe path the task names and returns those
// written; unsafe ones are reported and skipped, never written. A task of
// one file whose action holds a whole-file code block gets that code as
// the file: how the sim architect's plan hands it real code to write.
func (a *Agent) writeFiles(t plan.Task, ref, note string) ([]string, error) {
	var written []string
	code, hasCode := fencedCode(t.Action)
	for _, p := range t.Files {
		rel, err := repo.CheckPath(a.Dir, a.RealDir, p)
		if err != nil {
			fmt.Fprintf(a.Log, "hive sim: skipping %v\n", err)
			a.pr.skipped = append(a.pr.skipped, fmt.Sprintf("%s (%v)", p, err))
			a.Out.Text(fmt.Sprintf("Skipping %q: %v", p, err))
			continue
		}
		err = a.Mutate(func() error {
			if hasCode && len(t.Files) == 1 {
				abs := filepath.Join(a.Dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(abs, []byte(code), 0o644); err != nil {
					return err
				}
			} else if _, err := repo.TouchFile(a.Dir, rel, ref, note); err != nil {
				return err
			}
			return repo.AddMustHaves(a.Dir, rel, a.pr.p)
		})
		if err != nil {
			return nil, err
		}
		written = append(written, rel)
	}
	return written, nil
}

// commit stages files and commits exactly them (or nothing: --only with
// --allow-empty leaves what other agents staged alone), and adds the commit
// to the plan's. The trailers form the message's last paragraph so that git
// interpret-trailers sees them.
func (a *Agent) commit(files []string, subject string, trailers ...string) error {
	body := strings.Join(append([]string{"Hive-Plan: " + a.pr.p.ID}, trailers...), "\n")
	args := []string{"commit", "--no-verify", "--allow-empty", "--only", "-m", subject, "-m", body}
	if len(files) > 0 {
		args = append(append(args, "--"), files...)
	}
	id := a.Out.ToolUse("Bash", map[string]any{
		"command":     "git commit -m " + strconv.Quote(subject) + " -- " + strings.Join(files, " "),
		"description": "Commit: " + subject,
	})
	var out string
	var err error
	for try := 0; try < 5; try++ {
		if len(files) > 0 {
			// -f: a path the plan names is committed even inside a folder
			// .gitignore ignores (a tracked generated file, say); the sim
			// never adds anything the plan does not name.
			if _, err = a.Git.Run(append([]string{"add", "-f", "--"}, files...)...); err != nil {
				break
			}
		}
		out, err = a.Git.Run(args...)
		// git commit reads the index before it locks it, so a commit of
		// another agent in the same tree can write back a copy without the
		// files just added: add them again.
		if err == nil || !strings.Contains(err.Error(), "did not match any file(s) known to git") {
			break
		}
	}
	if err != nil {
		a.Out.ToolResult(id, err.Error(), true)
		return err
	}
	a.Out.ToolResult(id, "committed "+subject, false)
	// The commit is known from what git printed: reading the plan's log
	// again would cost a process, and only this agent commits this plan.
	short, ok := committedShort(out)
	if !ok {
		return a.refresh()
	}
	c := planCommit{Hash: short, Short: short, Subject: subject}
	c.readTrailers(a.pr.p.ID, body)
	a.pr.commits = append(a.pr.commits, c)
	return nil
}

// complete writes and commits the SUMMARY (unless an earlier run did and
// the file is still there and passing) and prints PLAN COMPLETE.
func (a *Agent) complete() error {
	r := a.pr
	path := r.p.SummaryPath()
	summarised := false
	for _, c := range r.commits {
		summarised = summarised || c.Summary
	}
	if summarised {
		// A SUMMARY removed or failed since it was committed is written again.
		data, err := os.ReadFile(filepath.Join(a.Dir, filepath.FromSlash(path)))
		s, _ := parse.Summary(path, data)
		summarised = err == nil && s != nil && s.SelfCheck == "PASSED"
	}
	if !summarised {
		check := "PASSED"
		if r.faults.Has(faults.FaultSelfCheckFail) || r.doneCount() != len(r.p.Tasks) {
			check = "FAILED"
		}
		text, err := a.summary(check)
		if err != nil {
			return err
		}
		rel, err := repo.CheckPath(a.Dir, a.RealDir, path)
		if err != nil {
			return fmt.Errorf("summary path: %w", err)
		}
		err = a.Mutate(func() error {
			return os.WriteFile(filepath.Join(a.Dir, filepath.FromSlash(rel)), []byte(text), 0o644)
		})
		if err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
		if err := a.commit([]string{rel}, fmt.Sprintf("docs(%s): complete plan", r.p.ID), "Hive-Summary: "+r.p.ID); err != nil {
			return err
		}
	}
	var lines []string
	for _, c := range r.commits {
		lines = append(lines, fmt.Sprintf("- %s %s", c.Short, c.Subject))
	}
	r.complete = true
	a.SetEOFExit(0)
	a.Out.Text(fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s\n\n**Commits:**\n%s",
		r.p.ID, r.doneCount(), len(r.p.Tasks), path, strings.Join(lines, "\n")))
	a.Out.EndTurn()
	return nil
}

// PlanFailed prints the seed's PLAN FAILED message and ends the turn; the
// session stays open and exits 1 when stdin closes.
func (a *Agent) PlanFailed(msg string) {
	id, done, total := "unknown", 0, 0
	if a.pr != nil {
		id, done, total = a.pr.p.ID, a.pr.doneCount(), len(a.pr.p.Tasks)
	}
	a.Out.Text(fmt.Sprintf("PLAN FAILED\n\n**Plan:** %s\n**Tasks:** %d/%d\n**Error:** %s", id, done, total, msg))
	a.Out.EndTurn()
}

// fence is a code block the sim writes as the whole file: its info string
// says so (```go whole-file). The code in a GSD plan's action is guidance
// for an agent, not a file, so an ordinary block is left alone.
var fence = regexp.MustCompile("(?s)```[A-Za-z0-9]* +whole-file\n(.*?)```")

// fencedCode is the whole-file code block of an action.
func fencedCode(action string) (string, bool) {
	m := fence.FindStringSubmatch(action)
	if m == nil {
		return "", false
	}
	return m[1], true
}
