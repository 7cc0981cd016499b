package roleplan

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

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
	// CmdStopForHuman: nobody answered Checkpoint (Job's) within the wait
	// the process gave (Event.Wait): the process stops its agents and
	// ends, the question kept for its answer and a resume.
	CmdStopForHuman CommandType = "stop-for-human"
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

// With is c and what o adds of what sends a fixer back (failing tests, a
// failing build, findings, verdicts, feedback): a fix ordered while an
// earlier one waits to run joins it.
func (c *Context) With(o *Context) *Context {
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
