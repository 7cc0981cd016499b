package stream

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadInput turns stdin's stream-json user messages into texts on msgs and
// closes eof when stdin ends. Lines it cannot use are reported on stderr and
// skipped, as Claude Code does.
func ReadInput(r io.Reader, msgs chan<- string, eof chan<- struct{}, stderr io.Writer) {
	defer close(eof)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if text, perr := UserText(line); perr != nil {
				fmt.Fprintf(stderr, "hive sim: ignoring input line: %v\n", perr)
			} else {
				msgs <- text
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(stderr, "hive sim: reading stdin: %v\n", err)
			}
			return
		}
	}
}

// UserText extracts the text of a {"type":"user"} line; content is a string
// or an array of {"type":"text"} blocks.
func UserText(line []byte) (string, error) {
	var m struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	if m.Type != "user" {
		return "", fmt.Errorf("type %q is not supported by the sim", m.Type)
	}
	var s string
	if err := json.Unmarshal(m.Message.Content, &s); err == nil {
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Message.Content, &blocks); err != nil {
		return "", fmt.Errorf("message content is neither a string nor blocks: %w", err)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}
