package protocol

import (
	"regexp"
	"strconv"
	"strings"
)

// Kind names an executor message.
type Kind string

// Message kinds.
const (
	Progress Kind = "progress"
	Complete Kind = "plan-complete"
	Failed   Kind = "plan-failed"
)

// Message is one executor-to-hive message found in agent text.
type Message struct {
	Kind    Kind
	Plan    string   // **Plan:** of PLAN COMPLETE / PLAN FAILED; "" when absent
	Task    int      // PROGRESS: the task just completed; COMPLETE/FAILED: tasks done
	Total   int      // tasks in the plan, when given
	Text    string   // PROGRESS: the commit message; FAILED: the error
	Summary string   // PLAN COMPLETE: the **SUMMARY:** path
	Commits []string // PLAN COMPLETE: "hash subject" lines of the **Commits:** list
}

var (
	progressRe = regexp.MustCompile(`^PROGRESS:\s*Task\s+(\d+)\s*/\s*(\d+)\s*(?:complete[d]?)?\s*:?\s*(.*)$`)
	headerRe   = regexp.MustCompile(`^(?:#+\s*)?PLAN (COMPLETE|FAILED)\b`)
	fieldRe    = regexp.MustCompile(`^\*\*([A-Za-z ]+):\*\*\s*(.*)$`)
	fractionRe = regexp.MustCompile(`^(\d+)\s*/\s*(\d+)`)
)

// Parse returns the messages in one block of agent text, in order.
func Parse(text string) []Message {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []Message
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if m := progressRe.FindStringSubmatch(line); m != nil {
			task, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			out = append(out, Message{Kind: Progress, Task: task, Total: total, Text: strings.TrimSpace(m[3])})
			continue
		}
		m := headerRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		msg := Message{Kind: Complete}
		if m[1] == "FAILED" {
			msg.Kind = Failed
		}
		i = parseBody(lines, i+1, &msg)
		out = append(out, msg)
	}
	return out
}

// parseBody reads the **Field:** lines and the commit list that follow a
// PLAN COMPLETE / PLAN FAILED header, up to the next message header, and
// returns the index of the last line it consumed.
func parseBody(lines []string, i int, msg *Message) int {
	inCommits := false
	last := i - 1
	for ; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if headerRe.MatchString(line) || progressRe.MatchString(line) || strings.HasPrefix(line, "CHECKPOINT:") {
			break
		}
		last = i
		if f := fieldRe.FindStringSubmatch(line); f != nil {
			inCommits = false
			key, val := strings.ToLower(strings.TrimSpace(f[1])), strings.TrimSpace(f[2])
			switch key {
			case "plan":
				msg.Plan = strings.Trim(val, "`")
			case "tasks":
				if fr := fractionRe.FindStringSubmatch(val); fr != nil {
					msg.Task, _ = strconv.Atoi(fr[1])
					msg.Total, _ = strconv.Atoi(fr[2])
				}
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
