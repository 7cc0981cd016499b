package executor

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/sim/repo"
	"github.com/hivectl/hive/internal/sim/session"
)

// checkpoint stops at checkpoint task t until it is resolved. resp is the
// answer a continuation prompt brought along (nil: ask). In team mode the
// agent sends the CHECKPOINT message, ends the turn and waits in the same
// process for "CHECKPOINT_RESPONSE: …"; in standalone mode it returns the
// CHECKPOINT REACHED block and exits 0, to be followed by a continuation
// agent.
func (a *Agent) checkpoint(t plan.Task, resp *string) error {
	r := a.pr
	for {
		if resp == nil {
			if !r.team {
				a.Out.Text(a.checkpointReached(t))
				a.SetEOFExit(0)
				a.Out.EndTurn()
				a.Exit(0)
				return session.ErrExited
			}
			a.Out.Text(a.checkpointMessage(t))
			a.Out.EndTurn()
			answer, err := a.awaitResponse(t)
			if err != nil {
				return err
			}
			resp = &answer
		}
		resolved, err := a.resolve(t, *resp)
		if err != nil || resolved {
			return err
		}
		resp = nil // not resolved: raise the same checkpoint again
	}
}

// awaitResponse waits for "CHECKPOINT_RESPONSE: …"; a rollover request
// hands the plan over (ErrRolledOver); other messages get a reminder and
// the wait goes on.
func (a *Agent) awaitResponse(t plan.Task) (string, error) {
	for {
		msg, ok := a.Next()
		if !ok {
			return "", repo.ErrStopped
		}
		a.Out.StartTurn(msg)
		if answer, ok := strings.CutPrefix(strings.TrimSpace(msg), "CHECKPOINT_RESPONSE:"); ok {
			return strings.TrimSpace(answer), nil
		}
		if isRollover(msg) && !a.ignoresRollover() {
			return "", a.rollover(&t, false, true)
		}
		a.Out.Text(fmt.Sprintf("Waiting at task %d (%s) of plan %s: answer with CHECKPOINT_RESPONSE: …", t.Number, t.Type, a.pr.p.ID))
		a.Out.EndTurn()
	}
}

// resolve applies a response to checkpoint t: it commits the task and
// reports true, or (for issues found in review, or an action not yet done)
// does what the response asks and reports false so the checkpoint is raised
// again.
func (a *Agent) resolve(t plan.Task, resp string) (bool, error) {
	r := a.pr
	ref := fmt.Sprintf("%s/%d", r.p.ID, t.Number)
	trailer := "Hive-Task: " + ref
	switch t.Type {
	case plan.TaskDecision:
		choice := chooseOption(t.Decision, resp)
		files, err := a.writeFiles(t, ref, "decision: "+choice)
		if err != nil {
			return false, err
		}
		return true, a.commitTask(t.Number, files, fmt.Sprintf("chore(%s): decision %s", r.p.ID, repo.OneLine(choice, 60)), trailer)
	case plan.TaskHumanAction:
		if !firstWordIs(resp, "done", "completed", "complete", "finished") {
			a.Out.Text(fmt.Sprintf("The action for task %d is not confirmed yet (%q); raising the checkpoint again.", t.Number, repo.OneLine(resp, 80)))
			return false, nil
		}
		files, err := a.writeFiles(t, ref, taskName(t))
		if err != nil {
			return false, err
		}
		return true, a.commitTask(t.Number, files, fmt.Sprintf("chore(%s): %s (human action done)", r.p.ID, taskName(t)), trailer)
	default: // human-verify, and any checkpoint kind the sim does not know
		if firstWordIs(resp, "approved", "approve", "lgtm", "done") {
			files, err := a.writeFiles(t, ref, taskName(t))
			if err != nil {
				return false, err
			}
			return true, a.commitTask(t.Number, files, fmt.Sprintf("chore(%s): verified %s", r.p.ID, taskName(t)), trailer)
		}
		return false, a.fixReview(t, resp)
	}
}

// fixReview makes the fix commit for issues reported at a human-verify
// checkpoint, in the checkpoint's files or else in the files of the last
// earlier task that has any.
func (a *Agent) fixReview(t plan.Task, issue string) error {
	r := a.pr
	paths := t.Files
	if len(paths) == 0 {
		for i := len(r.p.Tasks) - 1; i >= 0; i-- {
			if u := r.p.Tasks[i]; u.Number < t.Number && len(u.Files) > 0 {
				paths = u.Files
				break
			}
		}
	}
	k := r.fixCount(t.Number) + 1
	files, err := a.writeFiles(plan.Task{Files: paths}, fmt.Sprintf("%s/%d fix %d", r.p.ID, t.Number, k), "review: "+issue)
	if err != nil {
		return err
	}
	subject := fmt.Sprintf("fix(%s): address review: %s", r.p.ID, repo.OneLine(issue, 60))
	if err := a.commit(files, subject, fmt.Sprintf("Hive-Fix: %s/%d", r.p.ID, t.Number)); err != nil {
		return err
	}
	a.Out.Text(fmt.Sprintf("Addressed the review of task %d in %s; asking for verification again.", t.Number, subject))
	return nil
}

// chooseOption maps a decision answer to an option id: by id, by number
// ("2") or by name; anything else is recorded as given.
func chooseOption(d *plan.Decision, resp string) string {
	resp = strings.TrimSpace(resp)
	if d == nil {
		return resp
	}
	for i, o := range d.Options {
		if strings.EqualFold(o.ID, resp) || resp == fmt.Sprint(i+1) || (o.Name != "" && strings.EqualFold(o.Name, resp)) {
			return o.ID
		}
	}
	for _, o := range d.Options { // "Option sqlite, because …"
		if o.ID != "" && containsWord(strings.ToLower(resp), strings.ToLower(o.ID)) {
			return o.ID
		}
	}
	return resp
}

func containsWord(s, w string) bool {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == ':' || r == '"' }) {
		if f == w {
			return true
		}
	}
	return false
}

func firstWordIs(s string, words ...string) bool {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return false
	}
	w := strings.Trim(f[0], `.,!"'`)
	for _, x := range words {
		if w == x {
			return true
		}
	}
	return false
}

// checkpointType is "decision" for "checkpoint:decision".
func checkpointType(t plan.Task) string {
	return strings.TrimPrefix(t.Type, "checkpoint:")
}

// checkpointMessage is the team-mode message of seed 000 §3.1.
func (a *Agent) checkpointMessage(t plan.Task) string {
	details, awaiting := checkpointBody(a.pr, t)
	return fmt.Sprintf("CHECKPOINT: %s\nPLAN: %s\nPROGRESS: %d/%d\n\n### Checkpoint Details\n%s\n\n### Awaiting\n%s",
		checkpointType(t), a.pr.p.ID, a.pr.doneCount(), len(a.pr.p.Tasks), details, awaiting)
}

// checkpointReached is seed 002's checkpoint_return_format, headed by the
// same CHECKPOINT/PLAN/PROGRESS lines as the team message so that one parser
// reads both.
func (a *Agent) checkpointReached(t plan.Task) string {
	r := a.pr
	details, awaiting := checkpointBody(r, t)
	var b strings.Builder
	fmt.Fprintf(&b, "CHECKPOINT: %s\nPLAN: %s\nPROGRESS: %d/%d\n\n", checkpointType(t), r.p.ID, r.doneCount(), len(r.p.Tasks))
	fmt.Fprintf(&b, "## CHECKPOINT REACHED\n\n**Type:** %s\n**Plan:** %s\n**Progress:** %d/%d tasks complete\n\n",
		checkpointType(t), r.p.ID, r.doneCount(), len(r.p.Tasks))
	b.WriteString("### Completed Tasks\n| # | Task | Commit | Files |\n|---|------|--------|-------|\n")
	for _, u := range r.p.Tasks {
		if c, ok := r.taskCommit(u.Number); ok {
			fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", u.Number, cell(taskName(u)), c.Short, cell(strings.Join(u.Files, ", ")))
		}
	}
	fmt.Fprintf(&b, "\n### Current Task\n- **Number:** %d\n- **Name:** %s\n- **Status:** Blocked on checkpoint\n\n", t.Number, taskName(t))
	fmt.Fprintf(&b, "### Checkpoint Details\n%s\n\n### Awaiting\n%s", details, awaiting)
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// checkpointBody renders the type-specific details (seed 000 §3.1) and what
// is awaited: the plan's resume-signal when it has one.
func checkpointBody(r *planRun, t plan.Task) (details, awaiting string) {
	var b strings.Builder
	switch t.Type {
	case plan.TaskDecision:
		d := t.Decision
		if d == nil {
			d = &plan.Decision{}
		}
		fmt.Fprintf(&b, "**Decision:** %s\n", orElse(repo.OneLine(d.Question, 200), taskName(t)))
		if ctx := repo.OneLine(d.Context, 400); ctx != "" {
			fmt.Fprintf(&b, "**Context:** %s\n", ctx)
		}
		b.WriteString("\n**Options:**")
		var ids []string
		for i, o := range d.Options {
			fmt.Fprintf(&b, "\n%d. **%s** - %s", i+1, o.ID, repo.OneLine(orElse(o.Name, o.Text), 200))
			if o.Pros != "" {
				fmt.Fprintf(&b, "\n   Pros: %s", repo.OneLine(o.Pros, 200))
			}
			if o.Cons != "" {
				fmt.Fprintf(&b, "\n   Cons: %s", repo.OneLine(o.Cons, 200))
			}
			b.WriteString("\n")
			ids = append(ids, o.ID)
		}
		awaiting = "Select: " + orList(ids)
	case plan.TaskHumanAction:
		fmt.Fprintf(&b, "**Action:** %s\n", taskName(t))
		fmt.Fprintf(&b, "**What I automated:** %d of %d tasks committed before this step\n", r.doneCount(), len(r.p.Tasks))
		fmt.Fprintf(&b, "**What you need to do:** %s\n", orElse(repo.OneLine(t.Extra["instructions"], 400), repo.OneLine(t.Action, 400), taskName(t)))
		fmt.Fprintf(&b, "**I'll verify:** %s", orElse(repo.OneLine(t.Verify, 300), "that the action took effect"))
		awaiting = `Type "done" when complete`
	default:
		fmt.Fprintf(&b, "**What was built:** %s\n", orElse(repo.OneLine(t.Extra["what-built"], 400), repo.OneLine(t.Action, 400), repo.OneLine(r.p.Objective, 400), r.p.Name))
		b.WriteString("**How to verify:**")
		steps := nonEmptyLines(orElse(t.Extra["how-to-verify"], t.Verify, t.Done, "Review the changes of this plan"))
		for i, s := range steps {
			fmt.Fprintf(&b, "\n%d. %s", i+1, s)
		}
		awaiting = `Type "approved" or describe issues`
	}
	if sig := repo.OneLine(t.ResumeSignal, 200); sig != "" {
		awaiting = sig
	}
	return strings.TrimRight(b.String(), "\n"), awaiting
}

func orElse(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func orList(ids []string) string {
	switch len(ids) {
	case 0:
		return "an option"
	case 1:
		return ids[0]
	default:
		return strings.Join(ids[:len(ids)-1], ", ") + ", or " + ids[len(ids)-1]
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*0123456789. "))
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
