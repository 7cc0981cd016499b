package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
)

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
			is.Title = firstOf(is.Title, re.Comment, re.Message, re.Text, re.Body)
			if sev := strings.ToLower(strings.TrimSpace(is.Severity)); !slices.Contains([]string{roleplan.SevBlocker, roleplan.SevHigh, roleplan.SevMedium, roleplan.SevLow, "critical"}, sev) {
				is.Severity = roleplan.SevLow
			}
			issues = append(issues, is)
		}
	}
	return issues
}

// record keeps the findings of j's report: its issues and its remarks. A
// finding the role reports again is not a new one; one it was asked to
// look at again after a fix and does not report again is fixed.
func (m *Machine) record(j *jobs.Job, r *work.Report) {
	issues := reportedIssues(r)
	again := map[string]bool{}
	for _, is := range issues {
		title := firstOf(is.Title, is.Description)
		if title == "" {
			continue
		}
		key := is.File + "\x00" + title
		again[key] = true
		if slices.ContainsFunc(m.findings, func(f roleplan.Finding) bool { return f.Job == j.ID && f.File+"\x00"+f.Title == key }) {
			for i := range m.findings {
				if f := &m.findings[i]; f.Job == j.ID && f.File+"\x00"+f.Title == key && f.Status == roleplan.FindingFixing {
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
		m.findings = append(m.findings, roleplan.Finding{ID: fmt.Sprintf("F%d", len(m.findings)+1), Job: j.ID, Severity: sev,
			Category: is.Category, File: is.File, Line: int(max(line, 0)), Title: title, Description: is.Description,
			Suggestion: is.Suggestion, Status: roleplan.FindingOpen})
	}
	for i := range m.findings {
		if f := &m.findings[i]; f.Job == j.ID && f.Status == roleplan.FindingFixing && !again[f.File+"\x00"+f.Title] {
			f.Status = roleplan.FindingFixed
		}
	}
}

// blockers are the open blocker findings of the jobs named (all, if none).
func (m *Machine) blockers(jobs ...string) []roleplan.Finding {
	var out []roleplan.Finding
	for _, f := range m.findings {
		if f.Severity == roleplan.SevBlocker && f.Status == roleplan.FindingOpen && (len(jobs) == 0 || slices.Contains(jobs, f.Job)) {
			out = append(out, f)
		}
	}
	return out
}

// gate holds the run at open blocker findings of the jobs from: g is the
// job that holds it (the reviewing job itself, or a fix_blocking step).
// With --yes, or at a fix_blocking step, blockers go to one fix loop
// first; then a human decides.
func (m *Machine) gate(g *jobs.Job, from []string) []roleplan.Command {
	open := m.blockers(from...)
	if len(open) == 0 {
		return m.done(g, roleplan.Done)
	}
	if g.Fixes == 0 && (m.spec.AutoAnswer || g.Type == roleplan.StepFixBlocking) {
		return m.fixFindings(g, from, open)
	}
	return m.askFindings(g, from, false)
}

// askFindings opens the findings checkpoint of g.
func (m *Machine) askFindings(g *jobs.Job, from []string, view bool) []roleplan.Command {
	open := m.blockers(from...)
	var all []roleplan.Finding
	for _, f := range m.findings {
		if len(from) == 0 || slices.Contains(from, f.Job) {
			all = append(all, f)
		}
	}
	q := fmt.Sprintf("%d open blocker finding(s): %s", len(open), oneLine(open[0].Title))
	return m.ask(g, roleplan.KindFindings, q, roleplan.FindingsText(all), []string{roleplan.AnswerFix, roleplan.AnswerView, roleplan.AnswerAccept, roleplan.AnswerDefer, roleplan.AnswerContinue, roleplan.AnswerQuit},
		func(cp *roleplan.Checkpoint) { cp.Findings, cp.View, cp.From = all, view, from })
}

// fixFindings sends open blockers to a fix loop: the implementer (or the
// step's on_failure role) fixes them, the jobs that reported them look
// again, then g holds the run again if any is left.
func (m *Machine) fixFindings(g *jobs.Job, from []string, open []roleplan.Finding) []roleplan.Command {
	fixer := m.jobs.Fixer(g)
	if fixer == nil {
		// A workflow without an implementer (review) gets one for the fix.
		fixer = jobs.New(roleplan.FixJob, roleplan.RoleImplementer)
		m.jobs.Add(fixer)
	}
	g.Fixes++
	for i := range m.findings {
		if f := &m.findings[i]; slices.ContainsFunc(open, func(o roleplan.Finding) bool { return o.ID == f.ID }) {
			f.Status = roleplan.FindingFixing
		}
	}
	var reporters []string
	for _, f := range open {
		if !slices.Contains(reporters, f.Job) {
			reporters = append(reporters, f.Job)
		}
	}
	cmds := m.sendBack(g, fixer, &roleplan.Context{Findings: open}, fmt.Sprintf("%d blocker finding(s) back to the %s", len(open), fixer.Role))
	// After the fix (and the build, where the workflow builds), the
	// reporters look again and the testers test again, before g decides.
	for _, id := range reporters {
		if r := m.jobs.Get(id); r != nil && r != g {
			g.Wait = append(g.Wait, r.ID)
			m.jobs.LookAgain(r, &roleplan.Context{Findings: open, Retry: "the " + fixer.Role + " fixed the blocker findings below: review again"}, fixer)
		}
	}
	// The testers that tested the tree before the fix test it again.
	for _, t := range m.jobs.List {
		if t.Role == roleplan.RoleTester && t.Type == "" && t != fixer && t.Attempts > 0 && (t.State == roleplan.Done || t.Active()) && !m.jobs.DependsOn(t, g.ID) {
			m.jobs.LookAgain(t, &roleplan.Context{Retry: "the " + fixer.Role + " fixed blocker findings of the review: run the tests again"}, fixer)
		}
	}
	if slices.Contains(reporters, g.ID) {
		g.Next = &roleplan.Context{Findings: open, Retry: "the " + fixer.Role + " fixed the blocker findings below: review again"}
	}
	return cmds
}

// fixBlocking is the fix_blocking step: the open blockers of every
// reviewing job go to a fix loop.
func (m *Machine) fixBlocking(j *jobs.Job) []roleplan.Command {
	var from []string
	for _, r := range m.jobs.List {
		if slices.Contains(roleplan.Reviewing, r.Role) {
			from = append(from, r.ID)
		}
	}
	if len(m.blockers(from...)) == 0 {
		note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: "no open blocker finding"}
		return append([]roleplan.Command{note}, m.done(j, roleplan.Done)...)
	}
	return m.gate(j, from)
}

// findingsAnswer applies an answer to a findings checkpoint.
func (m *Machine) findingsAnswer(g *jobs.Job, cp *roleplan.Checkpoint, text string) []roleplan.Command {
	word, rest, _ := strings.Cut(text, " ")
	word, rest = strings.ToLower(word), strings.TrimSpace(rest)
	switch word {
	case roleplan.AnswerFix:
		return m.fixFindings(g, cp.From, m.blockers(cp.From...))
	case roleplan.AnswerView:
		return m.askFindings(g, cp.From, true)
	case roleplan.AnswerContinue:
		return m.done(g, roleplan.Done)
	case roleplan.AnswerQuit:
		g.State = roleplan.Skipped
		return m.finish(roleplan.OutcomeAborted, "quit at the findings of "+g.ID)
	}
	id, reason := roleplan.FindingRef(rest)
	for i := range m.findings {
		f := &m.findings[i]
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
	if len(m.blockers(cp.From...)) == 0 {
		return m.done(g, roleplan.Done)
	}
	return m.askFindings(g, cp.From, false)
}
