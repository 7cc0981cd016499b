package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/config/jsonfile"
)

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
	d := &decoder{jsonfile.Report{File: file}}
	if len(bytes.TrimSpace(data)) == 0 {
		d.Note("", "the file is empty; hive uses the defaults")
		c.notes = append(c.notes, d.Notes()...)
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return d.SyntaxError(data, err)
	}
	if top == nil { // the file is "null"
		return &jsonfile.Error{File: file, Line: 1, Msg: "null is not allowed; use a JSON object"}
	}
	d.Lines = jsonfile.KeyLines(data)

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
		d.Note(l.key, msg)
	}
	d.renamedTestCommand(top, c)
	d.members("", top, c)

	c.notes = append(c.notes, d.Notes()...)
	return d.Err()
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
		d.Note("tests.command", "ignored, since commands.test is set too; a rewrite drops it")
		return
	}
	for _, f := range c.Commands.fields() {
		if f.key == "test" {
			d.value("tests.command", f, raw)
		}
	}
	d.Note("tests.command", "read as commands.test, where a rewrite moves it")
}

// overlayModels decodes the "models" of data over c; the file's other
// keys are another tool's, and neither read nor kept.
func (c *Config) overlayModels(file string, data []byte) error {
	data = bytes.TrimPrefix(data, utf8BOM)
	d := &decoder{jsonfile.Report{File: file}}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return d.SyntaxError(data, err)
	}
	if raw, ok := top["models"]; ok && string(raw) != "null" {
		d.Lines = jsonfile.KeyLines(data)
		d.models("models", raw, &c.Models, func() { d.Fail("models", raw, `an object such as {"default": "sonnet", "architect": "opus"}`) })
	}
	return d.Err()
}

// decoder decodes one file into a Config, recording what it finds in its
// Report.
type decoder struct {
	jsonfile.Report
}

// members decodes the keys of one object into o. Unknown keys are kept,
// compacted, in o's unknown map, and noted.
func (d *decoder) members(path string, m map[string]json.RawMessage, o object) {
	for _, f := range o.fields() {
		if raw, ok := m[f.key]; ok {
			delete(m, f.key)
			d.value(jsonfile.Join(path, f.key), f, raw)
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
		(*extra)[k] = jsonfile.Compact(m[k])
		msg := "not used by hive; kept as is"
		if why, ok := gsdOnly[k]; ok && path == "" {
			msg = why
		}
		d.Note(jsonfile.Join(path, k), msg)
	}
}

// value decodes raw into the field f at path and checks it.
func (d *decoder) value(path string, f field, raw json.RawMessage) {
	// null is how GSD writes "not set": the value stays as it was.
	if string(raw) == "null" {
		return
	}
	bad := func() { d.Fail(path, raw, accepts(f)) }
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
		n, ok := jsonfile.WholeNumber(raw)
		if !ok {
			bad()
			return
		}
		*p = n
	case *time.Duration:
		v, ok := jsonfile.Duration(raw)
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
			d.Fail(jsonfile.Join(path, role), v, `a model name such as "sonnet", or an object such as {"cli": "claude", "model": "sonnet"}`)
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
			spec.from = d.File
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
		entryPath := jsonfile.Join(path, name)
		if string(m[name]) == "null" {
			continue
		}
		var v T
		d.object(entryPath, m[name], PT(&v), func() { d.Fail(entryPath, m[name], want) })
		(*p)[name] = v
	}
}
