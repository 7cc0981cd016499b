package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// shellTypes maps the shell Hive's output types onto hive's.
var shellTypes = map[string]string{
	"string":  TypeString,
	"list":    TypeArray,
	"array":   TypeArray,
	"number":  TypeNumber,
	"integer": TypeInteger,
	"boolean": TypeBoolean,
	"object":  TypeObject,
	"enum":    TypeString,
}

// parseShell maps a contract file of the shell Hive onto hive's bundled
// contract for the role. The shell Hive never checked a report against
// its outputs (its validator runs only named pre and post checks), and its
// outputs name Beads-era keys hive's prompts do not ask for (tasks_created,
// issues_filed); requiring them would fail every report of a user who
// installed it. So its outputs are checked for their type and values when
// a report gives them, its max_attempts is kept, and the rest is said in
// Unmapped, one sentence a field.
func parseShell(file, role string, top map[string]json.RawMessage) (Contract, error) {
	c, _ := Bundled(role)
	c.File, c.Unmapped = file, nil
	p := parser{file: file}
	note := func(field, msg string) { c.Unmapped = append(c.Unmapped, fmt.Sprintf("%s: %s: %s", file, field, msg)) }

	var agent string
	if v, ok := top["agent"]; ok {
		p.decode(v, &agent, "agent", "a string")
		if p.err == nil && agent != role {
			note("agent", fmt.Sprintf("says %q, but the file is named for %s; hive goes by the file name", agent, role))
		}
	}
	if v, ok := top["description"]; ok {
		p.decode(v, &c.Description, "description", "a string")
	}
	if v, ok := top["outputs"]; ok {
		c.Fields = p.shellOutputs(v, c.Fields, note)
	}
	if v, ok := top["on_failure"]; ok {
		c.MaxAttempts = p.shellOnFailure(v, note)
	}
	if v, ok := top["validation"]; ok {
		var val map[string][]string
		p.decode(v, &val, "validation", `an object of lists of checks, {"pre": [...], "post": [...]}`)
		for _, phase := range []string{"pre", "post"} {
			if len(val[phase]) > 0 {
				note("validation."+phase, fmt.Sprintf("the shell Hive's named checks (%s) are not run: hive builds and tests the work itself, and keeps no Beads; move what matters into the role's prompt", quoteList(val[phase])))
			}
		}
	}
	if _, ok := top["inputs"]; ok {
		note("inputs", "hive gives every role its inputs (the objective, the plans, the earlier reports) itself; ignored")
	}
	for _, k := range sortedKeys(top) {
		switch k {
		case "agent", "version", "description", "outputs", "on_failure", "validation", "inputs":
		default:
			note(k, "not part of a contract hive reads; ignored")
		}
	}
	if p.err != nil {
		return Contract{}, p.err
	}
	return c, nil
}

// shellOutputs reads outputs.required and outputs.optional into fields.
func (p *parser) shellOutputs(raw json.RawMessage, fields []Field, note func(field, msg string)) []Field {
	var outs map[string]json.RawMessage
	p.decode(raw, &outs, "outputs", `an object, {"required": {...}, "optional": {...}}`)
	var notRequired []string
	for _, group := range []string{"required", "optional"} {
		v, ok := outs[group]
		if !ok {
			continue
		}
		var specs map[string]json.RawMessage
		p.decode(v, &specs, "outputs."+group, "an object of fields")
		for _, name := range sortedKeys(specs) {
			at := "outputs." + group + "." + name
			var spec struct {
				Type        string   `json:"type"`
				Values      []string `json:"values"`
				Description string   `json:"description"`
			}
			p.decode(specs[name], &spec, at, `an object such as {"type": "string", "description": "..."}`)
			if p.err != nil {
				return fields
			}
			t, known := shellTypes[spec.Type]
			if !known && spec.Type != "" {
				note(at+".type", fmt.Sprintf("%q is not a type hive knows (%s); its type is not checked", spec.Type, strings.Join(sortedShellTypes(), ", ")))
			}
			i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
			if i < 0 {
				fields = append(fields, Field{Name: name, About: spec.Description})
				i = len(fields) - 1
			}
			f := &fields[i]
			if t != "" && f.Type != t {
				// The file's type wins; what the bundled field said of its
				// entries or keys no longer applies to another type.
				f.Type, f.Items, f.Fields, f.Min, f.Max, f.MinItems, f.MaxItems = t, nil, nil, nil, nil, 0, 0
			}
			if spec.Type == "enum" || len(spec.Values) > 0 {
				if len(spec.Values) == 0 {
					note(at+".values", "an enum without values; any string is taken")
				}
				f.Values = spec.Values
				if f.Type == "" {
					f.Type = TypeString
				}
			}
			if group == "required" && !f.Required && len(f.RequiredWhen) == 0 {
				notRequired = append(notRequired, name)
			}
		}
	}
	if len(notRequired) > 0 {
		note("outputs.required", fmt.Sprintf("%s %s checked when a report gives %s, not required: the shell Hive never checked the outputs its contracts name, and hive's prompts do not ask for these keys; to require a field, write a hive contract (hive contracts list --json shows the format)",
			strings.Join(notRequired, ", "), map[bool]string{true: "is", false: "are"}[len(notRequired) == 1], map[bool]string{true: "it", false: "them"}[len(notRequired) == 1]))
	}
	return fields
}

// shellOnFailure reads on_failure: its retry.max_attempts is kept; hive
// words its own feedback and always asks a human after the last attempt.
func (p *parser) shellOnFailure(raw json.RawMessage, note func(field, msg string)) int {
	var of struct {
		Retry struct {
			MaxAttempts *float64 `json:"max_attempts"`
			Backoff     string   `json:"backoff"`
			Feedback    string   `json:"feedback"`
		} `json:"retry"`
		Escalate struct {
			Action  string `json:"action"`
			Message string `json:"message"`
		} `json:"escalate"`
	}
	p.decode(raw, &of, "on_failure", `an object, {"retry": {"max_attempts": 2}, "escalate": {...}}`)
	if p.err != nil {
		return 0
	}
	n := 0
	if m := of.Retry.MaxAttempts; m != nil {
		if *m < 1 || *m != float64(int(*m)) {
			p.fail("on_failure.retry.max_attempts", fmt.Sprintf("%v is not a whole number of at least 1; give the number of attempts, the first included", *m))
			return 0
		}
		n = int(*m)
	}
	if of.Retry.Feedback != "" || of.Escalate.Message != "" {
		note("on_failure", "hive words its own retry feedback (the report's contract errors) and its own question to the human; feedback and message are ignored")
	}
	if of.Retry.Backoff != "" && of.Retry.Backoff != "none" {
		note("on_failure.retry.backoff", "hive asks again at once, with the errors; ignored")
	}
	if a := of.Escalate.Action; a != "" && a != "checkpoint_human" {
		note("on_failure.escalate.action", fmt.Sprintf("%q: hive asks a human after the last attempt (checkpoint_human)", a))
	}
	return n
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func sortedShellTypes() []string {
	out := make([]string, 0, len(shellTypes))
	for t := range shellTypes {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
