package roleplan

import (
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// EventType names an input of the machine.
type EventType string

// Events. Each is journaled before the machine steps it.
const (
	EvStarted EventType = "pipeline-started" // Spec
	// EvResumed: a new hive process took the run over; agents of the old
	// one are gone or must be ended.
	EvResumed      EventType = "pipeline-resumed"
	EvAgentStarted EventType = "role-started" // Job, Attempt, PID
	EvReport       EventType = "role-report"  // Job, Attempt, Report: the agent's HIVE_REPORT; Errors: what breaks its role's contract
	EvAgentExited  EventType = "role-exited"  // Job, Attempt, ExitCode, Reason
	EvUsage        EventType = "role-usage"   // Job, Attempt, Spend: a turn's tokens and the session's cost so far
	EvToolCall     EventType = "role-tool"    // Job, Attempt, Tool, Text: a tool call and its fingerprint, for the loop guard
	EvLimited      EventType = "role-limited" // Job, Attempt, Limit: the turn ended on the provider's limit (rules 2)
	EvWake         EventType = "wake"         // the time a CmdWake asked for has come
	// EvLinted: the architect's plans were linted; Errors are the lint's
	// errors, one per line with file and line.
	EvLinted EventType = "plans-linted"
	// EvPhaseDone: the phase of the architect's plans ended. OK says
	// every plan completed and merged; Reason says why not; Report is an
	// implementer's challenge of the plans, if one came; Spend is what the
	// phase's agents used in all of PhaseRun, the phase's journal run.
	EvPhaseDone EventType = "phase-done"
	EvTestsRan  EventType = "tests-ran" // Tests: the project's test command in the run's worktree
	EvBuilt     EventType = "built"     // Tests: the project's build command (a build step), Job
	EvAnswer    EventType = "answer"    // Checkpoint (its id), Text
	// EvEvaluated: Job's Attempt judged: hive's checks and the
	// evaluators' verdicts (Evaluation).
	EvEvaluated EventType = "role-evaluated"
	// EvDelivered (FollowJob): the run's branch was pushed and its pull
	// request opened (or found, on a resume): PR; or not, OK false and
	// Reason why. Notes say what was done, for the run's delivery.
	EvDelivered EventType = "pr-delivered"
	// EvPullRequest (FollowJob): the pull request as a watch found it:
	// merged or closed, or with CI failures or review threads to route.
	EvPullRequest EventType = "pr-state"
	// EvPushed (FollowJob): the fix was pushed (PR.Head is the new head)
	// and the review threads it answers were replied to; or not (OK false,
	// Reason).
	EvPushed EventType = "pr-pushed"
	// EvNote (Job, Text) is no input of the machine, which refuses it: it
	// is what the shell that carries a command out says to whoever
	// follows the run (a role cut off, a tool refused, the phase's
	// workflow); a host shows it and never steps or journals it.
	EvNote EventType = "note"
)

// Event is one input of the machine: plain data.
type Event struct {
	Type       EventType    `json:"type"`
	Time       time.Time    `json:"time,omitzero"`
	Spec       *Spec        `json:"spec,omitempty"`
	Job        string       `json:"job,omitempty"`
	Attempt    int          `json:"attempt,omitempty"`
	PID        int          `json:"pid,omitempty"`
	Report     *work.Report `json:"report,omitempty"`
	Limit      *work.Limit  `json:"limit,omitempty"` // EvLimited
	ExitCode   int          `json:"exit_code,omitempty"`
	Reason     string       `json:"reason,omitempty"`
	Errors     []string     `json:"errors,omitempty"`
	OK         bool         `json:"ok,omitempty"`
	Tests      *Tests       `json:"tests,omitempty"`
	Checkpoint int          `json:"checkpoint,omitempty"`
	Text       string       `json:"text,omitempty"`
	Spend      work.Spend   `json:"spend,omitzero"`
	// Wait (EvStarted, EvResumed) is how long the process waits for the
	// answer to a question before it stops for a human (CmdStopForHuman):
	// zero at once, negative never. Nil, from a hive that decided this in
	// its shell: the machine never stops for a human.
	Wait *time.Duration `json:"wait,omitempty"`
	// Publish ("pr", "push") and NoMerge (EvResumed) are what the resumed
	// process was told (--pr, --push, --no-merge): they win over the
	// spec's in how the ended run's work is handed over (Handover).
	Publish string `json:"publish,omitempty"`
	NoMerge bool   `json:"no_merge,omitempty"`
	// MidTurn (EvUsage): the spend of one request in the middle of a turn;
	// the turn's end comes with the rest.
	MidTurn bool `json:"mid_turn,omitempty"`
	// Model (EvUsage) is the model that did the turn, when the CLI says.
	Model string `json:"model,omitempty"`
	// Tool (EvToolCall) is the tool an agent called; Text its input's
	// fingerprint (a hash and a few words, never the whole input).
	Tool string `json:"tool,omitempty"`
	// Plans are the phase's plans as it ended (EvPhaseDone).
	Plans []PlanRun `json:"plans,omitempty"`
	// OverBudget (EvPhaseDone): the phase stopped at its allotment of the
	// budget; its plans wait for a raise where they stopped.
	OverBudget bool `json:"over_budget,omitempty"`
	// PhaseRun (EvPhaseDone) is the phase's run in its own journal.
	PhaseRun int64 `json:"phase_run,omitempty"`
	// Fallback (EvPhaseDone): a usage limit switched the phase to the
	// fallback agent, and so the rest of the run.
	Fallback bool `json:"fallback,omitempty"`
	// Changed (EvBuilt) is how many files the run has changed since its
	// base, as hive counted them.
	Changed int `json:"changed,omitempty"`
	// MaxAttempts (EvReport with Errors) is how many reports that break
	// the contract the role may write before a human is asked.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// Evaluation (EvEvaluated) is the role's work judged.
	Evaluation *Evaluation `json:"evaluation,omitempty"`
	// PR (EvDelivered, EvPullRequest, EvPushed) is the run's pull request
	// as the event found it; CI its failed checks and Threads its review
	// threads (EvPullRequest); Notes (EvDelivered) what delivery did.
	PR      *PullRequest `json:"pr,omitempty"`
	CI      []CIFailure  `json:"ci,omitempty"`
	Threads []Thread     `json:"threads,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
}

// PlanRun is one of the architect's plans as its implementer ran it.
type PlanRun struct {
	ID       string          `json:"id"`
	State    phase.PlanState `json:"state"`
	Started  time.Time       `json:"started,omitzero"`
	Finished time.Time       `json:"finished,omitzero"`
	Spend    work.Spend      `json:"spend,omitzero"`
}

// Tests is one run of the project's test command.
type Tests struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	// Failing names the failing tests the output showed.
	Failing []string `json:"failing,omitempty"`
	// Output is the output's tail, for the implementer who fixes them.
	Output string `json:"output,omitempty"`
	// Unrunnable: the command itself could not run (a tool is missing):
	// no implementer can fix that, a human must.
	Unrunnable bool `json:"unrunnable,omitempty"`
	// None: nothing was checked. The project has no such command (no
	// tests found, nothing to build), or its test runner found no test;
	// Output says which. The step is skipped, never passed.
	None bool `json:"none,omitempty"`
}

// Ran says whether a command ran and checked something: not None, and not
// the command "(none)" that older versions journaled for none found.
func (t *Tests) Ran() bool { return t != nil && !t.None && t.Command != "" && t.Command != "(none)" }
