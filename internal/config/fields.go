package config

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
)

// field binds one JSON key to the Go value holding it. One table per object
// drives decoding, validation and writing, so the three cannot disagree on a
// key's name, its order in the file or what it accepts.
type field struct {
	key string
	// ptr is *bool, *string, *int, *time.Duration, *[]string,
	// *map[string]string, *map[string]ModelSpec, *Parallelization or an object.
	ptr    any
	accept string      // what the key accepts, for messages; "" derives it from the type
	valid  func() bool // whether the value held is allowed; nil allows any value of the type
	// omitUnset leaves the key out of the file when its value is unset, for
	// model entries, where absent means "inherit".
	omitUnset bool
	// gsd marks GSD's own keys: hive reads and keeps them, and never acts
	// on them (MarshalHive leaves them out).
	gsd bool
}

// object is a JSON object with known keys, in the order they are written,
// and a place for the keys hive does not know.
type object interface {
	fields() []field
	unknown() *map[string]json.RawMessage
}

// gsdField marks f as GSD's own key.
func gsdField(f field) field {
	f.gsd = true
	return f
}

func intField(key string, p *int, lo, hi int) field {
	return field{
		key: key, ptr: p,
		accept: fmt.Sprintf("a whole number from %d to %d", lo, hi),
		valid:  func() bool { return *p >= lo && *p <= hi },
	}
}

func oneOf(key string, p *string, allowed ...string) field {
	return field{
		key: key, ptr: p,
		accept: orList(allowed),
		valid:  func() bool { return slices.Contains(allowed, *p) },
	}
}

// orList renders ["a", "b", "c"] as "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

var modelCLIs = []string{CLIClaude, CLICodex, CLIAider, CLIExec, CLISim}

// The top-level keys: the seed's order, then hive's additions.
func (c *Config) fields() []field {
	return []field{
		{key: "mode", ptr: &c.Mode, gsd: true},
		{key: "depth", ptr: &c.Depth, gsd: true},
		{key: "workflow", ptr: &c.Workflow},
		{key: "planning", ptr: &c.Planning, gsd: true},
		{key: "parallelization", ptr: &c.Parallelization, accept: "true, false or an object"},
		{key: "teams", ptr: &c.Teams},
		{key: "gates", ptr: &c.Gates},
		{key: "safety", ptr: &c.Safety, gsd: true},
		{key: "git", ptr: &c.Git},
		{key: "commands", ptr: &c.Commands, omitUnset: true},
		{key: "timeouts", ptr: &c.Timeouts},
		{key: "retries", ptr: &c.Retries},
		{key: "models", ptr: &c.Models, accept: `an object of roles, such as {"default": {"cli": "claude", "model": "sonnet"}}`},
		// Written only when set, so that a project's file says no more than it did.
		{key: "budget", ptr: &c.Budget, omitUnset: true},
		{key: "pricing", ptr: &c.Pricing, omitUnset: true, accept: `an object of models, such as {"my-model": {"input": 3, "output": 15}}`},
		{key: "loop_guard", ptr: &c.LoopGuard, omitUnset: true},
		{key: "routing", ptr: &c.Routing, omitUnset: true},
		{key: "context", ptr: &c.Context, omitUnset: true},
		// The command line checks that fallback has its models.fallback.
		{key: "limits", ptr: &c.Limits, omitUnset: true},
		{key: "notifications", ptr: &c.Notifications},
		{key: "secrets", ptr: &c.Secrets},
		// Written only when set: a file says no more than it did.
		{key: "tools", ptr: &c.Tools, omitUnset: true, accept: `a list of program names, such as ["go", "make"]`},
		{key: "backend", ptr: &c.Backend, omitUnset: true},
		{key: "github", ptr: &c.GitHub, omitUnset: true},
	}
}

func (g *GitHub) fields() []field {
	return []field{{key: "labels", ptr: &g.Labels, omitUnset: true, accept: `an object of issue labels and workflows, such as {"bug": "bugfix"}`}}
}

func (w *Workflow) fields() []field {
	return []field{
		{key: "research", ptr: &w.Research, gsd: true},
		{key: "plan_check", ptr: &w.PlanCheck, gsd: true},
		{key: "verifier", ptr: &w.Verifier},
		{key: "use_worktrees", ptr: &w.UseWorktrees},
		{key: "resolver", ptr: &w.Resolver},
		{key: "worktree_setup", ptr: &w.WorktreeSetup},
	}
}

func (w *WorktreeSetup) fields() []field {
	return []field{
		{key: "copy", ptr: &w.Copy},
		{key: "command", ptr: &w.Command},
	}
}

func (p *Planning) fields() []field {
	return []field{
		{key: "commit_docs", ptr: &p.CommitDocs},
		{key: "search_gitignored", ptr: &p.SearchGitignored},
	}
}

func (p *Parallelization) fields() []field {
	return []field{
		{key: "enabled", ptr: &p.Enabled},
		{key: "plan_level", ptr: &p.PlanLevel},
		{key: "task_level", ptr: &p.TaskLevel, gsd: true},
		{key: "skip_checkpoints", ptr: &p.SkipCheckpoints, gsd: true},
		intField("max_concurrent_agents", &p.MaxConcurrentAgents, 1, 64),
		// The upper bounds below only keep numbers sane; no project comes near them.
		gsdField(intField("min_plans_for_parallel", &p.MinPlansForParallel, 1, 1000)),
		{key: "dynamic_scheduling", ptr: &p.DynamicScheduling},
	}
}

func (t *Teams) fields() []field {
	return []field{{key: "execution_team", ptr: &t.ExecutionTeam}}
}

func (g *Gates) fields() []field {
	return []field{
		{key: "confirm_project", ptr: &g.ConfirmProject, gsd: true},
		{key: "confirm_phases", ptr: &g.ConfirmPhases, gsd: true},
		{key: "confirm_roadmap", ptr: &g.ConfirmRoadmap, gsd: true},
		{key: "confirm_breakdown", ptr: &g.ConfirmBreakdown, gsd: true},
		{key: "confirm_plan", ptr: &g.ConfirmPlan, gsd: true},
		{key: "execute_next_plan", ptr: &g.ExecuteNextPlan, gsd: true},
		{key: "issues_review", ptr: &g.IssuesReview, gsd: true},
		{key: "confirm_transition", ptr: &g.ConfirmTransition, gsd: true},
		{key: "post_merge_command", ptr: &g.PostMergeCommand},
	}
}

func (s *Safety) fields() []field {
	return []field{
		{key: "always_confirm_destructive", ptr: &s.AlwaysConfirmDestructive},
		{key: "always_confirm_external_services", ptr: &s.AlwaysConfirmExternalServices},
	}
}

func (g *Git) fields() []field {
	return []field{
		oneOf("branching_strategy", &g.BranchingStrategy, BranchingNone, BranchingPhase, BranchingMilestone),
		{key: "worktree_dir", ptr: &g.WorktreeDir},
	}
}

func (x *Commands) fields() []field {
	return []field{
		{key: "build", ptr: &x.Build, omitUnset: true, accept: `a shell command, such as "make build" ("": found from the project's files)`},
		{key: "test", ptr: &x.Test, omitUnset: true, accept: `a shell command, such as "python3 -m pytest -q" ("": found from the project's files)`},
	}
}

func (t *Timeouts) fields() []field {
	return []field{{
		key: "stall", ptr: &t.Stall,
		accept: `a duration such as "5m" or "90s", or a number of seconds, greater than 0`,
		valid:  func() bool { return t.Stall > 0 },
	}, {
		key: "checkpoint_wait", ptr: &t.CheckpointWait,
		accept: `a duration such as "30m", or a number of seconds; 0 stops at once`,
		valid:  func() bool { return t.CheckpointWait >= 0 },
	}}
}

func (r *Retries) fields() []field {
	return []field{intField("agent", &r.Agent, 0, 100)}
}

func (m *ModelSpec) fields() []field {
	return []field{
		{
			key: "cli", ptr: &m.CLI, omitUnset: true,
			accept: orList(modelCLIs),
			// "" is an unset cli, inherited from the default entry.
			valid: func() bool { return m.CLI == "" || slices.Contains(modelCLIs, m.CLI) },
		},
		{key: "model", ptr: &m.Model, omitUnset: true},
		{key: "path", ptr: &m.Path, omitUnset: true},
		{key: "args", ptr: &m.Args, omitUnset: true},
		{key: "env", ptr: &m.Env, omitUnset: true, accept: `an object of strings, such as {"NAME": "value"}`},
		{key: "ladder", ptr: &m.Ladder, omitUnset: true, accept: `a list of models, most capable first, such as ["opus", "sonnet", "haiku"]`},
	}
}

func (b *Budget) fields() []field {
	return []field{
		money("usd", &b.USD),
		intField("tokens", &b.Tokens, 0, math.MaxInt32),
		money("plan_usd", &b.PlanUSD),
		{key: "roles", ptr: &b.Roles, omitUnset: true, accept: `an object of dollars per role, such as {"architect": 2, "implementer": 10}`,
			valid: func() bool {
				for _, usd := range b.Roles {
					if usd < 0 {
						return false
					}
				}
				return true
			}},
	}
}

func (p *Price) fields() []field {
	return []field{money("input", &p.Input), money("output", &p.Output), money("cache_write", &p.CacheWrite), money("cache_read", &p.CacheRead)}
}

func (g *LoopGuard) fields() []field {
	return []field{
		intField("warn_repeat", &g.WarnRepeat, 0, 1000),
		intField("stop_repeat", &g.StopRepeat, 0, 1000),
		intField("max_calls", &g.MaxCalls, 0, 1_000_000),
	}
}

func (r *Routing) fields() []field {
	return []field{
		{key: "evaluate", ptr: &r.Evaluate},
		intField("confidence_floor", &r.ConfidenceFloor, -1, 100),
		{key: "skip_proven", ptr: &r.SkipProven},
		intField("proven_runs", &r.ProvenRuns, 0, 100),
		intField("proven_confidence", &r.ProvenConfidence, 0, 70),
	}
}

func (x *Context) fields() []field {
	return []field{
		{key: "handoff_percent", ptr: &x.HandoffPercent, accept: "a percentage of the context window, from 1 to 100 (0: the default, 50)",
			valid: func() bool { return x.HandoffPercent == 0 || x.HandoffPercent >= 1 && x.HandoffPercent <= 100 }},
		intField("handoff_tokens", &x.HandoffTokens, 0, 100_000_000),
		intField("window", &x.Window, 0, 100_000_000),
		{key: "notes_wait", ptr: &x.NotesWait, accept: `a duration such as "2m" or "90s", or a number of seconds, 0 or more (0: the default, 2m)`,
			valid: func() bool { return x.NotesWait >= 0 }},
	}
}

// money is a field of dollars: a number, 0 or more.
func money(key string, p *float64) field {
	return field{key: key, ptr: p, accept: "a number of dollars, 0 or more (0: no limit)", valid: func() bool { return *p >= 0 }}
}

func (l *Limits) fields() []field {
	policies := []string{OnLimitWait, OnLimitStop, OnLimitFallback}
	return []field{{key: "on_limit", ptr: &l.OnLimit, omitUnset: true, accept: orList(policies),
		// "" is unset: wait.
		valid: func() bool { return l.OnLimit == "" || slices.Contains(policies, l.OnLimit) }}}
}

func (n *Notifications) fields() []field {
	return []field{
		{key: "bell", ptr: &n.Bell},
		{key: "desktop", ptr: &n.Desktop},
		{key: "webhook_url", ptr: &n.WebhookURL},
		{
			key: "public_url", ptr: &n.PublicURL, omitUnset: true,
			accept: "the http(s) address of hive serve, such as https://hive.example.com",
			valid: func() bool {
				u, err := url.Parse(n.PublicURL)
				return n.PublicURL == "" || err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
			},
		},
	}
}

func (b *Backend) fields() []field {
	return []field{
		{key: "kind", ptr: &b.Kind, accept: `"local" or "temporal"`,
			valid: func() bool { return b.Kind == "" || b.Kind == BackendLocal || b.Kind == BackendTemporal }},
		{key: "temporal", ptr: &b.Temporal},
	}
}

func (t *TemporalBackend) fields() []field {
	return []field{
		{key: "address", ptr: &t.Address, omitUnset: true},
		{key: "namespace", ptr: &t.Namespace, omitUnset: true},
		{key: "task_queue", ptr: &t.TaskQueue, omitUnset: true},
		{key: "remote", ptr: &t.Remote, omitUnset: true},
	}
}

func (s *Secrets) fields() []field {
	return []field{{key: "env", ptr: &s.Env}}
}

func (c *Config) unknown() *map[string]json.RawMessage          { return &c.extra }
func (w *Workflow) unknown() *map[string]json.RawMessage        { return &w.extra }
func (w *WorktreeSetup) unknown() *map[string]json.RawMessage   { return &w.extra }
func (p *Planning) unknown() *map[string]json.RawMessage        { return &p.extra }
func (p *Parallelization) unknown() *map[string]json.RawMessage { return &p.extra }
func (t *Teams) unknown() *map[string]json.RawMessage           { return &t.extra }
func (g *Gates) unknown() *map[string]json.RawMessage           { return &g.extra }
func (s *Safety) unknown() *map[string]json.RawMessage          { return &s.extra }
func (g *Git) unknown() *map[string]json.RawMessage             { return &g.extra }
func (t *Timeouts) unknown() *map[string]json.RawMessage        { return &t.extra }
func (x *Commands) unknown() *map[string]json.RawMessage        { return &x.extra }
func (r *Retries) unknown() *map[string]json.RawMessage         { return &r.extra }
func (m *ModelSpec) unknown() *map[string]json.RawMessage       { return &m.extra }
func (n *Notifications) unknown() *map[string]json.RawMessage   { return &n.extra }
func (l *Limits) unknown() *map[string]json.RawMessage          { return &l.extra }
func (s *Secrets) unknown() *map[string]json.RawMessage         { return &s.extra }
func (b *Backend) unknown() *map[string]json.RawMessage         { return &b.extra }
func (t *TemporalBackend) unknown() *map[string]json.RawMessage { return &t.extra }
func (g *GitHub) unknown() *map[string]json.RawMessage          { return &g.extra }
func (b *Budget) unknown() *map[string]json.RawMessage          { return &b.extra }
func (p *Price) unknown() *map[string]json.RawMessage           { return &p.extra }
func (g *LoopGuard) unknown() *map[string]json.RawMessage       { return &g.extra }
func (r *Routing) unknown() *map[string]json.RawMessage         { return &r.extra }
func (x *Context) unknown() *map[string]json.RawMessage         { return &x.extra }

// accepts says what a field accepts, for error messages.
func accepts(f field) string {
	if f.accept != "" {
		return f.accept
	}
	switch f.ptr.(type) {
	case *bool:
		return "true or false"
	case *string:
		return "a string"
	case *[]string:
		return `a list of strings, such as [".env"]`
	case *time.Duration:
		return "a duration"
	default:
		return "an object"
	}
}

// unset reports whether a value counts as absent in a model entry.
func unset(ptr any) bool {
	switch p := ptr.(type) {
	case *string:
		return *p == ""
	case *[]string:
		return *p == nil
	case *map[string]string:
		return *p == nil
	case *map[string]Price:
		return *p == nil
	case *map[string]float64:
		return *p == nil
	case *Budget:
		return p.USD == 0 && p.Tokens == 0 && p.PlanUSD == 0 && p.Roles == nil && len(p.extra) == 0
	case *LoopGuard:
		return p.WarnRepeat == 0 && p.StopRepeat == 0 && p.MaxCalls == 0 && len(p.extra) == 0
	case *Routing:
		return !p.Evaluate && p.ConfidenceFloor == 0 && !p.SkipProven && p.ProvenRuns == 0 && p.ProvenConfidence == 0 && len(p.extra) == 0
	case *Backend:
		return p.Kind == "" && unset(&p.Temporal) && len(p.extra) == 0
	case *TemporalBackend:
		return p.Address == "" && p.Namespace == "" && p.TaskQueue == "" && p.Remote == "" && len(p.extra) == 0
	case *Commands:
		return p.Build == "" && p.Test == "" && len(p.extra) == 0
	case *Limits:
		return p.OnLimit == "" && len(p.extra) == 0
	case *GitHub:
		return p.Labels == nil && len(p.extra) == 0
	case *Context:
		return p.HandoffPercent == 0 && p.HandoffTokens == 0 && p.Window == 0 && p.NotesWait == 0 && len(p.extra) == 0
	}
	return false
}
