package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// Finding is one problem a reviewing role (reviewer, security, browser
// validator) reported, kept for the run with what became of it.
type Finding struct {
	ID          string `json:"id"` // F1, F2, ... in the order reported
	Job         string `json:"job"`
	Severity    string `json:"severity"` // blocker, high, medium, low
	Category    string `json:"category,omitempty"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Suggestion  string `json:"suggestion,omitempty"`
	Status      string `json:"status"`           // open, fixing, fixed, accepted, deferred
	Reason      string `json:"reason,omitempty"` // why it was accepted
}

// Severities, most severe first, and what became of a finding.
const (
	SevBlocker = "blocker"
	SevHigh    = "high"
	SevMedium  = "medium"
	SevLow     = "low"

	FindingOpen     = "open"
	FindingFixing   = "fixing" // sent to a fix loop; the reviewer looks again
	FindingFixed    = "fixed"
	FindingAccepted = "accepted"
	FindingDeferred = "deferred"
)

// Answers of a findings checkpoint, beside continue and abort.
const (
	AnswerFix   = "fix"   // a fix loop for the open blockers
	AnswerView  = "view"  // show the findings with their code, and ask again
	AnswerDefer = "defer" // defer [ID]: the open findings that are not blockers
	AnswerQuit  = "quit"  // end the run; the work stays on its branch
	// accept [ID] REASON (AnswerAccept) keeps a blocker, for a recorded
	// reason.
)

// reviewing roles report findings.
var reviewing = []string{RoleReviewer, RoleSecurity, RoleBrowserValidator}

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
				issues = append(issues, reported{Severity: SevLow, Title: text})
				continue
			}
			var re remark
			if json.Unmarshal(raw, &re) != nil {
				continue
			}
			is := re.reported
			is.Title = firstOf(is.Title, re.Comment, re.Message, re.Text, re.Body)
			if sev := strings.ToLower(strings.TrimSpace(is.Severity)); !slices.Contains([]string{SevBlocker, SevHigh, SevMedium, SevLow, "critical"}, sev) {
				is.Severity = SevLow
			}
			issues = append(issues, is)
		}
	}
	return issues
}

// record keeps the findings of j's report: its issues and its remarks. A
// finding the role reports again is not a new one; one it was asked to
// look at again after a fix and does not report again is fixed.
func (m *Machine) record(j *job, r *work.Report) {
	issues := reportedIssues(r)
	again := map[string]bool{}
	for _, is := range issues {
		title := firstOf(is.Title, is.Description)
		if title == "" {
			continue
		}
		key := is.File + "\x00" + title
		again[key] = true
		if slices.ContainsFunc(m.findings, func(f Finding) bool { return f.Job == j.ID && f.File+"\x00"+f.Title == key }) {
			for i := range m.findings {
				if f := &m.findings[i]; f.Job == j.ID && f.File+"\x00"+f.Title == key && f.Status == FindingFixing {
					f.Status = FindingOpen
				}
			}
			continue
		}
		line, _ := is.Line.Int64()
		sev := strings.ToLower(strings.TrimSpace(is.Severity))
		if sev == "critical" {
			sev = SevBlocker
		}
		m.findings = append(m.findings, Finding{ID: fmt.Sprintf("F%d", len(m.findings)+1), Job: j.ID, Severity: sev,
			Category: is.Category, File: is.File, Line: int(max(line, 0)), Title: title, Description: is.Description,
			Suggestion: is.Suggestion, Status: FindingOpen})
	}
	for i := range m.findings {
		if f := &m.findings[i]; f.Job == j.ID && f.Status == FindingFixing && !again[f.File+"\x00"+f.Title] {
			f.Status = FindingFixed
		}
	}
}

// blockers are the open blocker findings of the jobs named (all, if none).
func (m *Machine) blockers(jobs ...string) []Finding {
	var out []Finding
	for _, f := range m.findings {
		if f.Severity == SevBlocker && f.Status == FindingOpen && (len(jobs) == 0 || slices.Contains(jobs, f.Job)) {
			out = append(out, f)
		}
	}
	return out
}

// gate holds the run at open blocker findings of the jobs from: g is the
// job that holds it (the reviewing job itself, or a fix_blocking step).
// With --yes, or at a fix_blocking step, blockers go to one fix loop
// first; then a human decides.
func (m *Machine) gate(g *job, from []string) []Command {
	open := m.blockers(from...)
	if len(open) == 0 {
		return m.done(g, Done)
	}
	if g.fixes == 0 && (m.spec.AutoAnswer || g.Type == StepFixBlocking) {
		return m.fixFindings(g, from, open)
	}
	return m.askFindings(g, from, false)
}

// askFindings opens the findings checkpoint of g.
func (m *Machine) askFindings(g *job, from []string, view bool) []Command {
	open := m.blockers(from...)
	var all []Finding
	for _, f := range m.findings {
		if len(from) == 0 || slices.Contains(from, f.Job) {
			all = append(all, f)
		}
	}
	q := fmt.Sprintf("%d open blocker finding(s): %s", len(open), oneLine(open[0].Title))
	return m.ask(g, KindFindings, q, FindingsText(all), []string{AnswerFix, AnswerView, AnswerAccept, AnswerDefer, AnswerContinue, AnswerQuit},
		func(cp *Checkpoint) { cp.Findings, cp.View, cp.From = all, view, from })
}

// fixFindings sends open blockers to a fix loop: the implementer (or the
// step's on_failure role) fixes them, the jobs that reported them look
// again, then g holds the run again if any is left.
func (m *Machine) fixFindings(g *job, from []string, open []Finding) []Command {
	fixer := m.fixer(g)
	if fixer == nil {
		// A workflow without an implementer (review) gets one for the fix.
		fixer = &job{Job: Job{ID: FixJob, Role: RoleImplementer, State: Pending}}
		m.add(fixer)
	}
	g.fixes++
	for i := range m.findings {
		if f := &m.findings[i]; slices.ContainsFunc(open, func(o Finding) bool { return o.ID == f.ID }) {
			f.Status = FindingFixing
		}
	}
	var reporters []string
	for _, f := range open {
		if !slices.Contains(reporters, f.Job) {
			reporters = append(reporters, f.Job)
		}
	}
	cmds := m.sendBack(g, fixer, &Context{Findings: open}, fmt.Sprintf("%d blocker finding(s) back to the %s", len(open), fixer.Role))
	// After the fix (and the build, where the workflow builds), the
	// reporters look again and the testers test again, before g decides.
	again := func(r *job, ctx *Context, gateWaits bool) {
		after := []string{fixer.ID}
		for _, b := range m.jobs {
			if b.Type == StepBuild && b.State == Pending && m.dependsOn(r, b.ID) {
				after = append(after, b.ID)
			}
		}
		if gateWaits {
			g.wait = append(g.wait, r.ID)
		}
		if r.active() { // it works on the tree before the fix: again once done
			r.rerun, r.rerunAfter = ctx, after
			return
		}
		r.State, r.next, r.wait = Pending, ctx, after
		m.agenda = slices.Insert(slices.DeleteFunc(m.agenda, func(x string) bool { return x == r.ID }), 1, r.ID)
	}
	for _, id := range reporters {
		if r := m.byID[id]; r != nil && r != g {
			again(r, &Context{Findings: open, Retry: "the " + fixer.Role + " fixed the blocker findings below: review again"}, true)
		}
	}
	// The testers that tested the tree before the fix test it again.
	for _, t := range m.jobs {
		if t.Role == RoleTester && t.Type == "" && t != fixer && t.Attempts > 0 && (t.State == Done || t.active()) && !m.dependsOn(t, g.ID) {
			again(t, &Context{Retry: "the " + fixer.Role + " fixed blocker findings of the review: run the tests again"}, false)
		}
	}
	if slices.Contains(reporters, g.ID) {
		g.next = &Context{Findings: open, Retry: "the " + fixer.Role + " fixed the blocker findings below: review again"}
	}
	return cmds
}

// fixBlocking is the fix_blocking step: the open blockers of every
// reviewing job go to a fix loop.
func (m *Machine) fixBlocking(j *job) []Command {
	var from []string
	for _, r := range m.jobs {
		if slices.Contains(reviewing, r.Role) {
			from = append(from, r.ID)
		}
	}
	if len(m.blockers(from...)) == 0 {
		note := Command{Type: CmdNote, Job: j.ID, Text: "no open blocker finding"}
		return append([]Command{note}, m.done(j, Done)...)
	}
	return m.gate(j, from)
}

// gated says whether a reviewing job leaves its blockers to a fix_blocking
// step still to come.
func (m *Machine) gated(j *job) bool {
	for _, f := range m.jobs {
		if f.Type == StepFixBlocking && !f.settled() && f != j {
			return true
		}
	}
	return false
}

// findingsAnswer applies an answer to a findings checkpoint.
func (m *Machine) findingsAnswer(g *job, cp *Checkpoint, text string) []Command {
	word, rest, _ := strings.Cut(text, " ")
	word, rest = strings.ToLower(word), strings.TrimSpace(rest)
	switch word {
	case AnswerFix:
		return m.fixFindings(g, cp.From, m.blockers(cp.From...))
	case AnswerView:
		return m.askFindings(g, cp.From, true)
	case AnswerContinue:
		return m.done(g, Done)
	case AnswerQuit:
		g.State = Skipped
		return m.finish(OutcomeAborted, "quit at the findings of "+g.ID)
	}
	id, reason := findingRef(rest)
	for i := range m.findings {
		f := &m.findings[i]
		if f.Status != FindingOpen || !slices.Contains(cp.From, f.Job) || (id != "" && f.ID != id) {
			continue
		}
		switch {
		case word == AnswerAccept && f.Severity == SevBlocker:
			f.Status, f.Reason = FindingAccepted, reason
		case word == AnswerDefer && f.Severity != SevBlocker:
			f.Status = FindingDeferred
		}
	}
	if len(m.blockers(cp.From...)) == 0 {
		return m.done(g, Done)
	}
	return m.askFindings(g, cp.From, false)
}

// findingRef splits "F2 the reason" into the finding's id and the rest.
func findingRef(text string) (id, rest string) {
	head, tail, _ := strings.Cut(text, " ")
	if len(head) > 1 && (head[0] == 'F' || head[0] == 'f') && strings.Trim(head[1:], "0123456789") == "" {
		return "F" + head[1:], strings.TrimSpace(tail)
	}
	return "", text
}

// checkFindings says whether text answers a findings checkpoint.
func (cp *Checkpoint) checkFindings(text string) error {
	word, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	word = strings.ToLower(word)
	id, reason := findingRef(strings.TrimSpace(rest))
	if id != "" && !slices.ContainsFunc(cp.Findings, func(f Finding) bool { return f.ID == id }) {
		return fmt.Errorf("no finding %s here (findings: %s)", id, findingIDs(cp.Findings))
	}
	switch word {
	case AnswerFix, AnswerView, AnswerQuit:
		return nil
	case AnswerAccept:
		if reason == "" {
			return fmt.Errorf("accept needs a reason, recorded with the finding: accept [ID] REASON, e.g. \"accept the endpoint is internal only\"")
		}
		return nil
	case AnswerDefer:
		for _, f := range cp.Findings {
			if f.ID == id && f.Severity == SevBlocker {
				return fmt.Errorf("%s is a blocker: a blocker is fixed or accepted with a reason, not deferred", id)
			}
		}
		return nil
	case AnswerContinue:
		for _, f := range cp.Findings {
			if f.Severity == SevBlocker && f.Status == FindingOpen {
				return fmt.Errorf("%s is an open blocker: fix it, or accept it with a reason, before the run goes on (or quit)", f.ID)
			}
		}
		return nil
	}
	return fmt.Errorf("answer fix, view, accept [ID] REASON, defer [ID], continue or quit, not %q", text)
}

func findingIDs(fs []Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, ", ")
}

// FindingsText lists findings one per line: id, severity, place, title,
// what became of them.
func FindingsText(fs []Finding) string {
	var lines []string
	for _, f := range fs {
		place := f.File
		if f.Line > 0 {
			place = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		line := fmt.Sprintf("%s %s %s: %s (%s)", f.ID, f.Severity, firstOf(place, "-"), oneLine(f.Title), f.Status)
		if f.Reason != "" {
			line += ": " + oneLine(f.Reason)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
