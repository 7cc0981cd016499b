package protocol

import (
	"regexp"
	"strings"
)

// Checkpoint types, as CheckpointData.Type spells them.
const (
	TypeHumanVerify   = "human-verify"
	TypeDecision      = "decision"
	TypeHumanAction   = "human-action"
	TypeAuthGate      = "auth-gate"
	TypeArchDeviation = "architectural-deviation"
	TypeUnknown       = "unknown" // a headerless checkpoint whose wording names no type
)

// CheckpointData is a CHECKPOINT message (seed 000 §3.1) or a standalone
// CHECKPOINT REACHED return (seed 002 checkpoint_return_format, seed 004).
type CheckpointData struct {
	Type        string // one of the Type constants, or the agent's own word as a slug; never ""
	Plan        string
	Done, Total int    // tasks complete / in the plan; 0 when not given
	Details     string // the text under ### Checkpoint Details, verbatim
	Awaiting    string // what the human is asked for
	Options     []Option
	Standalone  bool // a CHECKPOINT REACHED return: the agent has exited and needs a continuation agent
	Completed   []CompletedTask
	Current     *CurrentTask
	Raw         string // the whole message as written, for display
}

// Option is one choice offered by a decision checkpoint.
type Option struct {
	ID   string // what the executor expects back, e.g. "supabase"; never ""
	Name string // the rest of the option's first line
	Text string // all lines of the option, Pros/Cons included
}

// CompletedTask is a row of a standalone return's Completed Tasks table.
type CompletedTask struct {
	Number int
	Name   string
	Commit string
	Files  []string
}

// CurrentTask is the Current Task section of a standalone return.
type CurrentTask struct {
	Number    int
	Name      string
	Status    string
	BlockedBy string
}

// Section kinds of a checkpoint message.
const (
	secOther = iota
	secHead  // before the first heading: header lines and fields
	secDetails
	secAwaiting
	secCompleted
	secCurrent
)

var (
	headingRe      = regexp.MustCompile(`^#{2,6}\s+(.+?)\s*#*$`)
	plainFieldRe   = regexp.MustCompile(`^([A-Za-z]+):\s*(.*)$`)
	taskLineRe     = regexp.MustCompile(`^(?:\*\*)?Task\s+(\d+)\s*:?\s*(?:\*\*)?\s*:?\s*(.*)$`)
	resumeSignalRe = regexp.MustCompile(`(?s)<resume[_-]signal>\s*(.*?)\s*</resume[_-]signal>`)
	slugRe         = regexp.MustCompile(`[^a-z0-9]+`)
	leadNumRe      = regexp.MustCompile(`(?i)^(?:#|task\s*)?(\d+)\b[\s:.)\-–—]*(.*)$`)
)

// checkpointEnd finds where the checkpoint starting at lines[i] ends: at the
// next message header, except that checkpoint headers before the first
// section are the same message written twice (the sim heads its standalone
// return with the team-mode lines). next is the first merged line where
// scanning resumes if the message turns out not to be one.
func checkpointEnd(lines []string, i int, h header) (end, next int) {
	typ := normType(h.arg)
	next = -1
	inHead := true
	for j := i + 1; j < len(lines); j++ {
		g := classify(lines[j])
		switch {
		case g.kind == "":
			if _, ok := sectionTitle(lines[j]); ok {
				inHead = false
			}
			continue
		case inHead && g.kind == Progress: // "PROGRESS: Task 4/6" as a header field
			if next < 0 {
				next = j
			}
			continue
		case inHead && g.kind == Checkpoint:
			if t := normType(g.arg); t == "" || typ == "" || t == typ {
				if typ == "" {
					typ = t
				}
				// A decorated header that follows would be refused for the
				// same reason (same lines, same end), so it is not a place
				// to resume: that keeps a pile of them linear.
				if next < 0 && !g.decorated {
					next = j
				}
				continue
			}
		}
		end = j
		break
	}
	if end == 0 {
		end = len(lines)
	}
	if next < 0 {
		next = end
	}
	return end, next
}

// parseCheckpoint reads one checkpoint message. ok is false only for a
// decorated "## Checkpoint: …" heading that asks nothing (a SUMMARY's
// "## Checkpoint: human-verify — approved" is not a question).
func parseCheckpoint(block []string) (*CheckpointData, bool) {
	cp := &CheckpointData{Raw: strings.Trim(strings.Join(block, "\n"), " \t\n")}
	secs := make([]int, len(block))  // section of each line
	skip := make([]bool, len(block)) // header lines and fields: not part of Details
	headType, fieldType, awaitField := "", "", ""
	h0 := classify(block[0])
	mustProve := h0.kind == Checkpoint && h0.decorated
	detailsAt, awaitingAt := -1, -1
	sec := secHead
	for k, raw := range block {
		t := strings.TrimSpace(raw)
		if sec == secHead {
			if h := classify(raw); h.kind == Checkpoint || h.kind == Progress {
				skip[k] = true
				if h.kind == Progress { // "PROGRESS: Task 4/6" written as the header field
					cp.Done, cp.Total = fraction(t)
					continue
				}
				cp.Standalone = cp.Standalone || h.reached || h.heading
				if headType == "" {
					headType = normType(h.arg)
				}
				continue
			}
			if key, val, ok := headField(t); ok {
				skip[k] = true
				switch key {
				case "type":
					if fieldType == "" {
						fieldType = normType(val)
					}
				case "plan":
					if cp.Plan == "" {
						cp.Plan = planID(val)
					}
				case "progress":
					if cp.Total == 0 {
						cp.Done, cp.Total = fraction(val)
					}
				case "awaiting":
					awaitField = val
				}
				continue
			}
		}
		if title, ok := sectionTitle(t); ok {
			sec = section(title)
			// Headings of sections the format defines are structure; others
			// ("### Required Action") are part of what the agent says.
			skip[k] = sec != secOther
			switch {
			case sec == secDetails && detailsAt < 0:
				detailsAt = k
			case sec == secAwaiting && awaitingAt < 0:
				awaitingAt = k
			}
			secs[k] = sec
			continue
		}
		secs[k] = sec
		if f := fieldRe.FindStringSubmatch(stripBullet(t)); f != nil && strings.EqualFold(strings.TrimSpace(f[1]), "awaiting") && sec != secCompleted && sec != secCurrent {
			awaitField, skip[k] = strings.TrimSpace(f[2]), true
		}
	}

	cp.Details = detailsText(block, secs, skip, detailsAt, awaitingAt)
	switch {
	case awaitingAt >= 0:
		var b []string
		for k := awaitingAt + 1; k < len(block) && secs[k] == secAwaiting; k++ {
			b = append(b, block[k])
		}
		cp.Awaiting = trimBlank(b)
	case awaitField != "":
		cp.Awaiting = awaitField
	default:
		if m := resumeSignalRe.FindStringSubmatch(cp.Raw); m != nil {
			cp.Awaiting = m[1]
		}
	}
	if mustProve && cp.Awaiting == "" && detailsAt < 0 {
		return nil, false
	}

	// A type hive knows beats the agent's own word ("CHECKPOINT: {type}"
	// over "**Type:** decision"); with neither, the wording decides.
	switch {
	case knownType(headType) || (headType != "" && !knownType(fieldType)):
		cp.Type = headType
	case fieldType != "":
		cp.Type = fieldType
	default:
		cp.Type = inferType(cp.Raw)
	}
	if cp.Type == TypeDecision {
		cp.Options = parseOptions(cp.Details)
	}
	cp.Completed = parseCompleted(linesIn(block, secs, secCompleted))
	cp.Current = parseCurrent(linesIn(block, secs, secCurrent))
	return cp, true
}

// detailsText is the text under ### Checkpoint Details up to ### Awaiting,
// or, without that heading, everything between the header lines and
// ### Awaiting; the Completed/Current Task sections are left out either way
// since they have fields of their own.
func detailsText(block []string, secs []int, skip []bool, detailsAt, awaitingAt int) string {
	from, to := 0, len(block)
	if detailsAt >= 0 {
		from = detailsAt + 1
	}
	if awaitingAt >= from {
		to = awaitingAt
	}
	var b []string
	for k := from; k < to; k++ {
		s := secs[k]
		if skip[k] || s == secCompleted || s == secCurrent || s == secAwaiting {
			continue
		}
		b = append(b, block[k])
	}
	return trimBlank(b)
}

// headField reads a header field of the head region: "PLAN: 03-01" or
// "**Plan:** 03-01". Only the keys the formats define are fields; other
// bold lines ("**What was built:**") are details.
func headField(t string) (key, val string, ok bool) {
	if m := plainFieldRe.FindStringSubmatch(t); m != nil {
		key, val = strings.ToLower(m[1]), strings.TrimSpace(m[2])
	} else if m := fieldRe.FindStringSubmatch(stripBullet(t)); m != nil {
		key, val = strings.ToLower(strings.TrimSpace(m[1])), strings.TrimSpace(m[2])
	} else {
		return "", "", false
	}
	switch key {
	case "type", "plan", "progress", "awaiting", "executor", "status":
		return key, val, true
	}
	return "", "", false
}

// sectionTitle is the lower-cased title of a "## …" to "###### …" heading.
func sectionTitle(line string) (string, bool) {
	m := headingRe.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return "", false
	}
	return strings.ToLower(strings.Trim(m[1], "*:` ")), true
}

func section(title string) int {
	switch {
	case title == "checkpoint details" || title == "details":
		return secDetails
	case strings.HasPrefix(title, "awaiting"):
		return secAwaiting
	case title == "completed tasks" || title == "completed":
		return secCompleted
	case title == "current task":
		return secCurrent
	}
	return secOther
}

func hasAwaiting(lines []string) bool {
	for _, l := range lines {
		if title, ok := sectionTitle(l); ok && section(title) == secAwaiting {
			return true
		}
	}
	return false
}

func linesIn(block []string, secs []int, sec int) []string {
	var out []string
	for k, l := range block {
		if secs[k] == sec {
			out = append(out, l)
		}
	}
	return out
}

// normType maps the many spellings of a checkpoint type to one:
// "checkpoint:human-verify", "HUMAN-VERIFY", "Human Verify", "human_verify"
// and "Verification Required" are all human-verify. An unknown type is kept
// as a slug so that the human still sees what the agent meant.
func normType(s string) string {
	s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "checkpoint:")
	t := strings.Trim(slugRe.ReplaceAllString(s, "-"), "-")
	if t == "" {
		return ""
	}
	for _, p := range []struct{ prefix, typ string }{
		{"human-verify", TypeHumanVerify}, {"human-action", TypeHumanAction}, {"decision", TypeDecision},
		{"auth", TypeAuthGate}, {"architectur", TypeArchDeviation}, {"verif", TypeHumanVerify},
		{"action", TypeHumanAction}, {"deviation", TypeArchDeviation},
	} {
		if strings.HasPrefix(t, p.prefix) {
			return p.typ
		}
	}
	for _, p := range []struct{ part, typ string }{
		{"verif", TypeHumanVerify}, {"decision", TypeDecision}, {"action", TypeHumanAction},
		{"auth", TypeAuthGate}, {"architect", TypeArchDeviation},
	} {
		if strings.Contains(t, p.part) {
			return p.typ
		}
	}
	if len(t) > 64 {
		t = strings.TrimRight(t[:64], "-")
	}
	return t
}

func knownType(t string) bool {
	switch t {
	case TypeHumanVerify, TypeDecision, TypeHumanAction, TypeAuthGate, TypeArchDeviation:
		return true
	}
	return false
}

// inferType guesses the type of a checkpoint that does not name one, from
// the fields each type's details carry (seed 000 §3.1).
func inferType(text string) string {
	l := strings.ToLower(text)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("**decision", "decision needed", "decision required", "**options", "select:"):
		return TypeDecision
	case has("what you need to do", "action required", "**action:**", `"done"`):
		return TypeHumanAction
	case has("what was built", "how to verify", "verification required", `"approved"`):
		return TypeHumanVerify
	}
	return TypeUnknown
}

// parseCurrent reads "- **Number:** 3 / **Name:** … / **Status:** …"
// (seed 002), "**Task 3:** name" (GSD executors) or "Task 3: name" (the
// continuation prompt's resume_from).
func parseCurrent(lines []string) *CurrentTask {
	var c CurrentTask
	for _, l := range lines {
		t := stripBullet(strings.TrimSpace(l))
		if f := fieldRe.FindStringSubmatch(t); f != nil {
			val := strings.TrimSpace(f[2])
			switch strings.ToLower(strings.TrimSpace(f[1])) {
			case "number", "task":
				if m := leadNumRe.FindStringSubmatch(val); m != nil {
					c.Number = num(m[1])
					if c.Name == "" {
						c.Name = strings.TrimSpace(m[2])
					}
				} else if c.Name == "" {
					c.Name = val
				}
			case "name":
				c.Name = val
			case "status":
				c.Status = val
			case "blocked by":
				c.BlockedBy = val
			}
			continue
		}
		if m := taskLineRe.FindStringSubmatch(t); m != nil && c.Number == 0 {
			c.Number, c.Name = num(m[1]), strings.TrimSpace(m[2])
		}
	}
	if c == (CurrentTask{}) {
		return nil
	}
	return &c
}

// stripBullet drops a leading "- ", "* " or "• ".
func stripBullet(t string) string {
	for _, b := range []string{"- ", "* ", "• ", "+ "} {
		if strings.HasPrefix(t, b) {
			return strings.TrimSpace(t[len(b):])
		}
	}
	return t
}

// trimBlank joins lines, dropping blank lines at both ends and trailing
// spaces, and keeps the rest verbatim.
func trimBlank(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \t")
}
