package findings

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Findings are a run's findings, in the order reported.
type Findings struct {
	List []roleplan.Finding
}

// Run is what the findings need of the machine: its jobs, its checkpoints
// and the end of the run.
type Run interface {
	Jobs() *jobs.Board
	Ask(j *jobs.Job, kind roleplan.CheckpointKind, question, details string, options []string, with ...func(*roleplan.Checkpoint)) []roleplan.Command
	Done(j *jobs.Job, s roleplan.JobState) []roleplan.Command
	Finish(outcome, reason string) []roleplan.Command
}

// Severe is the first open high or blocker finding of job, if any.
func (fs *Findings) Severe(job string) (roleplan.Finding, bool) {
	i := slices.IndexFunc(fs.List, func(f roleplan.Finding) bool {
		return f.Job == job && f.Status == roleplan.FindingOpen && (f.Severity == roleplan.SevBlocker || f.Severity == roleplan.SevHigh)
	})
	if i < 0 {
		return roleplan.Finding{}, false
	}
	return fs.List[i], true
}

// reported is one issue of a report, as the reviewer contract has it.
type reported struct {
	Severity    string      `json:"severity"`
	Category    string      `json:"category"`
	File        string      `json:"file"`
	Line        json.Number `json:"line"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Suggestion  string      `json:"suggestion"`
}

// remarkKeys are the lists beside issues in which a reviewing role gives
// remarks that do not stop its approval: an "approved_with_comments"
// carries its comments there. Each is a finding, low unless it says.
var remarkKeys = []string{"comments", "findings"}

// remark is an entry of a remarks list written as an object: an issue,
// or a comment in the words models use for one.
type remark struct {
	reported
	Comment string `json:"comment"`
	Message string `json:"message"`
	Text    string `json:"text"`
	Body    string `json:"body"`
}

// reportedIssues are the issues of r, then its remarks.
func reportedIssues(r *work.Report) []reported {
	if r == nil {
		return nil
	}
	var issues []reported
	if r.Extra["issues"] != nil {
		json.Unmarshal(r.Extra["issues"], &issues)
	}
	for _, k := range remarkKeys {
		var list []json.RawMessage
		if json.Unmarshal(r.Extra[k], &list) != nil {
			continue
		}
		for _, raw := range list {
			var text string
			if json.Unmarshal(raw, &text) == nil {
				issues = append(issues, reported{Severity: roleplan.SevLow, Title: text})
				continue
			}
			var re remark
			if json.Unmarshal(raw, &re) != nil {
				continue
			}
			is := re.reported
			is.Title = words.First(is.Title, re.Comment, re.Message, re.Text, re.Body)
			if sev := strings.ToLower(strings.TrimSpace(is.Severity)); !slices.Contains([]string{roleplan.SevBlocker, roleplan.SevHigh, roleplan.SevMedium, roleplan.SevLow, "critical"}, sev) {
				is.Severity = roleplan.SevLow
			}
			issues = append(issues, is)
		}
	}
	return issues
}

// Record keeps the findings of j's report: its issues and its remarks. A
// finding the role reports again is not a new one; one it was asked to
// look at again after a fix and does not report again is fixed.
func (fs *Findings) Record(j *jobs.Job, r *work.Report) {
	issues := reportedIssues(r)
	again := map[string]bool{}
	for _, is := range issues {
		title := words.First(is.Title, is.Description)
		if title == "" {
			continue
		}
		key := is.File + "\x00" + title
		again[key] = true
		if slices.ContainsFunc(fs.List, func(f roleplan.Finding) bool { return f.Job == j.ID && f.File+"\x00"+f.Title == key }) {
			for i := range fs.List {
				if f := &fs.List[i]; f.Job == j.ID && f.File+"\x00"+f.Title == key && f.Status == roleplan.FindingFixing {
					f.Status = roleplan.FindingOpen
				}
			}
			continue
		}
		line, _ := is.Line.Int64()
		sev := strings.ToLower(strings.TrimSpace(is.Severity))
		if sev == "critical" {
			sev = roleplan.SevBlocker
		}
		fs.List = append(fs.List, roleplan.Finding{ID: fmt.Sprintf("F%d", len(fs.List)+1), Job: j.ID, Severity: sev,
			Category: is.Category, File: is.File, Line: int(max(line, 0)), Title: title, Description: is.Description,
			Suggestion: is.Suggestion, Status: roleplan.FindingOpen})
	}
	for i := range fs.List {
		if f := &fs.List[i]; f.Job == j.ID && f.Status == roleplan.FindingFixing && !again[f.File+"\x00"+f.Title] {
			f.Status = roleplan.FindingFixed
		}
	}
}

// Blockers are the open blocker findings of the jobs named (all, if none).
func (fs *Findings) Blockers(of ...string) []roleplan.Finding {
	var out []roleplan.Finding
	for _, f := range fs.List {
		if f.Severity == roleplan.SevBlocker && f.Status == roleplan.FindingOpen && (len(of) == 0 || slices.Contains(of, f.Job)) {
			out = append(out, f)
		}
	}
	return out
}

// Gate holds the run at open blocker findings of the jobs from: g is the
// job that holds it (the reviewing job itself, or a fix_blocking step).
// With --yes, or at a fix_blocking step, blockers go to one fix loop
// first; then a human decides.
func (fs *Findings) Gate(run Run, g *jobs.Job, from []string, auto bool) []roleplan.Command {
	open := fs.Blockers(from...)
	if len(open) == 0 {
		return run.Done(g, roleplan.Done)
	}
	if g.Fixes == 0 && (auto || g.Type == workflows.StepFixBlocking) {
		return fs.fix(run, g, open)
	}
	return fs.ask(run, g, from, false)
}

// ask opens the findings checkpoint of g.
func (fs *Findings) ask(run Run, g *jobs.Job, from []string, view bool) []roleplan.Command {
	open := fs.Blockers(from...)
	var all []roleplan.Finding
	for _, f := range fs.List {
		if len(from) == 0 || slices.Contains(from, f.Job) {
			all = append(all, f)
		}
	}
	q := fmt.Sprintf("%d open blocker finding(s): %s", len(open), words.OneLine(open[0].Title))
	return run.Ask(g, roleplan.KindFindings, q, roleplan.FindingsText(all), []string{roleplan.AnswerFix, roleplan.AnswerView, roleplan.AnswerAccept, roleplan.AnswerDefer, roleplan.AnswerContinue, roleplan.AnswerQuit},
		func(cp *roleplan.Checkpoint) { cp.Findings, cp.View, cp.From = all, view, from })
}

// fix sends open blockers to a fix loop: the implementer (or the
// step's on_failure role) fixes them, the jobs that reported them look
// again, then g holds the run again if any is left.
func (fs *Findings) fix(run Run, g *jobs.Job, open []roleplan.Finding) []roleplan.Command {
	b := run.Jobs()
	fixer := b.Fixer(g)
	if fixer == nil {
		// A workflow without an implementer (review) gets one for the fix.
		fixer = jobs.New(roleplan.FixJob, workflows.RoleImplementer)
		b.Add(fixer)
	}
	g.Fixes++
	for i := range fs.List {
		if f := &fs.List[i]; slices.ContainsFunc(open, func(o roleplan.Finding) bool { return o.ID == f.ID }) {
			f.Status = roleplan.FindingFixing
		}
	}
	var reporters []string
	for _, f := range open {
		if !slices.Contains(reporters, f.Job) {
			reporters = append(reporters, f.Job)
		}
	}
	b.SendBack(g, fixer, &roleplan.Context{Findings: open})
	cmds := []roleplan.Command{{Type: roleplan.CmdNote, Job: g.ID, Text: fmt.Sprintf("%d blocker finding(s) back to the %s", len(open), fixer.Role)}}
	// After the fix (and the build, where the workflow builds), the
	// reporters look again and the testers test again, before g decides.
	for _, id := range reporters {
		if r := b.Get(id); r != nil && r != g {
			g.Wait = append(g.Wait, r.ID)
			b.LookAgain(r, &roleplan.Context{Findings: open, Retry: "the " + fixer.Role + " fixed the blocker findings below: review again"}, fixer)
		}
	}
	// The testers that tested the tree before the fix test it again.
	for _, t := range b.List {
		if t.Role == workflows.RoleTester && t.Type == "" && t != fixer && t.Attempts > 0 && (t.State == roleplan.Done || t.Active()) && !b.DependsOn(t, g.ID) {
			b.LookAgain(t, &roleplan.Context{Retry: "the " + fixer.Role + " fixed blocker findings of the review: run the tests again"}, fixer)
		}
	}
	if slices.Contains(reporters, g.ID) {
		g.Next = &roleplan.Context{Findings: open, Retry: "the " + fixer.Role + " fixed the blocker findings below: review again"}
	}
	return cmds
}

// FixBlocking is the fix_blocking step: the open blockers of every
// reviewing job go to a fix loop.
func (fs *Findings) FixBlocking(run Run, j *jobs.Job, auto bool) []roleplan.Command {
	var from []string
	for _, r := range run.Jobs().List {
		if slices.Contains(workflows.Reviewing, r.Role) {
			from = append(from, r.ID)
		}
	}
	if len(fs.Blockers(from...)) == 0 {
		note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: "no open blocker finding"}
		return append([]roleplan.Command{note}, run.Done(j, roleplan.Done)...)
	}
	return fs.Gate(run, j, from, auto)
}

// Answer applies an answer to a findings checkpoint.
func (fs *Findings) Answer(run Run, g *jobs.Job, cp *roleplan.Checkpoint, text string) []roleplan.Command {
	word, rest, _ := strings.Cut(text, " ")
	word, rest = strings.ToLower(word), strings.TrimSpace(rest)
	switch word {
	case roleplan.AnswerFix:
		return fs.fix(run, g, fs.Blockers(cp.From...))
	case roleplan.AnswerView:
		return fs.ask(run, g, cp.From, true)
	case roleplan.AnswerContinue:
		return run.Done(g, roleplan.Done)
	case roleplan.AnswerQuit:
		g.State = roleplan.Skipped
		return run.Finish(roleplan.OutcomeAborted, "quit at the findings of "+g.ID)
	}
	id, reason := roleplan.FindingRef(rest)
	for i := range fs.List {
		f := &fs.List[i]
		if f.Status != roleplan.FindingOpen || !slices.Contains(cp.From, f.Job) || (id != "" && f.ID != id) {
			continue
		}
		switch {
		case word == roleplan.AnswerAccept && f.Severity == roleplan.SevBlocker:
			f.Status, f.Reason = roleplan.FindingAccepted, reason
		case word == roleplan.AnswerDefer && f.Severity != roleplan.SevBlocker:
			f.Status = roleplan.FindingDeferred
		}
	}
	if len(fs.Blockers(cp.From...)) == 0 {
		return run.Done(g, roleplan.Done)
	}
	return fs.ask(run, g, cp.From, false)
}
