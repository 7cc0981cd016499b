package protocol

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/protocol/hivereport"
)

// Kind names an executor message.
type Kind string

// Message kinds.
const (
	Progress   Kind = "progress"
	Complete   Kind = "plan-complete"
	Failed     Kind = "plan-failed"
	Checkpoint Kind = "checkpoint"
	Deviation  Kind = "deviation"
)

// Message is one executor-to-hive message found in agent text.
type Message struct {
	Kind    Kind
	Plan    string   // plan id named by the message (first word of **Plan:** / PLAN:); "" when absent
	Task    int      // PROGRESS: the task just completed; others: tasks done
	Total   int      // tasks in the plan, when given
	Text    string   // PROGRESS: the commit message; FAILED: the error
	Summary string   // PLAN COMPLETE: the **SUMMARY:** path
	Commits []string // PLAN COMPLETE: "hash subject" lines of the **Commits:** list

	Checkpoint *CheckpointData    // set for Kind Checkpoint only
	Deviation  *DeviationData     // set for Kind Deviation only
	Report     *hivereport.Report // set for Kind HiveReport only
}

var (
	progressRe = regexp.MustCompile(`^PROGRESS:\s*Task\s+(\d+)\s*/\s*(\d+)\s*(?:complete[d]?)?\s*:?\s*(.*)$`)
	headerRe   = regexp.MustCompile(`^(?:#+\s*)?PLAN (COMPLETE|FAILED)\b`)
	// fieldRe is a **Field:** line; **Field**: is a common slip and means the same.
	fieldRe    = regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z ]*?)(?::\*\*|\*\*\s*:)\s*(.*)$`)
	fractionRe = regexp.MustCompile(`(\d+)\s*/\s*(\d+)`)

	cpBareRe  = regexp.MustCompile(`^CHECKPOINT:\s*(.*)$`)
	cpAnyRe   = regexp.MustCompile(`(?i)^checkpoint\s*:\s*(.*)$`)
	reachedRe = regexp.MustCompile(`(?i)^checkpoint\s+reached\b`)
	devRe     = regexp.MustCompile(`^DEVIATION:\s*(.*)$`)
)

// parseMessages returns the messages in one block of agent text, in order,
// the HIVE_REPORT comment form the only report it reads (see Parse).
func parseMessages(text string) []Message {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []Message
	free := 0   // first line no message has claimed: where a headerless checkpoint starts
	fence := "" // the marker of the open code fence: messages quoted in code are not messages
	closes := &closeFinder{lines: lines}
	for i := 0; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			switch {
			case fence == "":
				fence = t[:3]
			case strings.HasPrefix(t, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if strings.Contains(lines[i], reportOpen) {
			r, end := reportAt(lines, i, closes)
			out = append(out, Message{Kind: HiveReport, Report: &r})
			i, free = end, end+1
			continue
		}
		h := classify(lines[i])
		switch h.kind {
		case Progress:
			m := progressRe.FindStringSubmatch(strings.TrimSpace(lines[i]))
			out = append(out, Message{Kind: Progress, Task: num(m[1]), Total: num(m[2]), Text: strings.TrimSpace(m[3])})
			free = i + 1
		case Complete, Failed:
			msg := Message{Kind: h.kind}
			i = parseBody(lines, i+1, &msg)
			out = append(out, msg)
			free = i + 1
		case Checkpoint:
			end, next := checkpointEnd(lines, i, h)
			cp, ok := parseCheckpoint(lines[i:end])
			if !ok { // a heading that only looks like a checkpoint; read on
				i = next - 1
				continue
			}
			out = append(out, Message{Kind: Checkpoint, Plan: cp.Plan, Task: cp.Done, Total: cp.Total, Checkpoint: cp})
			i, free = end-1, end
		case Deviation:
			end := nextHeader(lines, i+1)
			d, ok := parseDeviation(lines[i:end])
			if !ok {
				continue
			}
			out = append(out, Message{Kind: Deviation, Plan: d.Plan, Deviation: d})
			i, free = end-1, end
		default:
			// Seed 000 §5.6: an executor that forgot the header but wrote both
			// sections still asked a question; a stray mention of "verify"
			// does not.
			if title, ok := sectionTitle(lines[i]); !ok || section(title) != secDetails {
				continue
			}
			end := nextHeader(lines, i+1)
			if hasAwaiting(lines[i+1 : end]) {
				if cp, ok := parseCheckpoint(lines[free:end]); ok {
					out = append(out, Message{Kind: Checkpoint, Plan: cp.Plan, Task: cp.Done, Total: cp.Total, Checkpoint: cp})
					free = end
				}
			}
			// No later details heading before end can find an Awaiting either.
			i = end - 1
		}
	}
	return out
}

// header is what one line says about starting a message.
type header struct {
	kind      Kind   // "" when the line starts no message
	arg       string // CHECKPOINT:/DEVIATION: the text after the colon
	reached   bool   // "## CHECKPOINT REACHED"
	heading   bool   // written as a markdown heading
	decorated bool   // heading, bold or box around "Checkpoint:": must prove itself
}

// classify tells whether line starts a message. The bare team-mode forms
// (seed 000's appendix) must be exact; headings are accepted more loosely
// because standalone executors and other GSD forks write them so.
func classify(line string) header {
	if strings.Contains(line, reportOpen) {
		return header{kind: HiveReport}
	}
	line = strings.TrimSpace(line)
	if progressRe.MatchString(line) {
		return header{kind: Progress}
	}
	if m := headerRe.FindStringSubmatch(line); m != nil {
		if m[1] == "FAILED" {
			return header{kind: Failed}
		}
		return header{kind: Complete}
	}
	if m := cpBareRe.FindStringSubmatch(line); m != nil {
		return header{kind: Checkpoint, arg: strings.TrimSpace(m[1])}
	}
	core, heading, deco := undecorate(line)
	if reachedRe.MatchString(core) && (deco || strings.HasPrefix(core, "CHECKPOINT REACHED")) {
		return header{kind: Checkpoint, reached: true, heading: heading}
	}
	if m := cpAnyRe.FindStringSubmatch(core); m != nil && deco {
		return header{kind: Checkpoint, arg: strings.TrimSpace(m[1]), heading: heading, decorated: true}
	}
	if m := devRe.FindStringSubmatch(core); m != nil {
		return header{kind: Deviation, arg: strings.TrimSpace(m[1])}
	}
	return header{}
}

// undecorate strips markdown heading marks, bold and box-drawing borders
// from a line.
func undecorate(line string) (core string, heading, decorated bool) {
	s := strings.TrimSpace(strings.Trim(line, "║ \t"))
	if t := strings.TrimLeft(s, "#"); t != s && (t == "" || t[0] == ' ' || t[0] == '\t') {
		s, heading = strings.TrimSpace(t), true
	}
	for _, w := range []string{"**", "__"} {
		if len(s) > 4 && strings.HasPrefix(s, w) && strings.HasSuffix(s, w) {
			s = strings.TrimSpace(s[2 : len(s)-2])
		}
	}
	return s, heading, s != strings.TrimSpace(line)
}

// nextHeader is the index of the first line at or after i that starts a
// message, or len(lines).
func nextHeader(lines []string, i int) int {
	for ; i < len(lines); i++ {
		if classify(lines[i]).kind != "" {
			return i
		}
	}
	return len(lines)
}

// parseBody reads the **Field:** lines and the commit list that follow a
// PLAN COMPLETE / PLAN FAILED header, up to the next message header, and
// returns the index of the last line it consumed.
func parseBody(lines []string, i int, msg *Message) int {
	inCommits := false
	last := i - 1
	for ; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if classify(line).kind != "" {
			break
		}
		last = i
		if f := fieldRe.FindStringSubmatch(line); f != nil {
			inCommits = false
			key, val := strings.ToLower(strings.TrimSpace(f[1])), strings.TrimSpace(f[2])
			switch key {
			case "plan":
				msg.Plan = planID(val)
			case "tasks":
				msg.Task, msg.Total = fraction(val)
			case "summary":
				msg.Summary = strings.Trim(val, "`")
			case "error":
				msg.Text = val
			case "commits":
				inCommits = true
				if val != "" {
					msg.Commits = append(msg.Commits, val)
				}
			}
			continue
		}
		if inCommits {
			c := strings.TrimSpace(strings.TrimLeft(line, "-*• "))
			if c != "" {
				msg.Commits = append(msg.Commits, c)
			}
		}
	}
	return last
}

// planID is the plan id at the start of a field value: "03-03 Dashboard
// Layout" names plan 03-03, which is what the runner compares.
func planID(val string) string {
	f := strings.Fields(strings.Trim(val, "`*"))
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], "`*,;")
}

// fraction reads "2/3 tasks complete"; a done count above the total is not
// a progress report, so it yields nothing.
func fraction(val string) (done, total int) {
	m := fractionRe.FindStringSubmatch(val)
	if m == nil {
		return 0, 0
	}
	done, total = num(m[1]), num(m[2])
	if done > total {
		return 0, 0
	}
	return done, total
}

// num is a non-negative decimal; anything else, overflow included, is 0.
func num(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
