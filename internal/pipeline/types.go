package pipeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// Spec is what a pipeline run is asked to do.
type Spec struct {
	Objective string   `json:"objective"`
	Workflow  Workflow `json:"workflow"`
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
const Rules = 4

// limitRules is the rules version from which a provider's limit makes the
// run wait.
const limitRules = 2

// fallbackRules is the rules version from which limits.on_limit fallback
// holds.
const fallbackRules = 3

// followRules is the rules version from which Spec.Follow holds.
const followRules = 4

// turnRules is the rules version from which the turn-fit rule holds.
const turnRules = 1

// ContextFile is a file the user gave every role of a run.
type ContextFile struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

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

// CommandType names an output of the machine.
type CommandType string

// Commands.
const (
	// CmdStartAgent: start Role's agent for Job's Attempt, with Context.
	CmdStartAgent CommandType = "start-agent"
	// CmdStopAgent: end the agent of Job/Attempt (PID, when a previous
	// process started it).
	CmdStopAgent CommandType = "stop-agent"
	// CmdLint: lint the architect's plans; answer with EvLinted.
	CmdLint CommandType = "lint"
	// CmdRunPhase: execute the architect's plans as a phase (implementers
	// in parallel worktrees, merged by hive); answer with EvPhaseDone.
	CmdRunPhase CommandType = "run-phase"
	// CmdRunTests: run the project's test command; answer with EvTestsRan.
	CmdRunTests CommandType = "run-tests"
	// CmdBuild: run the project's build for the build step Job; answer
	// with EvBuilt.
	CmdBuild CommandType = "build"
	// CmdEvaluate: run Role's mechanical checks on Job's Attempt and have
	// the three evaluators judge it; answer with EvEvaluated.
	CmdEvaluate CommandType = "evaluate"
	// CmdCheckpoint: Checkpoint waits for a human's answer (EvAnswer).
	CmdCheckpoint CommandType = "checkpoint"
	// CmdNote: something worth telling the human: a challenge routed, a
	// decision taken, a fix loop begun. Job, Text.
	CmdNote CommandType = "note"
	// CmdFinished: the run ended with Outcome; Text says why when it
	// did not complete.
	CmdFinished CommandType = "finished"
	// CmdWake: send EvWake at At (a timer, journaled when it fires).
	CmdWake CommandType = "wake"
	// CmdDeliver (FollowJob): push the run's branch and open its pull
	// request, or find the one already open for it; answer with
	// EvDelivered.
	CmdDeliver CommandType = "deliver"
	// CmdWatch (FollowJob): watch pull request PR until it is merged or
	// closed, or has what the machine routes (Routable) on its head;
	// answer with EvPullRequest.
	CmdWatch CommandType = "watch-pr"
	// CmdPush (FollowJob): push the fix, reply Replies on their threads
	// (each once), then answer with EvPushed.
	CmdPush CommandType = "push-fix"
)

// Command is one output of the machine: plain data.
type Command struct {
	Type       CommandType `json:"type"`
	Job        string      `json:"job,omitempty"`
	Role       string      `json:"role,omitempty"`
	Prompt     string      `json:"prompt,omitempty"` // the role's prompt variant
	Attempt    int         `json:"attempt,omitempty"`
	PID        int         `json:"pid,omitempty"`
	Context    *Context    `json:"context,omitempty"`
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	Outcome    string      `json:"outcome,omitempty"`
	Text       string      `json:"text,omitempty"`
	// BudgetUSD and BudgetTokens (CmdStartAgent, CmdRunPhase) are the most
	// the session or the phase may spend (0: no limit); Rung is the step
	// down its role's model ladder the session runs on (0: the role's own
	// model).
	BudgetUSD    float64 `json:"budget_usd,omitempty"`
	BudgetTokens int64   `json:"budget_tokens,omitempty"`
	Rung         int     `json:"rung,omitempty"`
	// Interrupt (CmdStopAgent): end the agent's turn in flight first, so
	// that its usage is reported (a budget stop).
	Interrupt bool `json:"interrupt,omitempty"`
	// At (CmdWake) is when to send EvWake.
	At time.Time `json:"at,omitzero"`
	// Fallback (CmdStartAgent, CmdRunPhase): start on the fallback agent
	// (models.fallback), since a usage limit switched the run to it.
	Fallback bool `json:"fallback,omitempty"`
	// PR (CmdWatch, CmdPush) is the run's pull request; Handled (CmdWatch)
	// the review threads already answered, with how many comments each
	// had then; Replies (CmdPush) the answers to post.
	PR      *PullRequest   `json:"pr,omitempty"`
	Handled map[string]int `json:"handled,omitempty"`
	Replies []Reply        `json:"replies,omitempty"`
}

// Context is what a role's agent is told beyond the objective and its
// role's prompt: why it runs again, and what it must take into account.
type Context struct {
	// Challenge: another role found a blocking problem in this role's
	// work ("Challenge from ROLE").
	Challenge *Challenge `json:"challenge,omitempty"`
	// Overruled: the human overruled this role's own challenge; it must
	// proceed.
	Overruled *Challenge `json:"overruled,omitempty"`
	// Rechecking: this role challenged an earlier one, which has answered
	// the challenge; check again, then do the work.
	Rechecking *Challenge `json:"rechecking,omitempty"`
	// Fix: the tests that fail, for the implementer to fix.
	Fix *Tests `json:"fix,omitempty"`
	// ContractErrors: the role's last report broke its contract; Feedback
	// says so to the agent.
	ContractErrors []string `json:"contract_errors,omitempty"`
	// LintErrors: the architect's plans did not lint.
	LintErrors []string `json:"lint_errors,omitempty"`
	// Decisions: the answers to the questions this role asked.
	Decisions []Decision `json:"decisions,omitempty"`
	// Warnings: concerns earlier roles reported with partial work.
	Warnings []string `json:"warnings,omitempty"`
	// Retry says why an earlier attempt is replaced (it crashed, it
	// stopped without a report, hive was restarted).
	Retry string `json:"retry,omitempty"`
	// Interrupted: the replaced attempt of a role that writes was cut off
	// mid-turn (hive was restarted, the agent crashed or hung, the budget
	// stopped it). What it left uncommitted in the run's worktree is set
	// aside before this attempt starts, kept where this one can read it:
	// the attempt starts from the last commit, as it would had the one
	// before it ended its turn.
	Interrupted bool `json:"interrupted,omitempty"`
	// BuildFailed: the project's build failed, for the role that fixes
	// it (the step's on_failure).
	BuildFailed *Tests `json:"build_failed,omitempty"`
	// Interview: the human's answers to the interviewer's questions, for
	// every role after it.
	Interview []Decision `json:"interview,omitempty"`
	// Findings: blocker findings to fix, or, for their reviewer, to
	// look at again after the fix.
	Findings []Finding `json:"findings,omitempty"`
	// Task: what the workflow's step asks of the role beside the
	// objective.
	Task string `json:"task,omitempty"`
	// Evaluation: the evaluators' blocking verdicts on the role's last
	// attempt, to address.
	Evaluation []Verdict `json:"evaluation,omitempty"`
	// Feedback: why the human rejected the role's last attempt.
	Feedback string `json:"feedback,omitempty"`
	// CI: the run's pull request's failed checks on its head, with the
	// failing part of their logs, to fix (FollowJob).
	CI []CIFailure `json:"ci,omitempty"`
	// Review: the pull request's open review threads, to address.
	Review []Thread `json:"review,omitempty"`
}

// with is c and what o adds of what sends a fixer back (failing tests, a
// failing build, findings, verdicts, feedback): a fix ordered while an
// earlier one waits to run joins it.
func (c *Context) with(o *Context) *Context {
	if c == nil {
		return o
	}
	out := *c
	out.Fix = cmp.Or(o.Fix, c.Fix)
	out.BuildFailed = cmp.Or(o.BuildFailed, c.BuildFailed)
	out.Findings = append(slices.Clip(c.Findings), o.Findings...)
	out.Evaluation = append(slices.Clip(c.Evaluation), o.Evaluation...)
	out.Feedback = strings.TrimSpace(c.Feedback + "\n" + o.Feedback)
	out.CI = append(slices.Clip(c.CI), o.CI...)
	out.Review = append(slices.Clip(c.Review), o.Review...)
	return &out
}

// Challenge is a role's report that an earlier role's work has a blocking
// problem.
type Challenge struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Issue      string `json:"issue"`
	Evidence   string `json:"evidence,omitempty"`
	Suggestion string `json:"suggestion,omitempty"`
	// Round is 1 for the first challenge of a handoff, 2 for the second
	// (which a human decides).
	Round int `json:"round"`
}

// Decision is a needs_input answered: by the human, or by its default.
type Decision struct {
	Job      string   `json:"job"`
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
	Choice   string   `json:"choice"`
	By       string   `json:"by"` // "human", "default" (--yes or can_proceed_with_default)
}

// CheckpointKind says why a human is asked.
type CheckpointKind string

const (
	KindChallenge  CheckpointKind = "challenge"    // a handoff challenged a second time
	KindTests      CheckpointKind = "tests"        // tests still fail after the fix loops
	KindNeedsInput CheckpointKind = "needs-input"  // a role asks for a decision
	KindBlocked    CheckpointKind = "blocked"      // a role is blocked, or keeps crashing
	KindLint       CheckpointKind = "lint"         // the architect's plans still do not lint
	KindPhase      CheckpointKind = "phase"        // the implementers' phase did not complete
	KindBudget     CheckpointKind = "budget"       // a ceiling of the budget is reached
	KindBuild      CheckpointKind = "build"        // the build still fails after the fix loops, or cannot run
	KindReview     CheckpointKind = "review"       // a step asks a human to look at its work (checkpoint)
	KindFindings   CheckpointKind = "findings"     // reviewers found open blockers
	KindEvaluation CheckpointKind = "evaluation"   // the evaluators block a second time, or confidence is under the floor
	KindFollow     CheckpointKind = "pull-request" // the pull request still fails after the fix loops, or a push failed
)

// Answers a checkpoint offers (needs-input takes any text).
const (
	AnswerAccept   = "accept"   // challenge: re-run the challenged role, then the challenger
	AnswerOverride = "override" // challenge: the challenger proceeds
	AnswerRetry    = "retry"    // run the role (or the fix loop) once more
	AnswerContinue = "continue" // go on to the next role as it is
	AnswerAbort    = "abort"    // end the run; the work stays on its branch
	AnswerRaise    = "raise"    // budget: raise the ceiling (or raise AMOUNT) and go on
	AnswerStop     = "stop"     // budget: end the run; the work stays on its branch
	AnswerDetails  = "details"  // a role's work: show every check and note, and ask again
	AnswerReject   = "reject"   // a role's work: reject FEEDBACK runs the role again with it
)

// Checkpoint is a question for the human.
type Checkpoint struct {
	ID       int            `json:"id"`
	Job      string         `json:"job"`
	Kind     CheckpointKind `json:"kind"`
	Question string         `json:"question"`
	Details  string         `json:"details,omitempty"`
	Options  []string       `json:"options"`
	// Challenge shows both sides of a second challenge.
	Challenge *Challenge `json:"challenge,omitempty"`
	Previous  *Challenge `json:"previous,omitempty"`
	Default   string     `json:"default,omitempty"`
	// Ceiling (KindBudget) is the ceiling reached: CeilingRun or a role;
	// Limit and Spent are its amount and what is spent of it, in dollars,
	// or in tokens for a TokenCeiling.
	Ceiling      string  `json:"ceiling,omitempty"`
	Limit        float64 `json:"limit,omitempty"`
	Spent        float64 `json:"spent,omitempty"`
	TokenCeiling bool    `json:"token_ceiling,omitempty"`
	// Findings (KindFindings) are the findings of the jobs From, as they
	// stand; View asks to show them with their code.
	Findings []Finding `json:"findings,omitempty"`
	From     []string  `json:"from,omitempty"`
	View     bool      `json:"view,omitempty"`
	// Interview (KindNeedsInput): one of the interviewer's questions.
	Interview bool `json:"interview,omitempty"`
	// Evaluation (KindReview, KindEvaluation) is the role's work judged:
	// the three verdicts, the computed confidence and its parts.
	Evaluation *Evaluation `json:"evaluation,omitempty"`
}

// Outcomes of a run.
const (
	OutcomeComplete = "complete"
	OutcomeFailed   = "failed"
	OutcomeAborted  = "aborted"
)

// Example is an answer the checkpoint takes, for a command shown to the
// user: its default, else its first option, else (a question of free
// text) a placeholder.
func (cp *Checkpoint) Example() string {
	switch {
	case cp.Default != "":
		return cp.Default
	case len(cp.Options) > 0:
		return cp.Options[0]
	}
	return "your answer"
}

// Check says whether text answers the checkpoint: one of its options (in
// any case), for a question any text, for the budget a raise above what
// is spent, or stop.
func (cp *Checkpoint) Check(text string) error {
	text = strings.TrimSpace(text)
	if cp.Kind == KindBudget {
		_, _, err := cp.raise(text)
		return err
	}
	if cp.Kind == KindFindings {
		return cp.checkFindings(text)
	}
	if cp.Kind == KindReview || cp.Kind == KindEvaluation {
		return cp.checkReview(text)
	}
	if cp.Kind == KindNeedsInput {
		if text == "" {
			return fmt.Errorf("an empty answer to the question of %s", cp.Job)
		}
		return nil
	}
	if !slices.Contains(cp.Options, strings.ToLower(text)) {
		return fmt.Errorf("answer one of %s, not %q", strings.Join(cp.Options, ", "), text)
	}
	return nil
}
