package pipeline

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Roles hive knows. The implementers of a workflow that has an architect
// are the executors of the architect's plans, run in parallel as a phase;
// without an architect the implementer is one agent.
const (
	RoleArchitect   = "architect"
	RoleImplementer = "implementer"
	RoleUIDesigner  = "ui-designer"
	RoleComb        = "comb"
	RoleTester      = "tester"
	RoleReviewer    = "reviewer"
	RoleDocumenter  = "documenter"
)

// Roles lists the roles a workflow may name.
var Roles = []string{RoleArchitect, RoleImplementer, RoleUIDesigner, RoleComb, RoleTester, RoleReviewer, RoleDocumenter}

// Workflow is a pipeline's roles in order: data, read from
// .hive/workflows/NAME.json or built in.
type Workflow struct {
	Name  string `json:"name"`
	Steps []Step `json:"steps"`
	// FixLoops is how many times failing tests go back to the implementer
	// before a human is asked; 0 means 2.
	FixLoops int `json:"fix_loops,omitempty"`
}

// Step is one role of a workflow.
type Step struct {
	Role string `json:"role"`
	// Prompt names a variant of the role's prompt ("vue-implementer"); ""
	// is the role's own.
	Prompt string `json:"prompt,omitempty"`
}

// Built-in workflows.
var (
	Full = Workflow{Name: "full", Steps: []Step{{Role: RoleArchitect}, {Role: RoleImplementer}, {Role: RoleComb},
		{Role: RoleTester}, {Role: RoleReviewer}, {Role: RoleDocumenter}}}
	Quick = Workflow{Name: "quick", Steps: []Step{{Role: RoleImplementer}, {Role: RoleTester}}}
)

// Builtin returns the built-in workflow of that name.
func Builtin(name string) (Workflow, bool) {
	switch name {
	case Full.Name, "feature": // feature is the shell Hive's name of full
		return Full, true
	case Quick.Name:
		return Quick, true
	}
	return Workflow{}, false
}

// ParseWorkflow reads a workflow file's JSON; name is the file's, for
// errors.
func ParseWorkflow(name string, data []byte) (Workflow, error) {
	var w Workflow
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return w, fmt.Errorf("%s: %v (a workflow is {\"name\": \"...\", \"steps\": [{\"role\": \"architect\"}, ...]})", name, err)
	}
	if w.Name == "" {
		w.Name = strings.TrimSuffix(name[strings.LastIndex(name, "/")+1:], ".json")
	}
	return w, w.Validate(name)
}

// Validate refuses a workflow hive cannot run, saying how to fix it.
func (w Workflow) Validate(name string) error {
	if len(w.Steps) == 0 {
		return fmt.Errorf("%s: the workflow has no steps: list its roles, e.g. \"steps\": [{\"role\": \"implementer\"}, {\"role\": \"tester\"}]", name)
	}
	seen := map[string]bool{}
	for i, s := range w.Steps {
		if !slices.Contains(Roles, s.Role) {
			return fmt.Errorf("%s: step %d: unknown role %q (roles: %s)", name, i+1, s.Role, strings.Join(Roles, ", "))
		}
		if s.Prompt != "" && !promptName.MatchString(s.Prompt) {
			return fmt.Errorf("%s: step %d: prompt %q: name a file of .hive/agents without its .md, in letters, digits, - and _", name, i+1, s.Prompt)
		}
		if seen[s.Role] {
			return fmt.Errorf("%s: step %d: role %s comes twice; a role runs once per workflow (challenges and fix loops re-run it)", name, i+1, s.Role)
		}
		seen[s.Role] = true
	}
	if w.FixLoops < 0 {
		return fmt.Errorf("%s: fix_loops is %d: give 0 (the default, 2) or more", name, w.FixLoops)
	}
	return nil
}

var promptName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Has reports whether the workflow runs role.
func (w Workflow) Has(role string) bool {
	return slices.ContainsFunc(w.Steps, func(s Step) bool { return s.Role == role })
}

func (w Workflow) fixLoops() int {
	if w.FixLoops == 0 {
		return 2
	}
	return w.FixLoops
}
