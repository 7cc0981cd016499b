package workflows

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/words"
)

// Roles hive knows. The implementers of a workflow that has an architect
// are the executors of the architect's plans, run in parallel as a phase;
// without an architect the implementer is one agent.
const (
	RoleInterviewer      = "interviewer"
	RoleArchitect        = "architect"
	RoleImplementer      = "implementer"
	RoleDebugger         = "debugger"
	RoleMigrator         = "migrator"
	RoleUIDesigner       = "ui-designer"
	RoleComb             = "comb"
	RoleTester           = "tester"
	RoleE2ETester        = "e2e-tester"
	RoleComponentTester  = "component-tester"
	RoleBrowserValidator = "browser-validator"
	RoleReviewer         = "reviewer"
	RoleSecurity         = "security"
	RoleDocumenter       = "documenter"
)

// Roles lists the roles a workflow may name.
var Roles = []string{RoleInterviewer, RoleArchitect, RoleImplementer, RoleDebugger, RoleMigrator, RoleUIDesigner, RoleComb,
	RoleTester, RoleE2ETester, RoleComponentTester, RoleBrowserValidator, RoleReviewer, RoleSecurity, RoleDocumenter}

// ReadOnly roles look and report; they change no file of the run's
// worktree, so they may work beside one that does. Every other role
// writes, and two writers never work in one worktree at once.
var ReadOnly = []string{RoleInterviewer, RoleReviewer, RoleSecurity}

// Mechanical steps: hive does them itself, with no model.
const (
	// StepBuild runs the project's build (go, npm/pnpm/yarn scripts,
	// cargo, make); a failure goes to the step's on_failure role with the
	// output.
	StepBuild = "build"
	// StepFixBlocking sends the open blocker findings of the reviewers to
	// a fix loop.
	StepFixBlocking = "fix_blocking"
)

// Conditions a step may have, evaluated by hive from the repository
// (Spec.Facts).
const (
	CondHasFrontend = "has_frontend"
	CondHasTests    = "has_tests"
)

// Conditions lists the conditions a step may name.
var Conditions = []string{CondHasFrontend, CondHasTests}

// Workflow is a pipeline's steps: data, read from .hive/workflows/NAME.json
// or built in.
type Workflow struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Steps       []Step `json:"steps"`
	// FixLoops is how many times failing tests (or a failing build) go
	// back to be fixed before a human is asked; 0 means 2.
	FixLoops int `json:"fix_loops,omitempty"`
}

// Step is one step of a workflow: a role's agent, or a mechanical step.
type Step struct {
	// Name is the step's job in the run; "" is its role, or its type.
	Name string `json:"name,omitempty"`
	Role string `json:"role,omitempty"`
	// Type is "" for a role's agent, or a mechanical step (StepBuild,
	// StepFixBlocking).
	Type string `json:"type,omitempty"`
	// Prompt names a variant of the role's prompt ("vue-implementer"); ""
	// is the role's own.
	Prompt string `json:"prompt,omitempty"`
	// Task is said to the role's agent beside the objective.
	Task string `json:"task,omitempty"`
	// Required (the default) asks a human when the step fails (blocked,
	// or crashing twice); a step that is not required is left out with a
	// note and the run goes on.
	Required *bool `json:"required,omitempty"`
	// Condition runs the step only when it holds of the repository.
	Condition string `json:"condition,omitempty"`
	// Checkpoint asks a human to look at the step's work before the run
	// goes on (never with --yes).
	Checkpoint bool `json:"checkpoint,omitempty"`
	// OnFailure is the role that fixes what the step found failing (the
	// build's errors, the tests); "" is the implementer.
	OnFailure string `json:"on_failure,omitempty"`
	// After names the steps this one waits for; nil is the step before
	// it, and [] none. Steps that wait for the same ones run side by side.
	After []string `json:"after,omitempty"`
}

// Optional says the step is not required.
func (s Step) Optional() bool { return s.Required != nil && !*s.Required }

// ID is the step's job id.
func (s Step) ID() string { return words.First(s.Name, s.Role, s.Type) }

// After returns the ids of the steps the step of index i waits for.
func (w Workflow) After(i int) []string {
	if w.Steps[i].After != nil {
		return w.Steps[i].After
	}
	if i == 0 {
		return nil
	}
	return []string{w.Steps[i-1].ID()}
}

// step builds a built-in workflow's steps.
func step(role string, opts ...func(*Step)) Step {
	s := Step{Role: role}
	for _, o := range opts {
		o(&s)
	}
	return s
}

func after(ids ...string) func(*Step) { return func(s *Step) { s.After = append([]string{}, ids...) } }
func optional(s *Step)                { s.Required = new(false) }
func checkpoint(s *Step)              { s.Checkpoint = true }
func when(cond string) func(*Step)    { return func(s *Step) { s.Condition = cond } }
func onFailure(role string) func(*Step) {
	return func(s *Step) { s.OnFailure = role }
}
func mechanical(typ string, opts ...func(*Step)) Step {
	return step("", append([]func(*Step){func(s *Step) { s.Type = typ }}, opts...)...)
}

// Built-in workflows: the shell Hive's eight, with hive's parallel steps
// (after the build, the tester, reviewer and security work side by side).
var (
	Full = Workflow{Name: "full", Description: "the whole pipeline: interview, design, parallel implementers, UI, build, tests beside review and security, documentation",
		Steps: []Step{
			step(RoleInterviewer, optional),
			step(RoleArchitect),
			step(RoleImplementer),
			step(RoleComb),
			step(RoleUIDesigner, optional, when(CondHasFrontend)),
			mechanical(StepBuild, onFailure(RoleDebugger)),
			step(RoleTester),
			step(RoleReviewer, after(StepBuild)),
			step(RoleSecurity, after(StepBuild), optional),
			step(RoleE2ETester, after(RoleTester), when(CondHasFrontend)),
			step(RoleBrowserValidator, after(RoleE2ETester), when(CondHasFrontend), optional),
			mechanical(StepFixBlocking, after(RoleReviewer, RoleSecurity, RoleBrowserValidator)),
			step(RoleDocumenter, after(StepFixBlocking, RoleTester), optional),
		}}
	Bugfix = Workflow{Name: "bugfix", Description: "the debugger reproduces, locates and fixes the bug; build and tests prove it",
		Steps: []Step{
			step(RoleDebugger),
			mechanical(StepBuild, onFailure(RoleDebugger)),
			step(RoleTester, onFailure(RoleDebugger)),
			step(RoleE2ETester, when(CondHasFrontend)),
			step(RoleBrowserValidator, when(CondHasFrontend), optional),
		}}
	Refactor = Workflow{Name: "refactor", Description: "design reviewed by a human, implementation, build, tests beside review",
		Steps: []Step{
			step(RoleArchitect, checkpoint),
			step(RoleImplementer),
			mechanical(StepBuild, onFailure(RoleDebugger)),
			step(RoleTester),
			step(RoleReviewer, after(StepBuild), optional),
		}}
	Test   = Workflow{Name: "test", Description: "write and run tests", Steps: []Step{step(RoleTester)}}
	Review = Workflow{Name: "review", Description: "review the code; blocker findings stop for a human", Steps: []Step{step(RoleReviewer)}}
	Quick  = Workflow{Name: "quick", Description: "one implementer, then build and tests",
		Steps: []Step{step(RoleImplementer), mechanical(StepBuild, onFailure(RoleDebugger)), step(RoleTester)}}
	// Minimal is hive's own: the smallest change needs one role (seed 003:
	// "fix this typo" runs only the implementer); hive's build, which is no
	// role, still checks it.
	Minimal = Workflow{Name: "minimal", Description: "one implementer, then hive's build: for a typo or a one-line change",
		Steps: []Step{step(RoleImplementer), mechanical(StepBuild, onFailure(RoleImplementer))}}
	Docs = Workflow{Name: "docs", Description: "document, then review",
		Steps: []Step{step(RoleDocumenter), step(RoleReviewer, optional)}}
	Migration = Workflow{Name: "migration", Description: "a migration planned and written (reviewed by a human), built, tested beside review",
		Steps: []Step{
			step(RoleMigrator, checkpoint),
			mechanical(StepBuild, onFailure(RoleDebugger)),
			step(RoleTester, optional),
			step(RoleReviewer, after(StepBuild), optional),
		}}
)

// Builtins lists the built-in workflows.
var Builtins = []Workflow{Full, Bugfix, Refactor, Test, Review, Quick, Docs, Migration, Minimal}

// Builtin returns the built-in workflow of that name.
func Builtin(name string) (Workflow, bool) {
	if name == "feature" || name == "default" { // the shell Hive's names of full
		name = Full.Name
	}
	for _, w := range Builtins {
		if w.Name == name {
			return w, true
		}
	}
	return Workflow{}, false
}

// Parse reads a workflow file's JSON: hive's ({"steps": [...]}) or
// the shell Hive's ({"phases": [...]}). name is the file's, for errors.
func Parse(name string, data []byte) (Workflow, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return Workflow{}, fmt.Errorf("%s: %v (a workflow is {\"name\": \"...\", \"steps\": [{\"role\": \"architect\"}, ...]})", name, err)
	}
	var w Workflow
	if _, shell := probe["phases"]; shell && probe["steps"] == nil {
		var err error
		if w, err = parseShellWorkflow(name, data); err != nil {
			return w, err
		}
	} else {
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil {
			return w, fmt.Errorf("%s: %v (a workflow is {\"name\": \"...\", \"steps\": [{\"role\": \"architect\"}, ...]})", name, err)
		}
	}
	if w.Name == "" {
		w.Name = strings.TrimSuffix(name[strings.LastIndex(name, "/")+1:], ".json")
	}
	return w, w.Validate(name)
}

// shellPhase is a phase of the shell Hive's workflow files.
type shellPhase struct {
	Name          string `json:"name"`
	Agent         string `json:"agent"`
	Type          string `json:"type"`
	Required      *bool  `json:"required"`
	Condition     string `json:"condition"`
	Checkpoint    bool   `json:"human_checkpoint_after"`
	OnFailure     string `json:"on_failure"`
	Task          string `json:"task"`
	HandoffFrom   string `json:"needs_handoff_from"`
	ParallelGroup string `json:"parallel_group"`
}

// parseShellWorkflow reads the shell Hive's format: its phases run in
// order, an "interview" phase is the interviewer, "build_verify" the build.
func parseShellWorkflow(name string, data []byte) (Workflow, error) {
	var f struct {
		Name        string       `json:"name"`
		Description string       `json:"description"`
		Phases      []shellPhase `json:"phases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return Workflow{}, fmt.Errorf("%s: %v", name, err)
	}
	w := Workflow{Name: f.Name, Description: f.Description}
	for i, p := range f.Phases {
		s := Step{Role: p.Agent, Condition: p.Condition, Checkpoint: p.Checkpoint, OnFailure: p.OnFailure, Required: p.Required}
		// Beads commands in the shell Hive's tasks mean nothing to hive's
		// agents; the task's other lines are kept.
		s.Task = stripBeads(p.Task)
		switch p.Type {
		case "", "agent":
		case "interview":
			s.Role = RoleInterviewer
		case "build_verify", StepBuild:
			s.Type = StepBuild
		case StepFixBlocking:
			s.Type = StepFixBlocking
		default:
			return w, fmt.Errorf("%s: phase %d (%s): type %q is not one hive runs (it runs agents, interview, build_verify and fix_blocking)", name, i+1, p.Name, p.Type)
		}
		if s.Role == "" && s.Type == "" {
			return w, fmt.Errorf("%s: phase %d (%s): no agent: give \"agent\": one of %s", name, i+1, p.Name, strings.Join(Roles, ", "))
		}
		w.Steps = append(w.Steps, s)
	}
	// A phase named twice for one role (the shell Hive allows it) becomes
	// a second job of that role, named after the phase.
	seen := map[string]bool{}
	for i := range w.Steps {
		if seen[w.Steps[i].ID()] {
			w.Steps[i].Name = f.Phases[i].Name
		}
		seen[w.Steps[i].ID()] = true
	}
	return w, nil
}

var beadsLine = regexp.MustCompile(`(?m)^.*\bbd (create|ready|close|update|show)\b.*\n?`)

func stripBeads(task string) string {
	return strings.TrimSpace(beadsLine.ReplaceAllString(task, ""))
}

// Validate refuses a workflow hive cannot run, saying how to fix it.
func (w Workflow) Validate(name string) error {
	if len(w.Steps) == 0 {
		return fmt.Errorf("%s: the workflow has no steps: list its roles, e.g. \"steps\": [{\"role\": \"implementer\"}, {\"role\": \"tester\"}]", name)
	}
	seen := map[string]bool{}
	roles := map[string]bool{}
	for i, s := range w.Steps {
		at := fmt.Sprintf("%s: step %d", name, i+1)
		switch s.Type {
		case "":
			if !slices.Contains(Roles, s.Role) {
				return fmt.Errorf("%s: unknown role %q (roles: %s)", at, s.Role, strings.Join(Roles, ", "))
			}
		case StepBuild, StepFixBlocking:
			if s.Role != "" || s.Prompt != "" {
				return fmt.Errorf("%s: a %s step is hive's own and runs no role: remove its \"role\" and \"prompt\"", at, s.Type)
			}
		default:
			return fmt.Errorf("%s: unknown type %q: give none for a role's agent, or %q or %q", at, s.Type, StepBuild, StepFixBlocking)
		}
		if s.Prompt != "" && !promptName.MatchString(s.Prompt) {
			return fmt.Errorf("%s: prompt %q: name a file of .hive/agents without its .md, in letters, digits, - and _", at, s.Prompt)
		}
		if s.Name != "" && !promptName.MatchString(s.Name) {
			return fmt.Errorf("%s: name %q: use letters, digits, - and _", at, s.Name)
		}
		if s.Condition != "" && !slices.Contains(Conditions, s.Condition) {
			return fmt.Errorf("%s: condition %q: give one of %s", at, s.Condition, strings.Join(Conditions, ", "))
		}
		if s.OnFailure != "" && !slices.Contains(Roles, s.OnFailure) {
			return fmt.Errorf("%s: on_failure %q: name the role that fixes it (roles: %s)", at, s.OnFailure, strings.Join(Roles, ", "))
		}
		id := s.ID()
		if seen[id] {
			return fmt.Errorf("%s: %s comes twice; give the second a \"name\" of its own (challenges and fix loops re-run a step, it need not be listed again)", at, id)
		}
		if s.Type == "" && roles[s.Role] && (s.Role == RoleArchitect || s.Role == RoleImplementer) {
			return fmt.Errorf("%s: role %s comes twice; a workflow has one %s", at, s.Role, s.Role)
		}
		for _, a := range s.After {
			if !seen[a] {
				return fmt.Errorf("%s: after %q: name a step before this one (steps: %s)", at, a, strings.Join(w.ids(i), ", "))
			}
		}
		seen[id], roles[s.Role] = true, true
	}
	if w.FixLoops < 0 {
		return fmt.Errorf("%s: fix_loops is %d: give 0 (the default, 2) or more", name, w.FixLoops)
	}
	return nil
}

// ids lists the ids of the first n steps.
func (w Workflow) ids(n int) []string {
	var out []string
	for _, s := range w.Steps[:n] {
		out = append(out, s.ID())
	}
	return out
}

var promptName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Has reports whether the workflow runs role.
func (w Workflow) Has(role string) bool {
	return slices.ContainsFunc(w.Steps, func(s Step) bool { return s.Type == "" && s.Role == role })
}

// Needs reports whether a run of the workflow may start role's agents:
// its steps', the comb of an architect's phase, the roles that fix what
// a step finds failing, and an implementer to fix findings.
func (w Workflow) Needs(role string) bool {
	for _, s := range w.Steps {
		switch {
		case s.Type == "" && s.Role == role, s.OnFailure == role:
			return true
		case role == RoleComb && s.Role == RoleArchitect:
			return true
		case role == RoleImplementer && (s.Type != "" || slices.Contains(Reviewing, s.Role) || s.Role == RoleTester):
			return true
		}
	}
	return false
}

// Loops is how many fix loops the workflow allows: FixLoops, or 2.
func (w Workflow) Loops() int {
	if w.FixLoops == 0 {
		return 2
	}
	return w.FixLoops
}

// pickRules choose a workflow from an objective's words when none is
// named, first match wins; each says why.
var pickRules = []struct {
	workflow string
	words    *regexp.Regexp
	why      string
}{
	{Minimal.Name, regexp.MustCompile(`(?i)\b(typos?|spelling|misspell\w*|one-line|bump)\b`), "it is a change of a line or a word: the implementer alone"},
	{Quick.Name, regexp.MustCompile(`(?i)\b(tweak|small change|quick fix)\b`), "it is a small change"},
	{Migration.Name, regexp.MustCompile(`(?i)\b(migrat\w*|schema change|alter table|add (a )?column)\b`), "it speaks of a migration"},
	{Bugfix.Name, regexp.MustCompile(`(?i)\b(fix(es|ed)?|bugs?|broken|crash(es|ing)?|regression|fails?|failing|error|panics?)\b`), "it speaks of a bug to fix"},
	{Refactor.Name, regexp.MustCompile(`(?i)\b(refactor\w*|restructure|clean ?up|rename|extract|simplify|reorgani[sz]e)\b`), "it speaks of reshaping code"},
	{Docs.Name, regexp.MustCompile(`(?i)\b(docs?|documentation|document|readme|changelog|comments?)\b`), "it speaks of documentation"},
	{Test.Name, regexp.MustCompile(`(?i)\b(tests?|coverage|test suite)\b`), "it speaks of tests"},
	{Review.Name, regexp.MustCompile(`(?i)\b(review|audit)\b`), "it asks for a review"},
}

// Pick chooses the workflow for an objective when the user named none,
// by rules, and says why. A named workflow (-w) always wins over it.
func Pick(objective string) (Workflow, string) {
	for _, r := range pickRules {
		if m := r.words.FindString(objective); m != "" {
			w, _ := Builtin(r.workflow)
			return w, fmt.Sprintf("%s (%q)", r.why, m)
		}
	}
	return Full, "no rule matched: the whole pipeline"
}

// IsQuick says whether the objective is quick-class (a typo, a small
// change): the rules of Pick choose quick or minimal for it.
func IsQuick(objective string) bool {
	w, _ := Pick(objective)
	return w.Name == Quick.Name || w.Name == Minimal.Name
}

// StepNames names the workflow's steps with their marks (hive workflows'
// help says them); a step that works beside the one before it starts
// with "+ ".
func (w Workflow) StepNames() []string {
	var out []string
	for i, s := range w.Steps {
		name := s.ID()
		if s.Prompt != "" {
			name += " (" + s.Prompt + ")"
		}
		if s.Condition != "" {
			name += "[" + s.Condition + "]"
		}
		if s.Optional() {
			name += "?"
		}
		if s.Checkpoint {
			name += "!"
		}
		if s.OnFailure != "" {
			name += ">" + s.OnFailure
		}
		if i > 0 && slices.Equal(w.After(i), w.After(i-1)) {
			name = "+ " + name
		}
		out = append(out, name)
	}
	return out
}

// String is the workflow's steps on a line: "implementer → build>debugger
// → tester + reviewer".
func (w Workflow) String() string {
	return strings.ReplaceAll(strings.Join(w.StepNames(), " → "), " → + ", " + ")
}

// Reviewing roles report findings.
var Reviewing = []string{RoleReviewer, RoleSecurity, RoleBrowserValidator}
