package lines

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hivectl/hive/internal/agent/adapter"
)

// LogRenderer turns an agent log into text for a human: stream-json lines
// as what the agent said, hive's own lines as headings.
type LogRenderer struct {
	W       io.Writer
	Raw     bool     // the log's lines as written
	partial string   // a line not yet ended
	block   []string // a "== hive → agent:" message being read
	inBlock bool
}

// Follow renders every complete line available now.
func (r *LogRenderer) Follow(rd *bufio.Reader) {
	for {
		s, err := rd.ReadString('\n')
		r.partial += s
		if err != nil {
			return // the rest of the line is not written yet
		}
		line := strings.TrimSuffix(r.partial, "\n")
		r.partial = ""
		r.line(line)
	}
}

// Drain renders what is left, the last line even without its newline.
func (r *LogRenderer) Drain(rd *bufio.Reader) {
	r.Follow(rd)
	if r.partial != "" {
		r.line(r.partial)
		r.partial = ""
	}
}

func (r *LogRenderer) line(l string) {
	if r.Raw {
		fmt.Fprintln(r.W, l)
		return
	}
	if r.inBlock {
		if l == "== end" || strings.HasSuffix(l, "== end") && len(r.block) == 0 {
			if rest := strings.TrimSuffix(l, "== end"); rest != "" {
				r.block = append(r.block, rest)
			}
			r.endBlock()
			return
		}
		r.block = append(r.block, l)
		return
	}
	switch {
	case l == "":
	case l == "== hive → agent:":
		r.inBlock, r.block = true, nil
	case strings.HasPrefix(l, "== "):
		fmt.Fprintf(r.W, "── %s\n", strings.TrimPrefix(l, "== "))
	case strings.HasPrefix(l, "stderr: "):
		fmt.Fprintf(r.W, "! %s\n", strings.TrimPrefix(l, "stderr: "))
	case strings.HasPrefix(l, "{"):
		r.streamJSON(l)
	default:
		fmt.Fprintln(r.W, l)
	}
}

// endBlock shows a message hive sent: in full when short, else its first
// line (the first prompt runs to hundreds of lines).
func (r *LogRenderer) endBlock() {
	r.inBlock = false
	lines := r.block
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 1 && strings.HasPrefix(lines[0], "{") {
		// A stream-json message: show its text.
		if text := userText(lines[0]); text != "" {
			lines = strings.Split(strings.TrimSpace(text), "\n")
		}
	}
	switch {
	case len(lines) == 0:
	case len(lines) <= 4:
		for _, l := range lines {
			fmt.Fprintf(r.W, "» hive: %s\n", l)
		}
	default:
		fmt.Fprintf(r.W, "» hive: %s … (%d more lines)\n", firstText(lines), len(lines)-1)
	}
}

func firstText(lines []string) string {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

func (r *LogRenderer) streamJSON(l string) {
	pl, err := adapter.ParseLine([]byte(l))
	if err != nil {
		fmt.Fprintln(r.W, l)
		return
	}
	switch pl.Type {
	case "assistant":
		for _, t := range pl.Texts {
			fmt.Fprintln(r.W, strings.TrimRight(t, "\n"))
		}
	case "result":
		state := "turn ended"
		if pl.IsError {
			state = "turn FAILED (" + pl.Subtype + ")"
		}
		fmt.Fprintf(r.W, "── %s: %d in / %d out tokens, $%.4f so far\n", state, pl.Usage.InputTokens, pl.Usage.OutputTokens, pl.CostUSD)
	case "system":
		if pl.Subtype == "init" {
			fmt.Fprintf(r.W, "── session %s\n", pl.SessionID)
		}
	case "control_request":
		fmt.Fprintf(r.W, "? asks to use %s: %s\n", pl.Tool, pl.Input)
	case "user":
		if text := userText(l); text != "" {
			fmt.Fprintf(r.W, "» %s\n", OneLineText(text))
		}
	}
}

// userText is the text of a stream-json user message (what hive sent, or a
// tool result); "" when it has none.
func userText(l string) string {
	var m struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal([]byte(l), &m) != nil || len(m.Message.Content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(m.Message.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(m.Message.Content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		} // tool results stay out: they echo what the agent did
	}
	return strings.Join(parts, " ")
}
