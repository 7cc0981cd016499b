package sim

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
	faults   planFaults
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

// execute carries out the plan named in prompt. It returns nil after PLAN
// COMPLETE or PLAN FAILED was printed and the turn ended, errExited when the
// process is to exit, errStopped when stdin closed, and any other error for
// the caller to report as PLAN FAILED.
func (a *agent) execute(prompt string) error {
	p, err := a.loadPlan(prompt)
	if err != nil {
		return err
	}
	since := ""
	if m := runStart.FindStringSubmatch(prompt); m != nil {
		since = m[1]
	}
	r := &planRun{p: p, since: since, faults: a.set.forPlan(p.ID), team: strings.Contains(prompt, "<team_protocol>"), started: time.Now()}
	a.pr = r
	if r.faults.has(FaultGarbage) {
		a.out.setGarbage(true)
	}
	if err := a.refresh(); err != nil {
		return err
	}
	mode := "standalone"
	if r.team {
		mode = "team"
	}
	a.out.text(fmt.Sprintf("Executing plan %s (%s): %d tasks, %s mode.", p.ID, p.Name, len(p.Tasks), mode))
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
				a.planFailed(fmt.Sprintf("continuation from task %d: task %d (%s) has no commit", cont.task, t.Number, t.Name))
				return nil
			}
		}
		a.out.text(fmt.Sprintf("Verified the commits of tasks before task %d; resuming with the user's response.", cont.task))
	}
	if failed, err := a.runTasks(cont); failed || err != nil {
		return err
	}
	if a.takeRollover() {
		return a.rollover(nil, false, false)
	}
	if r.faults.has(FaultNoSummary) {
		fmt.Fprintf(a.log, "hive sim: simulated lost completion: exiting without SUMMARY\n")
		a.exit(0)
		return errExited
	}
	return a.complete()
}

// loadPlan finds the plan named in the prompt and parses it.
func (a *agent) loadPlan(prompt string) (*plan.Plan, error) {
	m := planLine.FindStringSubmatch(prompt)
	if m == nil {
		return nil, errors.New("no plan in the prompt: expected a line like \"- Plan: .planning/phases/01-x/01-01-PLAN.md\"")
	}
	rel := m[1]
	if filepath.IsAbs(rel) {
		if r, err := filepath.Rel(a.dir, rel); err == nil {
			rel = filepath.ToSlash(r)
		}
	}
	rel, err := plan.SafeRelPath(rel)
	if err != nil {
		return nil, fmt.Errorf("plan path: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(a.dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	p, diags := plan.ParsePlan(rel, data)
	for _, d := range diags {
		fmt.Fprintf(a.log, "hive sim: %s\n", d)
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
// Either way it returns errRolledOver.
func (a *agent) runTasks(cont *continuation) (failed bool, err error) {
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
		d := a.set.Delay
		if r.faults.at(FaultSlow, n) {
			d = 10 * max(d, slowBase)
		}
		rolled, err := a.work(d)
		if err != nil {
			return false, err
		}
		if rolled {
			// A checkpoint has no work of its own to save before it asks.
			return false, a.rollover(&t, !t.IsCheckpoint(), false)
		}
		if r.faults.at(FaultHang, n) {
			a.hang()
		}
		if r.faults.at(FaultFail, n) {
			a.planFailed("simulated failure")
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
func (a *agent) refresh() error {
	list, err := a.git.planLog(a.pr.p.ID, a.pr.since)
	if err != nil {
		return err
	}
	a.pr.commits = list
	return nil
}

// autoTask does an auto or tdd task: files, commit, progress.
func (a *agent) autoTask(t plan.Task) error {
	r := a.pr
	kind := "feat"
	if t.Type == plan.TaskTDD || t.Attrs["tdd"] == "true" {
		kind = "test"
	}
	subject := fmt.Sprintf("%s(%s): %s", kind, r.p.ID, taskName(t))
	if r.faults.at(FaultLimit, t.Number) {
		fmt.Fprintf(a.log, "hive sim: simulated usage limit in plan %s at task %d, reset in %s\n", r.p.ID, t.Number, a.set.LimitReset)
		a.out.limitReached(time.Now().Add(a.set.LimitReset))
		a.exit(1)
		return errExited
	}
	files, err := a.writeFiles(t, fmt.Sprintf("%s/%d", r.p.ID, t.Number), taskName(t))
	if err != nil {
		return err
	}
	if r.faults.at(FaultCrash, t.Number) {
		fmt.Fprintf(a.log, "hive sim: simulated crash in plan %s at task %d (%s): files written, nothing committed\n", r.p.ID, t.Number, taskName(t))
		a.exit(3)
		return errExited
	}
	return a.commitTask(t.Number, files, subject, fmt.Sprintf("Hive-Task: %s/%d", r.p.ID, t.Number))
}

// commitTask commits files with the plan's trailers and prints the
// PROGRESS line.
func (a *agent) commitTask(n int, files []string, subject string, trailers ...string) error {
	if err := a.commit(files, subject, trailers...); err != nil {
		return err
	}
	a.out.grow(a.set.Context.Task)
	a.progress(n, subject)
	return nil
}

func (a *agent) progress(n int, subject string) {
	a.out.text(fmt.Sprintf("PROGRESS: Task %d/%d complete: %s", n, len(a.pr.p.Tasks), subject))
}

// taskNumberPrefix matches the "Task 2:" many plans start task names with;
// commit subjects and summaries number tasks themselves.
var taskNumberPrefix = regexp.MustCompile(`(?i)^task\s+\d+\s*[:.)\-–—]\s*`)

func taskName(t plan.Task) string {
	if name := oneLine(taskNumberPrefix.ReplaceAllString(strings.TrimSpace(t.Name), ""), 72); name != "" {
		return name
	}
	return fmt.Sprintf("task %d", t.Number)
}

// writeFiles touches every safe path the task names and returns those
// written; unsafe ones are reported and skipped, never written. A task of
// one file whose action holds a whole-file code block gets that code as
// the file: how the sim architect's plan hands it real code to write.
func (a *agent) writeFiles(t plan.Task, ref, note string) ([]string, error) {
	var written []string
	code, hasCode := fencedCode(t.Action)
	for _, p := range t.Files {
		rel, err := checkPath(a.dir, a.realDir, p)
		if err != nil {
			fmt.Fprintf(a.log, "hive sim: skipping %v\n", err)
			a.pr.skipped = append(a.pr.skipped, fmt.Sprintf("%s (%v)", p, err))
			a.out.text(fmt.Sprintf("Skipping %q: %v", p, err))
			continue
		}
		err = a.mutate(func() error {
			if hasCode && len(t.Files) == 1 {
				abs := filepath.Join(a.dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(abs, []byte(code), 0o644); err != nil {
					return err
				}
			} else if _, err := touchFile(a.dir, rel, ref, note); err != nil {
				return err
			}
			return addMustHaves(a.dir, rel, a.pr.p)
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
func (a *agent) commit(files []string, subject string, trailers ...string) error {
	body := strings.Join(append([]string{"Hive-Plan: " + a.pr.p.ID}, trailers...), "\n")
	args := []string{"commit", "--no-verify", "--allow-empty", "--only", "-m", subject, "-m", body}
	if len(files) > 0 {
		args = append(append(args, "--"), files...)
	}
	id := a.out.toolUse("Bash", map[string]any{
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
			if _, err = a.git.run(append([]string{"add", "-f", "--"}, files...)...); err != nil {
				break
			}
		}
		out, err = a.git.run(args...)
		// git commit reads the index before it locks it, so a commit of
		// another agent in the same tree can write back a copy without the
		// files just added: add them again.
		if err == nil || !strings.Contains(err.Error(), "did not match any file(s) known to git") {
			break
		}
	}
	if err != nil {
		a.out.toolResult(id, err.Error(), true)
		return err
	}
	a.out.toolResult(id, "committed "+subject, false)
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
func (a *agent) complete() error {
	r := a.pr
	path := r.p.SummaryPath()
	summarised := false
	for _, c := range r.commits {
		summarised = summarised || c.Summary
	}
	if summarised {
		// A SUMMARY removed or failed since it was committed is written again.
		data, err := os.ReadFile(filepath.Join(a.dir, filepath.FromSlash(path)))
		s, _ := plan.ParseSummary(path, data)
		summarised = err == nil && s != nil && s.SelfCheck == "PASSED"
	}
	if !summarised {
		check := "PASSED"
		if r.faults.has(FaultSelfCheckFail) || r.doneCount() != len(r.p.Tasks) {
			check = "FAILED"
		}
		text, err := a.summary(check)
		if err != nil {
			return err
		}
		rel, err := checkPath(a.dir, a.realDir, path)
		if err != nil {
			return fmt.Errorf("summary path: %w", err)
		}
		err = a.mutate(func() error {
			return os.WriteFile(filepath.Join(a.dir, filepath.FromSlash(rel)), []byte(text), 0o644)
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
	a.eofExit.Store(0)
	a.out.text(fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s\n\n**Commits:**\n%s",
		r.p.ID, r.doneCount(), len(r.p.Tasks), path, strings.Join(lines, "\n")))
	a.out.endTurn()
	return nil
}

// planFailed prints the seed's PLAN FAILED message and ends the turn; the
// session stays open and exits 1 when stdin closes.
func (a *agent) planFailed(msg string) {
	id, done, total := "unknown", 0, 0
	if a.pr != nil {
		id, done, total = a.pr.p.ID, a.pr.doneCount(), len(a.pr.p.Tasks)
	}
	a.out.text(fmt.Sprintf("PLAN FAILED\n\n**Plan:** %s\n**Tasks:** %d/%d\n**Error:** %s", id, done, total, msg))
	a.out.endTurn()
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
