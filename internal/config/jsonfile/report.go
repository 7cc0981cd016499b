package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Error is a bad value or bad syntax in a JSON file.
type Error struct {
	File string // as named to the user, e.g. ".planning/config.json"; "" when parsed from bytes
	Line int    // 1-based; 0 when unknown
	Key  string // dotted key path, e.g. "parallelization.max_concurrent_agents"; "" for syntax errors
	Msg  string // what is wrong and what is accepted
}

func (e *Error) Error() string {
	var b strings.Builder
	if loc := location(e.File, e.Line); loc != "" {
		b.WriteString(loc + ": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// location renders "file:line", "file" or "line N".
func location(file string, line int) string {
	switch {
	case file != "" && line > 0:
		return fmt.Sprintf("%s:%d", file, line)
	case line > 0:
		return fmt.Sprintf("line %d", line)
	}
	return file
}

// Report holds what one file's decoding has found: its bad values and its
// notes, each placed at the line of its key.
type Report struct {
	File  string         // as named to the user; "" when decoded from bytes
	Lines map[string]int // key path → line of the key (KeyLines)
	errs  []error
	notes []note
}

type note struct {
	line int
	text string
}

// Fail records raw, the value at path, as not allowed, saying what is
// accepted instead.
func (r *Report) Fail(path string, raw json.RawMessage, accept string) {
	r.errs = append(r.errs, &Error{
		File: r.File, Line: r.Lines[path], Key: path,
		Msg: fmt.Sprintf("%s is not allowed; use %s", Show(raw), accept),
	})
}

// Note records msg about the key at path ("" for the whole file), which
// is no error.
func (r *Report) Note(path, msg string) {
	line := r.Lines[path]
	text := msg
	if path != "" {
		text = path + ": " + msg
	}
	if loc := location(r.File, line); loc != "" {
		text = loc + ": " + text
	}
	r.notes = append(r.notes, note{line, text})
}

// Notes are the notes recorded, in the order of their lines.
func (r *Report) Notes() []string {
	sort.SliceStable(r.notes, func(i, j int) bool { return r.notes[i].line < r.notes[j].line })
	out := make([]string, len(r.notes))
	for i, n := range r.notes {
		out[i] = n.text
	}
	return out
}

// Err joins the errors Fail recorded; nil when there are none.
func (r *Report) Err() error { return errors.Join(r.errs...) }

// SyntaxError turns err, json's error for data, into an *Error at its line,
// with a hint for the slips people make in JSON written by hand.
func (r *Report) SyntaxError(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		msg := "invalid JSON: " + syn.Error()
		switch {
		case strings.Contains(msg, "invalid character '/'"):
			msg += " (JSON allows no comments)"
		case strings.Contains(msg, "looking for beginning of object key string"),
			strings.Contains(msg, "invalid character ']' looking for beginning of value"):
			msg += " (is there a comma before it? JSON allows no trailing commas)"
		}
		return &Error{File: r.File, Line: lineAt(data, syn.Offset-1), Msg: msg}
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return &Error{File: r.File, Line: lineAt(data, typ.Offset-1), Msg: fmt.Sprintf("a JSON %s is not allowed; use a JSON object", typ.Value)}
	}
	return &Error{File: r.File, Msg: err.Error()}
}

// KeyLines maps the dotted path of every object key in data (valid JSON) to
// the line of the key, for messages. Array elements are named "key[i]".
func KeyLines(data []byte) map[string]int {
	type frame struct {
		path    string
		object  bool
		wantKey bool   // in an object: the next string is a key
		key     string // in an object: the key of the value being read
		index   int    // in an array: the index of the value being read
	}
	lines := map[string]int{}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(data))
	line, pos := 1, 0
	lineOf := func(off int) int { // offsets only grow, so count newlines once
		for ; pos < off && pos < len(data); pos++ {
			if data[pos] == '\n' {
				line++
			}
		}
		return line
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return lines
		}
		n := len(stack) - 1
		if n >= 0 && stack[n].wantKey {
			if k, ok := tok.(string); ok {
				stack[n].key, stack[n].wantKey = k, false
				lines[Join(stack[n].path, k)] = lineOf(int(dec.InputOffset()) - 1)
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			path := ""
			if n >= 0 {
				if stack[n].object {
					path = Join(stack[n].path, stack[n].key)
				} else {
					path = fmt.Sprintf("%s[%d]", stack[n].path, stack[n].index)
				}
			}
			isObject := tok == json.Delim('{')
			stack = append(stack, frame{path: path, object: isObject, wantKey: isObject})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:n]
			n--
		}
		if n >= 0 { // a value of the container on top has ended
			if stack[n].object {
				stack[n].wantKey = true
			} else {
				stack[n].index++
			}
		}
	}
}

// Join is the dotted path of key in the object at path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// Compact is raw without insignificant space.
func Compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return slices.Clone(raw) // cannot happen: raw came from a valid document
	}
	return b.Bytes()
}

// Show renders a bad value for a message, shortened when long.
func Show(raw json.RawMessage) string {
	s := string(Compact(raw))
	const limit = 60
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
