package workflows

import (
	"fmt"
	"slices"
	"strings"
)

// RolePlanner is the cheap model's role that plans a run's roles before it
// starts (seed 003 §3.1); it is no step of a workflow.
const RolePlanner = "planner"

// RolePostmortem is the cheap model's role that tells a finished run in a
// paragraph (seed 003 §6.2); it is no step of a workflow either.
const RolePostmortem = "postmortem"

// RoleEvaluator is the cheap model's role that judges a role's work from
// one aspect (seed 003 §3.2); it is no step of a workflow.
const RoleEvaluator = "evaluator"

// PlannerAnswer is the planner's answer: the roles in order, the groups of
// them that may work side by side, and why.
type PlannerAnswer struct {
	Roles     []string   `json:"roles"`
	Parallel  [][]string `json:"parallel,omitempty"`
	Reasoning string     `json:"reasoning"`
}

// Planned builds the workflow a planner's answer describes, or says what
// is wrong with the answer, for the planner to try again. Roles in a
// parallel group must follow each other in roles; after the implementer
// (or a debugger or migrator) hive's build checks the code, as in every
// built-in workflow.
func Planned(a PlannerAnswer) (Workflow, error) {
	var errs []string
	if len(a.Roles) == 0 {
		errs = append(errs, "roles: empty; list the roles to run, in order")
	}
	if strings.TrimSpace(a.Reasoning) == "" {
		errs = append(errs, "reasoning: empty; say in a sentence why these roles")
	}
	seen := map[string]bool{}
	for _, r := range a.Roles {
		switch {
		case !slices.Contains(Roles, r):
			errs = append(errs, fmt.Sprintf("roles: %q is no role; use %s", r, strings.Join(Roles, ", ")))
		case seen[r]:
			errs = append(errs, fmt.Sprintf("roles: %q twice", r))
		}
		seen[r] = true
	}
	group := map[string]int{} // role → its parallel group, 1-based
	for gi, g := range a.Parallel {
		if len(g) < 2 {
			errs = append(errs, fmt.Sprintf("parallel[%d]: a group needs two roles or more", gi))
			continue
		}
		first := slices.Index(a.Roles, g[0])
		for k, r := range g {
			if slices.Index(a.Roles, r) != first+k || first < 0 {
				errs = append(errs, fmt.Sprintf("parallel[%d]: %q must be in roles, right after %q", gi, r, g[max(0, k-1)]))
				break
			}
			group[r] = gi + 1
		}
	}
	if seen[RoleArchitect] && !seen[RoleImplementer] {
		errs = append(errs, "roles: the architect's plans need the implementer after it")
	}
	if len(errs) > 0 {
		return Workflow{}, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	w := Workflow{Name: "planned", Description: strings.TrimSpace(a.Reasoning)}
	var prev []string // the ids the next stage waits for
	for i := 0; i < len(a.Roles); {
		stage := []string{a.Roles[i]}
		for i+len(stage) < len(a.Roles) && group[a.Roles[i]] != 0 && group[a.Roles[i+len(stage)]] == group[a.Roles[i]] {
			stage = append(stage, a.Roles[i+len(stage)])
		}
		i += len(stage)
		var ids []string
		for _, r := range stage {
			w.Steps = append(w.Steps, Step{Role: r, After: slices.Clone(prev)})
			ids = append(ids, r)
		}
		prev = ids
		if len(stage) == 1 && (stage[0] == RoleImplementer || stage[0] == RoleDebugger || stage[0] == RoleMigrator) && !slices.ContainsFunc(w.Steps, func(s Step) bool { return s.Type == StepBuild }) {
			w.Steps = append(w.Steps, Step{Type: StepBuild, OnFailure: stage[0], After: prev})
			prev = []string{StepBuild}
		}
	}
	if len(w.Steps) > 0 && w.Steps[0].After == nil {
		w.Steps[0].After = []string{}
	}
	return w, w.Validate("the planner's workflow")
}
