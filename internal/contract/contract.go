package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// DefaultMaxAttempts is how many times a role runs before a report that
// breaks its contract goes to a human, when the contract does not say.
const DefaultMaxAttempts = 2

// Where a contract came from, in the order they are looked for.
const (
	FromProject = "project" // .hive/contracts/ROLE.json in the repository
	FromGlobal  = "global"  // ~/.hive/global/contracts/ROLE.json or ~/.hive/contracts/ROLE.json
	FromBundled = "bundled" // built into hive
)

// The types a field may have, as a contract file names them.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeArray   = "array"
	TypeObject  = "object"
)

// Contract is the report a role must end with. The contracts Load and
// Bundled return hold the routing fields every role shares (status, and
// what each status needs) before the role's own.
type Contract struct {
	Role        string  `json:"role"`
	Description string  `json:"description,omitempty"`
	MaxAttempts int     `json:"max_attempts,omitempty"` // 0: DefaultMaxAttempts
	Fields      []Field `json:"fields"`

	// Origin is project, global or bundled; File the file it was read from
	// (for a bundled contract, its name in hive).
	Origin string `json:"origin,omitempty"`
	File   string `json:"file,omitempty"`
	// Unmapped says, one sentence each naming the file and the field, what
	// of a shell Hive contract file hive could not carry over.
	Unmapped []string `json:"unmapped,omitempty"`
}

// Field is one key of a report, or of an object inside one.
type Field struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"` // one of the Type constants; "" takes any value
	// Required: the report must give the field (a value that is not null,
	// not an empty string and not an empty list or object).
	Required bool `json:"required,omitempty"`
	// RequiredWhen: the field is required when the report's status is one
	// of these.
	RequiredWhen []string `json:"required_when,omitempty"`
	// Or names fields that meet the requirement in this one's stead.
	Or       []string `json:"or,omitempty"`
	Values   []string `json:"values,omitempty"` // the values a string may take
	Min      *float64 `json:"min,omitempty"`    // numbers
	Max      *float64 `json:"max,omitempty"`
	MinItems int      `json:"min_items,omitempty"` // arrays
	MaxItems int      `json:"max_items,omitempty"` // 0: no limit
	Items    *Field   `json:"items,omitempty"`     // each entry of an array (its Name unused)
	Fields   []Field  `json:"fields,omitempty"`    // an object's keys
	About    string   `json:"description,omitempty"`
}

// Attempts is how many times the role runs before a human is asked.
func (c Contract) Attempts() int {
	if c.MaxAttempts > 0 {
		return c.MaxAttempts
	}
	return DefaultMaxAttempts
}

// Required lists the top-level fields a report must give, each with the
// statuses that require it when not all do: "status", "summary (complete)",
// "blocker or summary (needs_input)".
func (c Contract) Required() []string {
	var out []string
	for _, f := range c.Fields {
		if !f.Required && len(f.RequiredWhen) == 0 {
			continue
		}
		s := strings.Join(append([]string{f.Name}, f.Or...), " or ")
		if !f.Required {
			s += " (" + strings.Join(f.RequiredWhen, ", ") + ")"
		}
		out = append(out, s)
	}
	return out
}

// Field returns the top-level field of that name.
func (c Contract) Field(name string) (Field, bool) {
	for _, f := range c.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Validate checks a report against its role's contract and returns what
// is wrong, one short sentence a problem naming the field and its fix, in
// the contract's order; none for a good report. Keys hive does not read
// (the report's Extra) are checked like the others.
func Validate(c Contract, r work.Report) []string {
	return ValidateMap(c, reportMap(r))
}

// ValidateMap is Validate for a report as decoded JSON (a JSON object read
// with encoding/json into map[string]any).
func ValidateMap(c Contract, obj map[string]any) []string {
	status, _ := obj["status"].(string)
	var errs []string
	checkObject(&errs, c.Fields, obj, "", status)
	return errs
}

// reportMap is the report as the JSON an agent wrote: work.Report's
// fields, with Extra's keys beside them rather than under "extra".
func reportMap(r work.Report) map[string]any {
	extra := r.Extra
	r.Extra = nil
	obj := map[string]any{}
	if b, err := json.Marshal(r); err == nil {
		_ = json.Unmarshal(b, &obj)
	}
	for k, raw := range extra {
		if _, known := obj[k]; known {
			continue // the typed field is what hive reads
		}
		var v any
		if json.Unmarshal(raw, &v) == nil {
			obj[k] = v
		}
	}
	return obj
}

func checkObject(errs *[]string, fields []Field, obj map[string]any, prefix, status string) {
	for _, f := range fields {
		path := prefix + f.Name
		v, ok := obj[f.Name]
		if !ok || empty(v) {
			if !f.requiredFor(status) || anyGiven(obj, f.Or) {
				continue
			}
			name := path
			if len(f.Or) > 0 {
				name += " (or " + strings.Join(f.Or, " or ") + ")"
			}
			why := "missing"
			if !f.Required {
				why = "missing (a " + status + " report needs it)"
			}
			*errs = append(*errs, fmt.Sprintf("%s: %s; give %s", name, why, f.want()))
			continue
		}
		checkValue(errs, f, v, path, status)
	}
}

func (f Field) requiredFor(status string) bool {
	return f.Required || (status != "" && slices.Contains(f.RequiredWhen, status))
}

func anyGiven(obj map[string]any, names []string) bool {
	for _, n := range names {
		if v, ok := obj[n]; ok && !empty(v) {
			return true
		}
	}
	return false
}

// empty is a value that gives nothing: an agent's "" or [] is a field left
// out.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func checkValue(errs *[]string, f Field, v any, path, status string) {
	bad := func(format string, a ...any) {
		*errs = append(*errs, path+": "+fmt.Sprintf(format, a...)+"; give "+f.want())
	}
	switch f.Type {
	case TypeString:
		if _, ok := v.(string); !ok {
			bad("%s is %s, not %s", show(v), kind(v), typeName(f.Type))
			return
		}
	case TypeInteger, TypeNumber:
		n, ok := v.(float64)
		if !ok {
			bad("%s is %s, not %s", show(v), kind(v), typeName(f.Type))
			return
		}
		if f.Type == TypeInteger && n != math.Trunc(n) {
			bad("%s is not a whole number", show(v))
			return
		}
		if f.Min != nil && n < *f.Min {
			bad("%s is below %s", show(v), num(*f.Min))
			return
		}
		if f.Max != nil && n > *f.Max {
			bad("%s is above %s", show(v), num(*f.Max))
			return
		}
	case TypeBoolean:
		if _, ok := v.(bool); !ok {
			bad("%s is %s, not %s", show(v), kind(v), typeName(f.Type))
			return
		}
	case TypeArray:
		list, ok := v.([]any)
		if !ok {
			bad("%s is %s, not %s", show(v), kind(v), typeName(f.Type))
			return
		}
		if len(list) < f.MinItems {
			*errs = append(*errs, fmt.Sprintf("%s: %s; give at least %d", path, entries(len(list)), f.MinItems))
		}
		if f.MaxItems > 0 && len(list) > f.MaxItems {
			*errs = append(*errs, fmt.Sprintf("%s: %s; give at most %d", path, entries(len(list)), f.MaxItems))
		}
		if f.Items != nil {
			for i, it := range list {
				p := fmt.Sprintf("%s[%d]", path, i)
				if empty(it) {
					*errs = append(*errs, fmt.Sprintf("%s: empty; give %s", p, f.Items.want()))
					continue
				}
				checkValue(errs, *f.Items, it, p, status)
			}
		}
		return
	case TypeObject:
		obj, ok := v.(map[string]any)
		if !ok {
			bad("%s is %s, not %s", show(v), kind(v), typeName(f.Type))
			return
		}
		checkObject(errs, f.Fields, obj, path+".", status)
		return
	}
	if len(f.Values) > 0 {
		if s, ok := v.(string); !ok || !slices.Contains(f.Values, s) {
			bad("%s is not allowed", show(v))
		}
	}
}

// want says what a field takes, for the fix half of an error.
func (f Field) want() string {
	if len(f.Values) > 0 {
		return "one of " + strings.Join(f.Values, ", ")
	}
	var s string
	switch f.Type {
	case TypeString:
		s = "a string"
	case TypeInteger:
		switch {
		case f.Min != nil && *f.Min == 1:
			s = "a positive whole number"
		case f.Min != nil && *f.Min == 0:
			s = "a whole number, 0 or more"
		default:
			s = "a whole number"
		}
	case TypeNumber:
		s = "a number"
	case TypeBoolean:
		s = "true or false"
	case TypeArray:
		s = "a list"
		if f.Items != nil && f.Items.Type == TypeString {
			s = "a list of strings"
		} else if f.Items != nil && f.Items.Type == TypeObject {
			s = "a list of objects"
		}
		if f.MinItems > 1 {
			s += fmt.Sprintf(" of at least %d", f.MinItems)
		}
	case TypeObject:
		s = "an object"
	default:
		s = "a value"
	}
	if f.Type == TypeInteger || f.Type == TypeNumber {
		switch {
		case f.Min != nil && f.Max != nil:
			s += fmt.Sprintf(" from %s to %s", num(*f.Min), num(*f.Max))
		case f.Min != nil && *f.Min != 0 && *f.Min != 1:
			s += " of at least " + num(*f.Min)
		case f.Max != nil:
			s += " of at most " + num(*f.Max)
		}
	}
	if f.Type == TypeObject && len(f.Fields) > 0 {
		var names []string
		for _, sub := range f.Fields {
			names = append(names, sub.Name)
		}
		s += " with " + strings.Join(names, ", ")
	}
	switch {
	case f.About != "" && f.Type == TypeString:
		return f.About // "a string: what you did" says less than "what you did"
	case f.About != "":
		s += ": " + f.About
	}
	return s
}

func typeName(t string) string {
	switch t {
	case TypeInteger, TypeNumber:
		return "a number"
	case TypeArray:
		return "a list"
	case TypeObject:
		return "an object"
	}
	return "a " + t
}

func kind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// show quotes a value for an error, cut short: the agent needs to find it,
// not to read it again.
func show(v any) string {
	switch x := v.(type) {
	case []any:
		return "the list"
	case map[string]any:
		return "the object"
	case float64:
		return num(x)
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + `…"`
	}
	return s
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
