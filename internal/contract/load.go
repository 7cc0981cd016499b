package contract

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed bundled
var bundledFS embed.FS

// ProjectDir is where a repository overrides a contract; GlobalDirs where a
// user does, relative to the home, in the order they are looked in: hive's
// own folder (beside ~/.hive/global/agents), then the shell Hive's, whose
// installer puts its contracts there.
const ProjectDir = ".hive/contracts"

var GlobalDirs = []string{".hive/global/contracts", ".hive/contracts"}

// bundledContracts are the routing fields every contract starts with
// (base), and the roles' own contracts, each with base's fields first. They
// are parsed when first asked for, not when hive starts: every hive
// process (a sim agent, hive answer) would pay for them otherwise.
var bundledContracts = sync.OnceValues(loadBundled)

func loadBundled() (Contract, map[string]Contract) {
	read := func(name string) Contract {
		data, err := bundledFS.ReadFile("bundled/" + name + ".json")
		if err != nil {
			panic(err)
		}
		c, err := parseHive("bundled/"+name+".json", name, data)
		if err != nil {
			panic(err) // a test reads every bundled contract
		}
		return c
	}
	b := read("base")
	entries, err := bundledFS.ReadDir("bundled")
	if err != nil {
		panic(err)
	}
	roles := map[string]Contract{}
	for _, e := range entries {
		role := strings.TrimSuffix(e.Name(), ".json")
		if role == "base" {
			continue
		}
		c := read(role)
		c.Fields = merge(b.Fields, c.Fields)
		c.Origin, c.File = FromBundled, "bundled/"+e.Name()
		roles[role] = c
	}
	return b, roles
}

// merge puts a role's fields after the routing ones; a role's field of the
// same name takes the routing field's place.
func merge(routing, own []Field) []Field {
	out := slices.Clone(routing)
	for _, f := range own {
		if i := slices.IndexFunc(out, func(g Field) bool { return g.Name == f.Name }); i >= 0 {
			out[i] = f
			continue
		}
		out = append(out, f)
	}
	return out
}

// Roles lists the roles hive bundles a contract for, sorted.
func Roles() []string {
	_, bundled := bundledContracts()
	out := make([]string, 0, len(bundled))
	for r := range bundled {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Bundled is the contract built into hive for role. A role hive bundles no
// contract for gets the routing fields alone, and false.
func Bundled(role string) (Contract, bool) {
	base, bundled := bundledContracts()
	if c, ok := bundled[role]; ok {
		return clone(c), true
	}
	c := clone(base)
	c.Role, c.Description, c.Origin, c.File = role, "", FromBundled, "bundled/base.json"
	return c, false
}

func clone(c Contract) Contract {
	c.Fields = slices.Clone(c.Fields)
	c.Unmapped = slices.Clone(c.Unmapped)
	return c
}

// Load finds role's contract for the repository at root and the user whose
// home is home ("" skips the user's): .hive/contracts/ROLE.json, then
// ~/.hive/global/contracts/ROLE.json and ~/.hive/contracts/ROLE.json, then
// the bundled one. A file that is there but cannot be read as a contract
// is an error naming the file and the field, not a silent fallback: its
// author meant it to apply.
func Load(root, home, role string) (Contract, error) {
	for _, p := range places(root, home) {
		file := filepath.Join(p.dir, role+".json")
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Contract{}, fmt.Errorf("read the %s contract of %s: %w", p.origin, role, err)
		}
		c, err := Parse(file, role, data)
		if err != nil {
			return Contract{}, err
		}
		c.Origin = p.origin
		return c, nil
	}
	c, _ := Bundled(role)
	return c, nil
}

// Entry is one role's contract as LoadAll finds it: the contract, or the
// error of the file that overrides it.
type Entry struct {
	Role     string
	Contract Contract
	Err      error
}

// LoadAll loads the contract of every bundled role and of every role a
// contract file names in the project's and the user's folders, sorted by
// role.
func LoadAll(root, home string) []Entry {
	names := Roles()
	for _, p := range places(root, home) {
		files, _ := filepath.Glob(filepath.Join(p.dir, "*.json"))
		for _, f := range files {
			if r := strings.TrimSuffix(filepath.Base(f), ".json"); !slices.Contains(names, r) {
				names = append(names, r)
			}
		}
	}
	sort.Strings(names)
	out := make([]Entry, 0, len(names))
	for _, r := range names {
		c, err := Load(root, home, r)
		out = append(out, Entry{Role: r, Contract: c, Err: err})
	}
	return out
}

type place struct{ dir, origin string }

func places(root, home string) []place {
	out := []place{{filepath.Join(root, ProjectDir), FromProject}}
	if home != "" {
		for _, d := range GlobalDirs {
			out = append(out, place{filepath.Join(home, d), FromGlobal})
		}
	}
	return out
}

// Parse reads a contract file for role: hive's format (role, description,
// max_attempts, fields), or the shell Hive's (agent, outputs, validation,
// on_failure), which is mapped onto hive's bundled contract for the role
// as far as it can be; what cannot is said in the contract's Unmapped.
// Errors name the file and the field, and how to fix it.
func Parse(file, role string, data []byte) (Contract, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		why := "null"
		if err != nil {
			why = err.Error()
		}
		return Contract{}, fmt.Errorf("%s: not a JSON object (%s); write {\"role\": %q, \"fields\": [...]}", file, why, role)
	}
	_, hasFields := top["fields"]
	_, hasOutputs := top["outputs"]
	_, hasAgent := top["agent"]
	if !hasFields && (hasOutputs || hasAgent) {
		return parseShell(file, role, top)
	}
	c, err := parseHive(file, role, data)
	if err != nil {
		return Contract{}, err
	}
	base, _ := bundledContracts()
	c.Fields = merge(base.Fields, c.Fields)
	c.File = file
	return c, nil
}

var contractKeys = []string{"role", "description", "max_attempts", "fields"}

var fieldKeys = []string{"name", "type", "required", "required_when", "or", "values", "min", "max", "min_items", "max_items", "items", "fields", "description"}

var types = []string{TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeArray, TypeObject}

// parseHive reads hive's own format, strictly: a key it does not know is
// most likely a typo that would silently loosen the contract.
func parseHive(file, role string, data []byte) (Contract, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Contract{}, fmt.Errorf("%s: not a JSON object: %v", file, err)
	}
	p := parser{file: file}
	c := Contract{Role: role}
	for _, k := range sortedKeys(top) {
		v := top[k]
		switch k {
		case "role":
			var r string
			p.decode(v, &r, "role", "a string")
			if p.err == nil && r != role {
				p.fail("role", fmt.Sprintf("says %q, but the file is for %s; rename the file to %s.json or fix role", r, role, r))
			}
		case "description":
			p.decode(v, &c.Description, "description", "a string")
		case "max_attempts":
			p.decode(v, &c.MaxAttempts, "max_attempts", "a whole number of at least 1")
			if p.err == nil && c.MaxAttempts < 1 {
				p.fail("max_attempts", "must be at least 1 (the first attempt counts); leave it out for the default of 2")
			}
		case "fields":
			c.Fields = p.fields(v, "fields")
		default:
			p.fail(k, "unknown key; a contract has "+strings.Join(contractKeys, ", "))
		}
		if p.err != nil {
			return Contract{}, p.err
		}
	}
	return c, nil
}

type parser struct {
	file string
	err  error
}

func (p *parser) fail(path, msg string) {
	if p.err == nil {
		p.err = fmt.Errorf("%s: %s: %s", p.file, path, msg)
	}
}

func (p *parser) decode(raw json.RawMessage, v any, path, want string) {
	if p.err != nil {
		return
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if err := d.Decode(v); err != nil {
		p.fail(path, fmt.Sprintf("%s is not %s", strings.TrimSpace(string(raw)), want))
	}
}

func (p *parser) fields(raw json.RawMessage, path string) []Field {
	var list []json.RawMessage
	p.decode(raw, &list, path, "a list of fields")
	var out []Field
	seen := map[string]bool{}
	for i, it := range list {
		f := p.field(it, fmt.Sprintf("%s[%d]", path, i), true)
		if p.err != nil {
			return nil
		}
		if seen[f.Name] {
			p.fail(fmt.Sprintf("%s[%d].name", path, i), fmt.Sprintf("%q is there twice; keep one", f.Name))
			return nil
		}
		seen[f.Name] = true
		out = append(out, f)
	}
	return out
}

func (p *parser) field(raw json.RawMessage, path string, named bool) Field {
	var obj map[string]json.RawMessage
	p.decode(raw, &obj, path, `an object such as {"name": "summary", "type": "string", "required": true}`)
	var f Field
	for _, k := range sortedKeys(obj) {
		v, at := obj[k], path+"."+k
		switch k {
		case "name":
			p.decode(v, &f.Name, at, "a string")
		case "type":
			p.decode(v, &f.Type, at, "a string")
			if p.err == nil && !slices.Contains(types, f.Type) {
				p.fail(at, fmt.Sprintf("%q is not a type; use one of %s", f.Type, strings.Join(types, ", ")))
			}
		case "required":
			p.decode(v, &f.Required, at, "true or false")
		case "required_when":
			p.decode(v, &f.RequiredWhen, at, `a list of statuses, such as ["complete"]`)
			for _, s := range f.RequiredWhen {
				if p.err == nil && !slices.Contains(statuses, s) {
					p.fail(at, fmt.Sprintf("%q is not a status; use %s", s, strings.Join(statuses, ", ")))
				}
			}
		case "or":
			p.decode(v, &f.Or, at, "a list of field names")
		case "values":
			p.decode(v, &f.Values, at, "a list of strings")
		case "min":
			p.decode(v, &f.Min, at, "a number")
		case "max":
			p.decode(v, &f.Max, at, "a number")
		case "min_items":
			p.decode(v, &f.MinItems, at, "a whole number")
		case "max_items":
			p.decode(v, &f.MaxItems, at, "a whole number")
		case "items":
			it := p.field(v, at, false)
			f.Items = &it
		case "fields":
			f.Fields = p.fields(v, at)
		case "description":
			p.decode(v, &f.About, at, "a string")
		default:
			p.fail(at, "unknown key; a field has "+strings.Join(fieldKeys, ", "))
		}
	}
	if p.err != nil {
		return Field{}
	}
	switch {
	case named && strings.TrimSpace(f.Name) == "":
		p.fail(path+".name", "missing; give the report key the field checks")
	case !named && f.Name != "":
		p.fail(path+".name", "an array's items have no name; remove it")
	case f.Items != nil && f.Type != TypeArray:
		p.fail(path+".items", `only an array has items; set "type": "array" or remove items`)
	case len(f.Fields) > 0 && f.Type != TypeObject:
		p.fail(path+".fields", `only an object has fields; set "type": "object" or remove fields`)
	case len(f.Values) > 0 && f.Type != TypeString && f.Type != "":
		p.fail(path+".values", `values are strings; set "type": "string" or remove values`)
	case f.MinItems < 0 || f.MaxItems < 0 || (f.MaxItems > 0 && f.MaxItems < f.MinItems):
		p.fail(path+".max_items", "the limits contradict each other; give 0 ≤ min_items ≤ max_items")
	case f.Min != nil && f.Max != nil && *f.Min > *f.Max:
		p.fail(path+".max", "is below min; give min ≤ max")
	}
	return f
}

var statuses = []string{"complete", "partial", "blocked", "challenge", "needs_input"}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// The order of the file is lost; the order of the format is the one
	// a reader expects errors in.
	order := append(append([]string{}, contractKeys...), fieldKeys...)
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := slices.Index(order, keys[i]), slices.Index(order, keys[j])
		if a < 0 {
			a = len(order)
		}
		if b < 0 {
			b = len(order)
		}
		if a != b {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}
