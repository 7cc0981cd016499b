package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is a bad value or bad syntax in a config file.
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

// Load reads the configuration of the repository at repoRoot:
// .planning/config.json, then .hive/config.json over it. A key set in the
// second file replaces the same key of the first; a "models" role replaces
// the same role. Both files are optional: without them Load returns Default().
func Load(repoRoot string) (*Config, error) {
	c := Default()
	// The shell Hive's simple config: its models, under hive's own files.
	if data, err := os.ReadFile(filepath.Join(repoRoot, RootFile)); err == nil {
		if err := c.overlayModels(RootFile, data); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{PlanningFile, HiveFile} {
		data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read config: %w", err)
		}
		if err := c.overlay(name, data); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// legacyKeys are top-level keys of older GSD versions and the object that now
// holds them. The nested key wins when a file has both: it is the newer form.
var legacyKeys = []struct{ key, object string }{
	{"commit_docs", "planning"},
	{"search_gitignored", "planning"},
	{"dynamic_scheduling", "parallelization"},
	{"branching_strategy", "git"},
}

// gsdOnly explains top-level keys GSD reads and hive leaves to it.
var gsdOnly = map[string]string{
	"model_profile":   `GSD's model profile; hive uses it for a Claude role whose model "models" does not set (hive models shows which)`,
	"model_overrides": `GSD's per-agent models; hive uses them for a Claude role whose model "models" does not set (hive models shows which)`,
}

var utf8BOM = []byte("\xef\xbb\xbf")

// overlay decodes data over c, setting only the keys data holds.
func (c *Config) overlay(file string, data []byte) error {
	// Editors on Windows add a byte-order mark; it is no reason to refuse a file.
	data = bytes.TrimPrefix(data, utf8BOM)
	d := &decoder{file: file}
	if len(bytes.TrimSpace(data)) == 0 {
		d.note("", "the file is empty; hive uses the defaults")
		c.notes = append(c.notes, d.sortedNotes()...)
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return d.syntaxError(data, err)
	}
	if top == nil { // the file is "null"
		return &Error{File: file, Line: 1, Msg: "null is not allowed; use a JSON object"}
	}
	d.lines = keyLines(data)

	objects := map[string]field{}
	for _, f := range c.fields() {
		objects[f.key] = f
	}
	for _, l := range legacyKeys {
		raw, ok := top[l.key]
		if !ok {
			continue
		}
		delete(top, l.key)
		for _, f := range objects[l.object].ptr.(object).fields() {
			if f.key == l.key {
				d.value(l.key, f, raw)
			}
		}
		msg := fmt.Sprintf("read as %s.%s, where a rewrite moves it", l.object, l.key)
		var nested map[string]json.RawMessage
		if json.Unmarshal(top[l.object], &nested) == nil && nested[l.key] != nil && string(nested[l.key]) != "null" {
			msg = fmt.Sprintf("ignored, since %s.%s is set too; a rewrite drops it", l.object, l.key)
		}
		d.note(l.key, msg)
	}
	d.renamedTestCommand(top, c)
	d.members("", top, c)

	c.notes = append(c.notes, d.sortedNotes()...)
	return errors.Join(d.errs...)
}

// renamedTestCommand reads tests.command, the key hive's own hint named
// before the test command had a key (commands.test), as commands.test,
// and says so; commands.test wins when the file has both. The key leaves
// top, so that a rewrite moves it.
func (d *decoder) renamedTestCommand(top map[string]json.RawMessage, c *Config) {
	var tests map[string]json.RawMessage
	if json.Unmarshal(top["tests"], &tests) != nil || tests["command"] == nil {
		return
	}
	raw := tests["command"]
	delete(tests, "command")
	if len(tests) == 0 {
		delete(top, "tests")
	} else {
		top["tests"], _ = json.Marshal(tests)
	}
	var commands map[string]json.RawMessage
	if json.Unmarshal(top["commands"], &commands) == nil && commands["test"] != nil && string(commands["test"]) != "null" {
		d.note("tests.command", "ignored, since commands.test is set too; a rewrite drops it")
		return
	}
	for _, f := range c.Commands.fields() {
		if f.key == "test" {
			d.value("tests.command", f, raw)
		}
	}
	d.note("tests.command", "read as commands.test, where a rewrite moves it")
}

// overlayModels decodes the "models" of data over c; the file's other
// keys are another tool's, and neither read nor kept.
func (c *Config) overlayModels(file string, data []byte) error {
	data = bytes.TrimPrefix(data, utf8BOM)
	d := &decoder{file: file}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return d.syntaxError(data, err)
	}
	if raw, ok := top["models"]; ok && string(raw) != "null" {
		d.lines = keyLines(data)
		d.models("models", raw, &c.Models, func() { d.fail("models", raw, `an object such as {"default": "sonnet", "architect": "opus"}`) })
	}
	return errors.Join(d.errs...)
}

// decoder holds what one file's decoding has found.
type decoder struct {
	file  string
	lines map[string]int // key path → line of the key
	errs  []error
	notes []note
}

type note struct {
	line int
	text string
}

func (d *decoder) fail(path string, raw json.RawMessage, accept string) {
	d.errs = append(d.errs, &Error{
		File: d.file, Line: d.lines[path], Key: path,
		Msg: fmt.Sprintf("%s is not allowed; use %s", show(raw), accept),
	})
}

func (d *decoder) note(path, msg string) {
	line := d.lines[path]
	text := msg
	if path != "" {
		text = path + ": " + msg
	}
	if loc := location(d.file, line); loc != "" {
		text = loc + ": " + text
	}
	d.notes = append(d.notes, note{line, text})
}

func (d *decoder) sortedNotes() []string {
	sort.SliceStable(d.notes, func(i, j int) bool { return d.notes[i].line < d.notes[j].line })
	out := make([]string, len(d.notes))
	for i, n := range d.notes {
		out[i] = n.text
	}
	return out
}

func (d *decoder) syntaxError(data []byte, err error) error {
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
		return &Error{File: d.file, Line: lineAt(data, syn.Offset-1), Msg: msg}
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return &Error{File: d.file, Line: lineAt(data, typ.Offset-1), Msg: fmt.Sprintf("a JSON %s is not allowed; use a JSON object", typ.Value)}
	}
	return &Error{File: d.file, Msg: err.Error()}
}

// members decodes the keys of one object into o. Unknown keys are kept,
// compacted, in o's unknown map, and noted.
func (d *decoder) members(path string, m map[string]json.RawMessage, o object) {
	for _, f := range o.fields() {
		if raw, ok := m[f.key]; ok {
			delete(m, f.key)
			d.value(join(path, f.key), f, raw)
		}
	}
	if len(m) == 0 {
		return
	}
	extra := o.unknown()
	if *extra == nil {
		*extra = make(map[string]json.RawMessage, len(m))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		(*extra)[k] = compact(m[k])
		msg := "not used by hive; kept as is"
		if why, ok := gsdOnly[k]; ok && path == "" {
			msg = why
		}
		d.note(join(path, k), msg)
	}
}

// value decodes raw into the field f at path and checks it.
func (d *decoder) value(path string, f field, raw json.RawMessage) {
	// null is how GSD writes "not set": the value stays as it was.
	if string(raw) == "null" {
		return
	}
	bad := func() { d.fail(path, raw, accepts(f)) }
	switch p := f.ptr.(type) {
	case *bool:
		if json.Unmarshal(raw, p) != nil {
			bad()
			return
		}
	case *string:
		if json.Unmarshal(raw, p) != nil {
			bad()
			return
		}
	case *int:
		n, ok := wholeNumber(raw)
		if !ok {
			bad()
			return
		}
		*p = n
	case *time.Duration:
		v, ok := duration(raw)
		if !ok {
			bad()
			return
		}
		*p = v
	case *[]string:
		var v []string
		if json.Unmarshal(raw, &v) != nil {
			bad()
			return
		}
		*p = v
	case *map[string]string:
		var v map[string]string
		if json.Unmarshal(raw, &v) != nil {
			bad()
			return
		}
		*p = v
	case *map[string]float64:
		var v map[string]float64
		if json.Unmarshal(raw, &v) != nil {
			bad()
			return
		}
		*p = v
	case *float64:
		if json.Unmarshal(raw, p) != nil {
			bad()
			return
		}
	case *map[string]ModelSpec:
		d.models(path, raw, p, bad)
		return
	case *map[string]Price:
		objects(d, path, raw, p, bad, `an object such as {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3}`)
		return
	case *Parallelization:
		// Older GSD versions write "parallelization": true|false.
		if string(raw) == "true" || string(raw) == "false" {
			p.Enabled = string(raw) == "true"
			return
		}
		d.object(path, raw, p, bad)
		return
	case object:
		d.object(path, raw, p, bad)
		return
	default:
		panic(fmt.Sprintf("config: field %s has unhandled type %T", path, f.ptr))
	}
	if f.valid != nil && !f.valid() {
		bad()
	}
}

func (d *decoder) object(path string, raw json.RawMessage, o object, bad func()) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		bad()
		return
	}
	d.members(path, m, o)
}

// models decodes the "models" object; each role given replaces that role.
// A role given as a name alone ("architect": "opus", the shell Hive's
// simple config) is that model on the default entry's CLI.
func (d *decoder) models(path string, raw json.RawMessage, p *map[string]ModelSpec, bad func()) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		bad()
		return
	}
	named := map[string]string{}
	for role, v := range m {
		var name string
		if json.Unmarshal(v, &name) != nil {
			continue
		}
		if strings.TrimSpace(name) == "" {
			d.fail(join(path, role), v, `a model name such as "sonnet", or an object such as {"cli": "claude", "model": "sonnet"}`)
		} else {
			named[role] = strings.TrimSpace(name)
		}
		delete(m, role)
	}
	rest, _ := json.Marshal(m)
	objects(d, path, rest, p, bad, `an object such as {"cli": "claude", "model": "sonnet"}, or a model name such as "sonnet"`)
	for role, name := range named {
		if *p == nil {
			*p = map[string]ModelSpec{}
		}
		(*p)[role] = ModelSpec{Model: name}
	}
	for role := range *p {
		if _, ok := m[role]; ok || named[role] != "" {
			spec := (*p)[role]
			spec.from = d.file
			(*p)[role] = spec
		}
	}
}

// objects decodes an object of named objects (models by role, prices by
// model) over *p; want says what each entry accepts.
func objects[T any, PT interface {
	*T
	object
}](d *decoder, path string, raw json.RawMessage, p *map[string]T, bad func(), want string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		bad()
		return
	}
	if *p == nil {
		*p = make(map[string]T, len(m))
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		entryPath := join(path, name)
		if string(m[name]) == "null" {
			continue
		}
		var v T
		d.object(entryPath, m[name], PT(&v), func() { d.fail(entryPath, m[name], want) })
		(*p)[name] = v
	}
}

// wholeNumber accepts a JSON number with no fractional part (3 or 3.0)
// within the range any int field could accept.
func wholeNumber(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// duration accepts a Go duration string ("5m", "90s") or a number of seconds.
func duration(raw json.RawMessage) (time.Duration, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		v, err := time.ParseDuration(s)
		return v, err == nil
	}
	var secs float64
	if json.Unmarshal(raw, &secs) != nil {
		return 0, false
	}
	ns := secs * float64(time.Second)
	if math.IsNaN(ns) || ns >= math.MaxInt64 || ns <= math.MinInt64 {
		return 0, false
	}
	return time.Duration(ns), true
}

// keyLines maps the dotted path of every object key in data (valid JSON) to
// the line of the key, for messages. Array elements are named "key[i]".
func keyLines(data []byte) map[string]int {
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
				lines[join(stack[n].path, k)] = lineOf(int(dec.InputOffset()) - 1)
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			path := ""
			if n >= 0 {
				if stack[n].object {
					path = join(stack[n].path, stack[n].key)
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

func join(path, key string) string {
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

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return slices.Clone(raw) // cannot happen: raw came from a valid document
	}
	return b.Bytes()
}

// show renders a bad value for a message, shortened when long.
func show(raw json.RawMessage) string {
	s := string(compact(raw))
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
