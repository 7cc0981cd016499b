package roleplan

import (
	"maps"

	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Spec is what a pipeline run is asked to do.
type Spec struct {
	Objective string             `json:"objective"`
	Workflow  workflows.Workflow `json:"workflow"`
	// AutoAnswer (--yes) takes a needs_input's default, and continue for
	// a report that still breaks its contract after its attempts; a
	// blocked role, challenges that come back a second time and tests
	// that still fail go to a human whatever it says.
	AutoAnswer bool `json:"auto_answer,omitempty"`
	// PhaseDir is where the architect writes its plans, relative to the
	// repository: chosen when the run starts, so that a resume finds them.
	PhaseDir string `json:"phase_dir,omitempty"`
	// Base is the commit the run's branch started from.
	Base string `json:"base,omitempty"`
	// Branch is the run's branch (hive/WORKFLOW/SLUG), chosen when the run
	// starts so that a resume works on the same one; "" in runs from
	// before it was recorded, whose branch is hive/run/N.
	Branch string `json:"branch,omitempty"`
	// Target is the user's branch as the run started, which its followed
	// pull request targets (the run's branch starts from it): the user
	// may have switched branches since, and a worker in a clone has
	// another one checked out. "" on a detached HEAD, and in runs from
	// before it was recorded (the branch checked out then counts).
	Target string `json:"target,omitempty"`
	// Publish is how the finished work is delivered instead of a merge:
	// "push" (--push) or "pr" (--pr), kept for a resume.
	Publish string `json:"publish,omitempty"`
	// Closes is what the run's pull request says of the issue the run
	// started from (hive run --issue): "Closes OWNER/REPO#N".
	Closes string `json:"closes,omitempty"`
	// Follow (--follow, rules 4): after the roles, the machine delivers the
	// work as a pull request itself (CmdDeliver) and follows it until it
	// is merged or closed: CI failures and review comments on its head go
	// to the implementer, whose fix is pushed (CmdPush), within the
	// workflow's fix loops and the budget.
	Follow bool `json:"follow,omitempty"`
	// NoMerge (--no-merge) leaves the finished work on the run's branch,
	// kept for a resume.
	NoMerge bool `json:"no_merge,omitempty"`
	// AllowDirty (--allow-dirty): the run started next to uncommitted
	// changes, and its resume may go on next to them.
	AllowDirty bool `json:"allow_dirty,omitempty"`
	// Agent is the agent program --agent named for every role ("": each
	// role's from the config), kept so that a resume starts the same
	// agents.
	Agent string `json:"agent,omitempty"`
	// CheckpointWait is the --checkpoint-wait the run started with, as a
	// duration ("10m0s"; "" when not given: the config's), kept for a
	// resume.
	CheckpointWait string `json:"checkpoint_wait,omitempty"`
	// Remote is the git remote a run on Temporal started with
	// (--git-remote): its work is on a branch there, so its resume goes
	// on through it. The machine does not read it.
	Remote string `json:"remote,omitempty"`
	// Budget is what the run may spend, as it started.
	Budget Budget `json:"budget,omitzero"`
	// OnLimit is what the run does at a usage limit (limits.on_limit,
	// --on-limit): the machine acts on fallback (rules 3); stop is the
	// shell's. The phase's engine is given it too.
	OnLimit work.OnLimit `json:"on_limit,omitempty"`
	// Facts are what hive found in the repository, for the steps'
	// conditions (CondHasFrontend, CondHasTests); a condition without a
	// fact holds.
	Facts map[string]bool `json:"facts,omitempty"`
	// Tools are the command-line tools found on the machine as the run
	// began (hive index's list), which the roles are told they have.
	Tools []string `json:"tools,omitempty"`
	// NoInterview skips the interviewer (--no-interview, --yes).
	NoInterview bool `json:"no_interview,omitempty"`
	// Context is what the user gave every role (hive run -c FILE).
	Context []ContextFile `json:"context,omitempty"`
	// Guard tunes the loop guard of the role agents.
	Guard work.LoopGuard `json:"loop_guard,omitzero"`
	// Routing tunes the rules that route on evidence.
	Routing Routing `json:"routing,omitzero"`
	// Rules is the version of the machine's rules the run started under
	// (Rules when it starts now): a journal replays under the rules it was
	// written with. 0: a run of before the rules were numbered.
	Rules int `json:"rules,omitempty"`
}

// Rules is the version of the machine's rules that a run started now
// follows.
//
//	1: a role's session starts only if what is left of the run's dollar
//	   budget holds it and every session in flight (work.Turns.Short).
//	2: a role's turn that ended on its provider's limit (EvLimited) makes
//	   the run wait (work.Waits): no session starts until the usage
//	   limit's reset or the backoff's end (CmdWake, EvWake); the role
//	   runs again from its commits, and no crash is counted. A refused
//	   login asks the human.
//	3: Spec.OnLimit: under work.OnLimitFallback the first usage limit
//	   switches the rest of the run to the fallback agent (CmdStartAgent
//	   and CmdRunPhase with Fallback) instead of waiting; a phase that
//	   switched says so (EvPhaseDone Fallback).
//	4: Spec.Follow: the run's pull request is followed (FollowJob).
//	5: a ceiling crossed while another question is open interrupts the
//	   agents at work at once, as with none open; a budget checkpoint
//	   raised then keeps its own ceiling, limit and spend, and, once its
//	   turn comes, is asked only if the budget still holds its job: a
//	   raise answered meanwhile lets the job go on.
const Rules = 5

// ContextFile is a file the user gave every role of a run.
type ContextFile struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Budget is what a run may spend (seed 003 §5), fixed when it starts and
// raised only by a human's answer to a budget checkpoint. The machine
// holds it from the usage of every turn, which the shell prices.
type Budget struct {
	// Ceilings are the run's (every role and the implementers' phase
	// together).
	work.Ceilings
	// Roles are ceilings of single roles, in dollars, for all their
	// sessions (the implementer's covers the phase and the fixes).
	Roles map[string]float64 `json:"roles,omitempty"`
	// Estimates is one session of a role on each rung of its model
	// ladder, most capable first, in dollars: the project's history of
	// that role, else a size heuristic. A role without one is never
	// downgraded nor held for its estimate.
	Estimates map[string][]float64 `json:"estimates,omitempty"`
}

// Clone is a copy of b that shares no map with it.
func (b Budget) Clone() Budget {
	b.Roles, b.Estimates = maps.Clone(b.Roles), maps.Clone(b.Estimates)
	return b
}

// CeilingRun names the run's own ceiling in a budget checkpoint; any other
// name is a role's.
const CeilingRun = "run"

// Routing tunes the rules that route a run on evidence (seed 003 §3.2,
// §3.3): hive's own checks and three evaluators after each role, a floor
// of computed confidence, roles proven in this project.
type Routing struct {
	// Evaluate: after each role's work hive runs its mechanical checks
	// (70 points) and three evaluators judge it (30): completeness,
	// coherence, risk.
	Evaluate bool `json:"evaluate,omitempty"`
	// Floor is the computed confidence (of 100) under which the rest of
	// the run works one job at a time and a human looks first; 0: none.
	Floor int `json:"confidence_floor,omitempty"`
	// Proven are the roles whose recent runs in this project all passed
	// with high confidence: a quick objective leaves them out (never a
	// tester).
	Proven []string `json:"proven,omitempty"`
	// Quick says the objective is quick-class (a typo, a small change).
	Quick bool `json:"quick,omitempty"`
}
