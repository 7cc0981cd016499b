package config

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// The files Load reads, relative to the repository root, in overlay order.
const (
	// RootFile is the shell Hive's simple config; hive reads its models.
	RootFile     = "hive.config.json"
	PlanningFile = ".planning/config.json"
	HiveFile     = ".hive/config.json"
)

// Branching strategies (git.branching_strategy).
const (
	BranchingNone      = "none"
	BranchingPhase     = "phase"
	BranchingMilestone = "milestone"
)

// Agent CLIs a model entry may name.
const (
	CLIClaude = "claude"
	CLICodex  = "codex"
	CLIAider  = "aider"
	CLIExec   = "exec"
	CLISim    = "sim"
)

// DefaultRole is the "models" entry every other role inherits from.
const DefaultRole = "default"

// Config is one project's configuration. Keys hive does not know are kept in
// unexported fields at every level so that Marshal writes them back.
type Config struct {
	Mode            string // "interactive" (default) or "yolo"; other values are kept as written
	Depth           string // "quick", "standard" (default), "comprehensive"
	Workflow        Workflow
	Planning        Planning
	Parallelization Parallelization
	Teams           Teams
	Gates           Gates
	Safety          Safety

	// Keys hive adds to the GSD schema.
	Git           Git
	Commands      Commands
	Timeouts      Timeouts
	Retries       Retries
	Models        map[string]ModelSpec // by role; DefaultRole is inherited by the others
	Budget        Budget
	Pricing       map[string]Price // per model name, over the built-in price table
	LoopGuard     LoopGuard
	Routing       Routing
	Context       Context
	Limits        Limits
	Notifications Notifications
	Secrets       Secrets
	// Tools are the command-line tools hive run's roles are told they may
	// use, of those found on the machine; empty: every one hive knows.
	Tools   []string
	Backend Backend
	GitHub  GitHub

	extra map[string]json.RawMessage // unknown keys, compacted, by name
	notes []string
}

// Workflow says which GSD steps run around execution and how plans are isolated.
type Workflow struct {
	Research      bool
	PlanCheck     bool
	Verifier      bool
	UseWorktrees  bool // run each plan in its own git worktree
	Resolver      bool // a merge conflict goes to a resolver agent (role comb) before a human
	WorktreeSetup WorktreeSetup

	extra map[string]json.RawMessage
}

// WorktreeSetup prepares a fresh worktree before its agent starts, for files
// git does not carry (.env, local settings) and for installs.
type WorktreeSetup struct {
	Copy    []string // paths copied from the main checkout
	Command string   // shell command run inside the worktree; "" for none

	extra map[string]json.RawMessage
}

// Planning says how the .planning/ folder itself is handled.
type Planning struct {
	CommitDocs       bool
	SearchGitignored bool

	extra map[string]json.RawMessage
}

// Parallelization bounds how many plans run at once and how they are scheduled.
type Parallelization struct {
	Enabled             bool
	PlanLevel           bool
	TaskLevel           bool
	SkipCheckpoints     bool // standalone mode only; team mode always relays checkpoints (seed 000 §4.3)
	MaxConcurrentAgents int
	MinPlansForParallel int
	DynamicScheduling   bool // start a plan when its depends_on are done instead of waiting for the wave

	extra map[string]json.RawMessage
}

// Teams chooses live agent sessions (team mode, seed 000) or one process per turn.
type Teams struct {
	ExecutionTeam bool // live agent sessions that take checkpoint answers as messages

	extra map[string]json.RawMessage
}

// Gates are the points where hive asks a human before going on.
type Gates struct {
	ConfirmProject    bool
	ConfirmPhases     bool
	ConfirmRoadmap    bool
	ConfirmBreakdown  bool
	ConfirmPlan       bool
	ExecuteNextPlan   bool
	IssuesReview      bool
	ConfirmTransition bool
	PostMergeCommand  string // run after each merge; a failure stops the run. "" for none

	extra map[string]json.RawMessage
}

// Safety lists actions that always need a human, whatever the mode.
type Safety struct {
	AlwaysConfirmDestructive      bool
	AlwaysConfirmExternalServices bool

	extra map[string]json.RawMessage
}

// Git says how plan work maps to branches and where worktrees live.
type Git struct {
	BranchingStrategy string // BranchingNone, BranchingPhase or BranchingMilestone
	WorktreeDir       string // where worktrees go; "" lets hive choose

	extra map[string]json.RawMessage
}

// Commands say how hive builds and tests the project, for hive run's
// build step, its tester's check and computed confidence: a line each,
// run by sh -c in the run's worktree. "" lets hive find the command from
// the project's files (hive index shows what it found).
type Commands struct {
	Build string
	Test  string

	extra map[string]json.RawMessage
}

// Timeouts bound waits on agents; the watchdog reads them.
type Timeouts struct {
	Stall time.Duration // an agent silent this long is treated as hung
	// CheckpointWait is how long a run nobody watches in a terminal waits
	// for `hive answer` once only a human can let it go on; then it stops
	// (exit 5) and keeps the checkpoint for the next run.
	CheckpointWait time.Duration

	extra map[string]json.RawMessage
}

// Retries bound how often hive restarts failed work by itself.
type Retries struct {
	Agent int // extra attempts for a plan whose agent crashed or hung

	extra map[string]json.RawMessage
}

// ModelSpec says which CLI and model play a role. Empty fields (nil for Args
// and Env) are unset: Config.Model fills them from the default entry.
type ModelSpec struct {
	CLI   string // CLIClaude, CLICodex, CLIAider, CLIExec or CLISim
	Model string // passed as --model; "" leaves the CLI's own default
	Path  string // the program to run; "" finds the CLI on PATH
	Args  []string
	Env   map[string]string
	// Ladder is the models a budget steps down through, most capable first
	// (nil: the CLI's own ladder, such as opus, sonnet, haiku).
	Ladder []string

	extra map[string]json.RawMessage
	from  string // the file that set the entry
}

// Budget is what a run may spend (seed 003 §5): 0 is no limit.
type Budget struct {
	USD     float64 // per run, in dollars
	Tokens  int     // per run, every token counted
	PlanUSD float64 // per plan, in dollars
	// Roles are ceilings of hive run's roles, in dollars, each for all the
	// role's sessions in a run (the implementer's covers its phase).
	Roles map[string]float64

	extra map[string]json.RawMessage
}

// Price is a model's price in dollars per million tokens.
type Price struct {
	Input, Output, CacheWrite, CacheRead float64

	extra map[string]json.RawMessage
}

// Context says when a live agent session hands over to a fresh one before
// its CLI compacts the conversation on its own (seed 001); 0 takes the
// default.
type Context struct {
	// HandoffPercent of the model's context window starts a rollover (50).
	HandoffPercent float64
	// HandoffTokens starts one at that many tokens in context, when it
	// comes before HandoffPercent (0: not used).
	HandoffTokens int
	// Window is the context window of a model whose CLI does not say
	// (codex; 200000).
	Window int
	// NotesWait is how long an agent asked to hand over has to commit its
	// work in progress and write its notes (2m).
	NotesWait time.Duration

	extra map[string]json.RawMessage
}

// Routing tunes how hive run routes on evidence (seed 003 §3).
type Routing struct {
	// Evaluate: after each role, hive's checks and three evaluators (a
	// cheap model: models.evaluator) judge its work (hive run --evaluate).
	Evaluate bool
	// ConfidenceFloor is the computed confidence (of 100) under which the
	// rest of a run works one job at a time and a human looks first (60;
	// 0 in the file takes the default, -1 turns the rule off).
	ConfidenceFloor int
	// SkipProven: a quick objective leaves out a reviewing role whose
	// last ProvenRuns runs here all scored ProvenConfidence or more (of
	// hive's 70 points of checks) at the first attempt (3 runs, 63).
	SkipProven       bool
	ProvenRuns       int
	ProvenConfidence int

	extra map[string]json.RawMessage
}

// Floor is the confidence floor that holds: the default for 0, none for
// a negative value.
func (r Routing) Floor() int {
	switch {
	case r.ConfidenceFloor == 0:
		return 60
	case r.ConfidenceFloor < 0:
		return 0
	}
	return r.ConfidenceFloor
}

// LoopGuard tunes the loop guard; 0 takes the default.
type LoopGuard struct {
	WarnRepeat int // the same call this many times in a row: the agent is told (3)
	StopRepeat int // ... and interrupted (5)
	MaxCalls   int // tool calls in one session before it is told (400)

	extra map[string]json.RawMessage
}

// Limits say what a run does when an agent meets its account's usage
// limit.
type Limits struct {
	// OnLimit: "wait" for the reset and go on (the default), "stop" the
	// run (the same command goes on later), or "fallback": go on at once
	// with the models.fallback agent for the rest of the run.
	OnLimit string

	extra map[string]json.RawMessage
}

// GitHub says how hive run takes its work from GitHub.
type GitHub struct {
	// Labels pick the workflow of hive run --issue from the issue's
	// labels, the first label named here winning: {"bug": "bugfix"}. -w,
	// --roles, --only and --plan win over them.
	Labels map[string]string

	extra map[string]json.RawMessage
}

// FallbackRole is the "models" entry of the agent that a run switches to
// at a usage limit under limits.on_limit fallback.
const FallbackRole = "fallback"

// The policies of limits.on_limit (work.OnLimit's names).
const (
	OnLimitWait     = "wait"
	OnLimitStop     = "stop"
	OnLimitFallback = "fallback"
)

// Notifications say how hive calls a human when an agent needs one.
type Notifications struct {
	Bell       bool // ring the terminal bell when a human is needed
	Desktop    bool
	WebhookURL string
	// PublicURL is where a phone reaches `hive serve` (through the user's
	// own tunnel or proxy): notifications then carry a signed link to the
	// checkpoint's page there. "" for none.
	PublicURL string

	extra map[string]json.RawMessage
}

// Backends (backend.kind).
const (
	BackendLocal    = "local"    // this process, its SQLite journal
	BackendTemporal = "temporal" // a Temporal workflow; hive worker processes carry out its work
)

// Backend says where a run is kept and who carries it out. Unset fields
// take their defaults through WithDefaults, so that a project's file says
// no more than it did.
type Backend struct {
	Kind     string // BackendLocal (the default) or BackendTemporal
	Temporal TemporalBackend

	extra map[string]json.RawMessage
}

// WithDefaults is b with every unset field at its default.
func (b Backend) WithDefaults() Backend {
	if b.Kind == "" {
		b.Kind = BackendLocal
	}
	t := &b.Temporal
	if t.Address == "" {
		t.Address = "127.0.0.1:7233"
	}
	if t.Namespace == "" {
		t.Namespace = "default"
	}
	if t.TaskQueue == "" {
		t.TaskQueue = "hive"
	}
	return b
}

// TemporalBackend is where the Temporal backend's server is, and how its
// workers share work.
type TemporalBackend struct {
	Address   string // the server's host:port (127.0.0.1:7233)
	Namespace string // ("default")
	TaskQueue string // the queue a run's workers poll ("hive")
	// Remote is the git remote (a name or a URL) through which workers on
	// other machines share work: plan branches are pushed there and merged
	// into the run's integration branch there. "" for none: every worker
	// works in one repository folder.
	Remote string

	extra map[string]json.RawMessage
}

// Secrets name what agents may receive but logs must never show.
type Secrets struct {
	Env []string // names of environment variables passed to agents and masked in logs

	extra map[string]json.RawMessage
}

// Default returns the configuration of a project without config files.
func Default() *Config {
	return &Config{
		Mode:  "interactive",
		Depth: "standard",
		Workflow: Workflow{
			Research: true, PlanCheck: true, Verifier: true, Resolver: true,
			UseWorktrees:  true,
			WorktreeSetup: WorktreeSetup{Copy: []string{}},
		},
		Planning: Planning{CommitDocs: true},
		Parallelization: Parallelization{
			Enabled: true, PlanLevel: true, SkipCheckpoints: true,
			MaxConcurrentAgents: 3, MinPlansForParallel: 2,
		},
		Teams: Teams{ExecutionTeam: true},
		Gates: Gates{
			ConfirmProject: true, ConfirmPhases: true, ConfirmRoadmap: true, ConfirmBreakdown: true,
			ConfirmPlan: true, ExecuteNextPlan: true, IssuesReview: true, ConfirmTransition: true,
		},
		Safety:        Safety{AlwaysConfirmDestructive: true, AlwaysConfirmExternalServices: true},
		Git:           Git{BranchingStrategy: BranchingNone},
		Timeouts:      Timeouts{Stall: 5 * time.Minute, CheckpointWait: 30 * time.Minute},
		Retries:       Retries{Agent: 1},
		Models:        map[string]ModelSpec{DefaultRole: {CLI: CLIClaude}},
		Notifications: Notifications{Bell: true, Desktop: true},
		Secrets:       Secrets{Env: []string{}},
	}
}

// Notes lists what a reader should know but that is not an error: unknown
// keys (kept as written), legacy keys and their new place. hive lint shows them.
func (c *Config) Notes() []string { return slices.Clone(c.notes) }

// MaxConcurrent is how many plans may run at once: 1 when parallelization is
// off, or off at plan level, since plans are what hive runs in parallel.
func (c *Config) MaxConcurrent() int {
	if !c.Parallelization.Enabled || !c.Parallelization.PlanLevel {
		return 1
	}
	return c.Parallelization.MaxConcurrentAgents
}

// TeamMode reports whether agents run as live sessions (teams.execution_team).
// Whether the CLI supports it is decided at run time, not here.
func (c *Config) TeamMode() bool { return c.Teams.ExecutionTeam }

// Dynamic reports whether plans start as soon as their dependencies are done.
// Seed 000 §4.3 makes it depend on team mode: without live sessions hive
// falls back to waves.
func (c *Config) Dynamic() bool { return c.Parallelization.DynamicScheduling && c.TeamMode() }

// Model returns the CLI and model for a role: the role's entry, with unset
// fields taken from the "default" entry, itself completed by the built-in
// default (claude, the CLI's own model). A role that names another CLI than
// the default inherits nothing, since a model name or flags of one CLI mean
// nothing to another. The result shares no memory with c.
func (c *Config) Model(role string) ModelSpec {
	spec := inherit(ModelSpec{CLI: CLIClaude}, c.Models[DefaultRole])
	if own, ok := c.Models[role]; ok && role != DefaultRole {
		if own.CLI != "" && own.CLI != spec.CLI {
			spec = ModelSpec{}
		}
		spec = inherit(spec, own)
	}
	spec.Args = slices.Clone(spec.Args)
	spec.Env = maps.Clone(spec.Env)
	spec.Ladder = slices.Clone(spec.Ladder)
	spec.extra = nil
	return spec
}

// inherit returns base with the fields set in over replaced.
func inherit(base, over ModelSpec) ModelSpec {
	if over.CLI != "" {
		base.CLI = over.CLI
	}
	if over.Model != "" {
		base.Model = over.Model
	}
	if over.Path != "" {
		base.Path = over.Path
	}
	if over.Args != nil {
		base.Args = over.Args
	}
	if over.Env != nil {
		base.Env = over.Env
	}
	if over.Ladder != nil {
		base.Ladder = over.Ladder
	}
	return base
}

// gsdAgents maps hive's roles to the GSD agents whose model_profile and
// model_overrides choose their model.
var gsdAgents = map[string]string{
	"architect": "gsd-planner", "planner": "gsd-planner",
	"executor": "gsd-executor", "implementer": "gsd-executor", "comb": "gsd-executor", "documenter": "gsd-executor",
	"verifier": "gsd-verifier", "tester": "gsd-verifier", "reviewer": "gsd-verifier", "evaluator": "gsd-verifier",
	"interviewer": "gsd-verifier", "debugger": "gsd-executor", "migrator": "gsd-executor", "ui-designer": "gsd-executor",
	"e2e-tester": "gsd-verifier", "component-tester": "gsd-verifier", "browser-validator": "gsd-verifier", "security": "gsd-verifier",
}

// gsdProfiles are GSD's model profiles, by GSD agent.
var gsdProfiles = map[string]map[string]string{
	"quality":  {"gsd-planner": "opus", "gsd-executor": "opus", "gsd-verifier": "sonnet"},
	"balanced": {"gsd-planner": "opus", "gsd-executor": "sonnet", "gsd-verifier": "sonnet"},
	"budget":   {"gsd-planner": "sonnet", "gsd-executor": "sonnet", "gsd-verifier": "haiku"},
}

// ModelWhy is Model with the reason: the key that decided the model. A
// Claude role whose model no "models" entry sets takes it from GSD's
// model_overrides, else its model_profile, in .planning/config.json.
func (c *Config) ModelWhy(role string) (ModelSpec, string) {
	m := c.Model(role)
	own, hasOwn := c.Models[role]
	switch {
	case hasOwn && own.Model != "" && own.from == RootFile:
		return m, RootFile + " models." + role
	case hasOwn && own.Model != "":
		return m, "models." + role
	case m.Model != "" && c.Models[DefaultRole].from == RootFile:
		return m, RootFile + " models." + DefaultRole
	case m.Model != "":
		return m, "models." + DefaultRole
	case m.CLI != CLIClaude:
		return m, "the CLI's own default model"
	}
	agent := gsdAgents[role]
	var overrides map[string]string
	if raw, ok := c.extra["model_overrides"]; ok && json.Unmarshal(raw, &overrides) == nil && agent != "" && overrides[agent] != "" {
		m.Model = overrides[agent]
		return m, "model_overrides." + agent + " (GSD)"
	}
	var profile string
	if raw, ok := c.extra["model_profile"]; ok && json.Unmarshal(raw, &profile) == nil {
		if model := gsdProfiles[profile][agent]; model != "" {
			m.Model = model
			return m, "model_profile " + profile + " (GSD)"
		}
	}
	return m, "the CLI's own default model"
}
