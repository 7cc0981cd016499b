package phase

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/work"
)

// Version is the version of the engine's events and their meaning, journaled
// with each run's start and each resume. A journal written by an older
// engine replays (each version keeps the events of the ones before it
// meaning what they meant); one written by a newer engine is refused, since
// this one cannot know what its events mean.
//
//	1: journals before the version was recorded.
//	2: the phase verification is a job: the must_haves' check, then a
//	   verifier agent whose events name the plan VerifyID; every turn's
//	   end is an EvUsage; EvAgentStarted names the role.
//	3: the engine decides when a run stops for a human: run-started and
//	   resumed carry the process's Wait; EvWake answers CmdWake.
//	4: EvUsage carries the turn's cost as hive priced it (Priced, TurnUSD)
//	   and its cache tokens; EvToolCall feeds the loop guard; the spec
//	   carries a Budget.
//	5: EvSpend: what an agent spent in the middle of a turn (one API
//	   request), counted as it happens; the turn's EvUsage carries the rest.
//	6: EvUsage and EvSpend carry the session's context occupancy
//	   (ContextTokens, ContextWindow); a live session past the handoff
//	   threshold rolls over to a fresh one; EvCompacted journals the CLI's
//	   own compaction; EvPause pauses the whole team.
//	7: a dollar budget holds every new turn (an agent's start, an answer
//	   sent to a live agent) while less than the largest turn seen is left:
//	   the budget checkpoint opens, the turns in flight go on (reaching the
//	   ceiling still interrupts them). A run follows the rules of the
//	   engine version its run-started, or its latest resumed, event names.
//	8: a resolver that ends without saying it resolved the conflict (it
//	   crashed, hung, or exited without a word) and leaves it unresolved
//	   is followed by another resolver, up to MaxResolves, as after a
//	   resume, rather than by a human at once.
//	9: EvLimited: an agent's turn ended on its provider's limit. A usage
//	   limit holds every new agent until its reset (a CmdWake), a rate
//	   limit or an overload for a backoff; the agents at work go on; the
//	   plan whose agent met it goes back to the queue, to go on from its
//	   commits, without spending a retry. A refused login fails the plan
//	   for the human, as a failed turn did.
//	10: RunSpec.OnLimit: under work.OnLimitFallback the first usage limit
//	   switches the rest of the run to the fallback agent (start commands
//	   with Fallback) instead of waiting.
//	11: under a dollar budget, an answer to a live agent whose turn has
//	   not ended yet (it asked, and its result is still to come) is sent
//	   at that turn's end, when the turn's cost is known (answerAtTurnEnd):
//	   an agent never has two turns in flight.
const Version = 11

// NewerError refuses a run that a newer hive journaled.
type NewerError struct{ Version int }

func (e *NewerError) Error() string {
	return fmt.Sprintf("this run was journaled by a newer hive (engine version %d; this hive understands up to %d): run it with that hive (upgrade this one), or start the phase afresh with --fresh", e.Version, Version)
}

// RunSpec is everything the engine needs to know about a run, fixed when the
// run starts and journaled with the run-started event, so that a resume
// schedules the same graph even if the plan files changed meanwhile.
type RunSpec struct {
	Phase string     `json:"phase"`
	Plans []PlanSpec `json:"plans"`
	// MaxConcurrent is the most agents running at once (at least 1).
	MaxConcurrent int `json:"max_concurrent"`
	// Dynamic starts a plan as soon as its dependencies are complete instead
	// of waiting for the whole previous wave.
	Dynamic bool `json:"dynamic,omitempty"`
	// SharedTree means plans share one working tree: two plans run at once
	// only when their files are disjoint (and a plan that declares no files
	// runs alone).
	SharedTree bool `json:"shared_tree,omitempty"`
	// Team means live sessions: an executor at a checkpoint stays alive and
	// gets the answer as a message. Otherwise it ends at the checkpoint and
	// a continuation agent gets the answer (standalone mode).
	Team bool `json:"team,omitempty"`
	// Stall is how long an agent may print nothing before the shell
	// reports it silent (EvSilent); 0 means 5 minutes. The engine asks for
	// the next report of a silence that lasts (CmdWatch).
	Stall time.Duration `json:"stall,omitempty"`
	// AutoAnswer answers what an unattended run may answer (--yes):
	// human-verify "approved", a decision's first option, a failed plan
	// "retry" once and then "skip". Never human-action, deviations or
	// gate="blocking-human".
	AutoAnswer bool `json:"auto_answer,omitempty"`
	// Retries is how many times an agent that ended without finishing its
	// plan (a crash, a hang) is replaced by a continuation before the human
	// is asked.
	Retries int `json:"retries,omitempty"`
	// Worktrees means each plan works in a git worktree of its own: a plan
	// that passes its spot-checks is merged into the integration branch
	// (CmdMerge) and is complete only once merged (and, with Gate, once the
	// post-merge gate passes).
	Worktrees bool `json:"worktrees,omitempty"`
	// Resolver sends a merge conflict to a resolver agent (role comb)
	// before asking a human.
	Resolver bool `json:"resolver,omitempty"`
	// Gate runs the post-merge gate after each merge (CmdGate).
	Gate bool `json:"gate,omitempty"`
	// Verify verifies the phase once every plan is complete (CmdVerify).
	Verify bool `json:"verify,omitempty"`
	// Verifier has a verifier agent (role verifier) review the phase once
	// its must_haves pass their mechanical checks.
	Verifier bool `json:"verifier,omitempty"`
	// Agent is the agent the run was started with (--agent or the
	// configured executor CLI): a resume runs the same one.
	Agent string `json:"agent,omitempty"`
	// Budget is what the run may spend; the zero Budget has no limit.
	Budget Budget `json:"budget,omitzero"`
	// Guard tunes the loop guard; zero fields take the defaults.
	Guard work.LoopGuard `json:"loop_guard,omitzero"`
	// Context says when a live session hands over to a fresh one; zero
	// fields take the defaults.
	Context ContextLimits `json:"context,omitzero"`
	// OnLimit is what the run does at a usage limit (limits.on_limit):
	// the engine acts on fallback; stop is the shell's (it ends the
	// process once the wait holds every agent).
	OnLimit work.OnLimit `json:"on_limit,omitempty"`
}

// PlanSpec is the engine's view of one plan.
type PlanSpec struct {
	ID        string   `json:"id"`
	Name      string   `json:"name,omitempty"`
	Wave      int      `json:"wave"`
	DependsOn []string `json:"depends_on,omitempty"`
	Files     []string `json:"files,omitempty"`
	Tasks     int      `json:"tasks"`
	// Estimate is how long the plan is expected to take, when something
	// knows (past runs, the plan's author). When every plan to run has one,
	// scheduling priorities weigh paths by estimates instead of task counts,
	// which matters when plans' tasks differ a lot in size.
	Estimate time.Duration `json:"estimate,omitempty"`
	// Done marks a plan already complete on disk when the run started (its
	// SUMMARY exists and passes the spot-checks): it is not run again.
	Done bool `json:"done,omitempty"`
	// Stops are the plan's checkpoint tasks, for gates and default options.
	Stops []Stop `json:"stops,omitempty"`
	// Since is the commit this run's work on the plan starts after: only
	// commits made after it (not reachable from it) count as the plan's
	// tasks. Real projects reuse plan ids across milestones, so older
	// commits naming the same id are another plan's. "" when the
	// repository had no commit.
	Since string `json:"since,omitempty"`
	// Hash identifies the plan file's content when the run started. A new
	// run keeps an unfinished earlier run's Since for a plan only while its
	// file is unchanged, so committed tasks are never done twice.
	Hash string `json:"hash,omitempty"`
}

// Stop is a checkpoint task of a plan.
type Stop struct {
	Task    int      `json:"task"`
	Type    string   `json:"type"`           // human-verify, decision, human-action
	Gate    string   `json:"gate,omitempty"` // "", "blocking", "blocking-human"
	Options []string `json:"options,omitempty"`
}

// EventType names an input of the engine.
type EventType string

// Events. Each carries the fields noted beside it.
const (
	// EvRunStarted starts a run: Spec.
	EvRunStarted EventType = "run-started"
	// EvResumed says a new hive process took over the run: every plan that
	// was running is restarted.
	EvResumed EventType = "resumed"
	// EvWake: the time a CmdWake asked for has come.
	EvWake EventType = "wake"
	// EvLimited: Plan, Attempt, Limit: the agent's turn ended on its
	// provider's limit, not on its work (version 9).
	EvLimited EventType = "limited"
	// EvAgentStarted: Plan, Attempt, PID, Role ("" for an executor).
	EvAgentStarted EventType = "agent-started"
	// EvProgress: Plan, Attempt, Task, Total, Text.
	EvProgress EventType = "progress"
	// EvPlanComplete: the agent reported PLAN COMPLETE. Plan, Attempt, Commits, Text.
	EvPlanComplete EventType = "plan-complete"
	// EvPlanFailed: the agent reported PLAN FAILED. Plan, Attempt, Reason.
	EvPlanFailed EventType = "plan-failed"
	// EvAgentExited: the agent process ended. Plan, Attempt, ExitCode, Reason.
	EvAgentExited EventType = "agent-exited"
	// EvSpotChecked: the result of a spot-check. Plan, Attempt, OK, Reason.
	EvSpotChecked EventType = "spot-checked"
	// EvCheckpoint: the agent stopped for a human. Plan, Attempt, Checkpoint.
	EvCheckpoint EventType = "checkpoint"
	// EvDeviation: the agent asks for an architectural decision (rule 4).
	// Plan, Attempt, Checkpoint.
	EvDeviation EventType = "deviation"
	// EvAnswer: a human (or --yes) answered. Plan, CheckpointID (0: the
	// plan's open checkpoint), Text, By.
	EvAnswer EventType = "answer"
	// EvSilent: the agent has printed nothing for a while. Plan, Attempt, Text.
	EvSilent EventType = "silent"
	// EvCommitsChecked: whether the plan committed recently. Plan, Attempt, OK.
	EvCommitsChecked EventType = "commits-checked"
	// EvUsage: an agent's turn ended (every turn, with or without usage).
	// Plan, Attempt, InputTokens, OutputTokens (of the turn), CostUSD (of
	// the session so far).
	EvUsage EventType = "usage"
	// EvSpend: an agent spent in the middle of a turn (one API request, as
	// its CLI reported it): counted and held to the budget at once, so that
	// a long turn cannot run far past the ceiling before its end says so.
	// The turn's EvUsage then carries only the rest of the turn.
	EvSpend EventType = "spend"
	// EvMerged: the result of a merge. Plan, Attempt, OK, Reason; Files
	// lists the conflicting files when the merge conflicted.
	EvMerged EventType = "merged"
	// EvGateChecked: the result of the post-merge gate. Plan, Attempt, OK,
	// Text (the failing output).
	EvGateChecked EventType = "gate-checked"
	// EvReport: the agent wrote a HIVE_REPORT block. Plan, Attempt, Report.
	EvReport EventType = "report"
	// EvToolCall: the agent called a tool. Plan, Attempt, Tool, Text (a
	// fingerprint of the input: equal inputs, equal texts).
	EvToolCall EventType = "tool-call"
	// EvCompacted: the agent's CLI compacted its conversation on its own
	// (Claude Code's compact_boundary). Plan, Attempt, Text (the trigger:
	// auto or manual), PreTokens, ContextTokens (after).
	EvCompacted EventType = "compacted"
	// EvPause: a human asked the whole team to pause (`hive pause`): every
	// live agent commits its work in progress and writes its notes, the
	// sessions end, and the run stops until it is resumed.
	EvPause EventType = "pause"
	// EvVerified: the result of CmdVerify. Text is the status (passed,
	// human_needed, gaps_found), Reason the details. Events of the
	// verifier's agent name the plan VerifyID.
	EvVerified EventType = "verified"
)

// Event is one input of the engine. It is plain data so that it can be
// journaled as JSON and replayed.
type Event struct {
	Type     EventType `json:"type"`
	Time     time.Time `json:"time"`
	Plan     string    `json:"plan,omitempty"`
	Attempt  int       `json:"attempt,omitempty"`
	PID      int       `json:"pid,omitempty"`
	Role     string    `json:"role,omitempty"`
	Task     int       `json:"task,omitempty"`
	Total    int       `json:"total,omitempty"`
	Text     string    `json:"text,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	ExitCode int       `json:"exit_code,omitempty"`
	OK       bool      `json:"ok,omitempty"`
	Commits  []string  `json:"commits,omitempty"`
	Files    []string  `json:"files,omitempty"`
	Spec     *RunSpec  `json:"spec,omitempty"`
	// Version is the engine version of the hive that journaled a
	// run-started or resumed event; 0 means 1, before it was recorded.
	Version int `json:"engine_version,omitempty"`
	// Attended and Wait, on run-started and resumed, say when the process
	// stops for a human (CmdStopForHuman) once it is idle at open
	// checkpoints: never when Attended (a human answers in it); else at
	// once at a checkpoint that only a human may answer (an unattended run
	// met it), or after waiting Wait for `hive answer` (0 at once, a
	// negative Wait never).
	Attended bool          `json:"attended,omitempty"`
	Wait     time.Duration `json:"wait,omitempty"`

	Checkpoint   *Checkpoint  `json:"checkpoint,omitempty"`
	Report       *work.Report `json:"report,omitempty"`
	Limit        *work.Limit  `json:"limit,omitempty"` // EvLimited
	CheckpointID int          `json:"checkpoint_id,omitempty"`
	By           string       `json:"by,omitempty"` // who answered: terminal, hive answer, auto

	InputTokens      int64   `json:"input_tokens,omitempty"`
	OutputTokens     int64   `json:"output_tokens,omitempty"`
	CacheReadTokens  int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd,omitempty"` // the CLI's figure for the session so far
	// Priced says TurnUSD is the turn's cost as hive priced it from Model's
	// price (0 for a model without one); without it the CLI's figure counts.
	Priced  bool    `json:"priced,omitempty"`
	TurnUSD float64 `json:"turn_usd,omitempty"`
	Model   string  `json:"model,omitempty"`
	Tool    string  `json:"tool,omitempty"` // EvToolCall: the tool's name
	// ContextTokens is how full the session's context is (EvUsage,
	// EvSpend: the input, cache read and cache write tokens of its latest
	// API request; EvCompacted: after the compaction), ContextWindow the
	// model's window as the CLI said (0: unknown), PreTokens the context
	// before a compaction.
	ContextTokens int64 `json:"context_tokens,omitempty"`
	ContextWindow int64 `json:"context_window,omitempty"`
	PreTokens     int64 `json:"pre_tokens,omitempty"`
}

// ExitNote says how an agent ended before PLAN COMPLETE, as its
// EvAgentExited tells: the exit code, and why when the shell knows.
func (ev Event) ExitNote() string {
	s := fmt.Sprintf("agent exited with code %d before PLAN COMPLETE", ev.ExitCode)
	if ev.Reason != "" {
		s += " (" + ev.Reason + ")"
	}
	return s
}

// Checkpoint kinds.
const (
	KindCheckpoint = "checkpoint" // CHECKPOINT / CHECKPOINT REACHED
	KindDeviation  = "deviation"  // DEVIATION: rule-4
	KindFailure    = "failure"    // a failed plan: retry, skip or abort
	KindPermission = "permission" // a live agent asks to use a tool: allow, deny or always
	KindMerge      = "merge"      // a merge conflict to resolve by hand: done or abort
	KindVerify     = "verify"     // the phase verification needs a human: approved or gaps
)

// Checkpoint is a stop for a human: a checkpoint task, an architectural
// deviation, or a failed plan.
type Checkpoint struct {
	ID       int      `json:"id"` // 1, 2, ... within the run, in arrival order
	Plan     string   `json:"plan"`
	Attempt  int      `json:"attempt"`
	Kind     string   `json:"kind"`
	Type     string   `json:"type"` // human-verify, decision, human-action, auth-gate, architectural-deviation, plan-failed, ...
	Task     int      `json:"task,omitempty"`
	Done     int      `json:"done,omitempty"`
	Total    int      `json:"total,omitempty"`
	Details  string   `json:"details,omitempty"`
	Awaiting string   `json:"awaiting,omitempty"`
	Options  []string `json:"options,omitempty"`
	// Default is the choice --yes may take (a HIVE_REPORT's needs_input
	// that can proceed with its default).
	Default    string `json:"default,omitempty"`
	Gate       string `json:"gate,omitempty"`
	Standalone bool   `json:"standalone,omitempty"` // the agent is gone: the answer goes to a continuation
	Raw        string `json:"raw,omitempty"`        // the agent's message, verbatim
	// Worktree and Branch are where the plan's agent works: where a human
	// looks to verify or to act. The runner fills them in; "" when unknown.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// A permission checkpoint (Type "permission") names the agent's request:
	Tool       string    `json:"tool,omitempty"`       // the tool it wants to use
	RequestID  string    `json:"request_id,omitempty"` // the CLI's request id, for the answer
	Input      string    `json:"input,omitempty"`      // the tool's input, JSON
	Raised     time.Time `json:"raised"`
	Answer     string    `json:"answer,omitempty"`
	AnsweredBy string    `json:"answered_by,omitempty"`
}

// Copy gives commands their own copy of cp: commands are plain data, and
// the engine's checkpoint goes on changing after they are returned.
func (cp *Checkpoint) Copy() *Checkpoint {
	c := *cp
	c.Options = append([]string(nil), cp.Options...)
	return &c
}

// Continuation tells a new agent where its plan stands.
type Continuation struct {
	// Checkpoint is the answered checkpoint to resume from; nil when the
	// agent replaces one that failed or stopped.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	Reason     string      `json:"reason"`
	// Answered are the plan's other checkpoints answered so far, oldest
	// first, each with its answer: a continuation agent must never ask a
	// question the human already answered.
	Answered []Checkpoint `json:"answered,omitempty"`
	// Fix is the failing output of the post-merge gate, for a fix task.
	Fix string `json:"fix,omitempty"`
	// Conflict lists the files a resolver agent (role comb) must resolve.
	Conflict []string `json:"conflict,omitempty"`
	// Rollover: the agent replaces a live session that handed over before
	// its context filled (or was paused); Notes are what that session
	// wrote when asked for its work in progress (its HIVE_REPORT), and
	// every later continuation of the plan carries them too.
	Rollover bool         `json:"rollover,omitempty"`
	Notes    *work.Report `json:"notes,omitempty"`
}

// CommandType names an output of the engine.
type CommandType string

// Commands.
const (
	// CmdStartAgent: start an agent on Plan for Attempt.
	CmdStartAgent CommandType = "start-agent"
	// CmdStopAgent: end the agent of Plan/Attempt (close its session; kill
	// its process group if it does not go). PID names the process when the
	// engine knows it, so that a resumed run can end an agent that the
	// previous hive process left behind.
	CmdStopAgent CommandType = "stop-agent"
	// CmdSpotCheck: check Plan's SUMMARY and commits; answer with EvSpotChecked.
	// After is "complete" when the agent reported PLAN COMPLETE, "exit" when
	// it ended without doing so.
	CmdSpotCheck CommandType = "spot-check"
	// CmdPlanState: Plan entered State (Reason says why, for failed and skipped).
	CmdPlanState CommandType = "plan-state"
	// CmdWaveStarted: the first plan of Wave started (rigid mode: the wave began).
	CmdWaveStarted CommandType = "wave-started"
	// CmdRunFinished: every plan is final. Reason is the outcome.
	CmdRunFinished CommandType = "run-finished"
	// CmdSend: send the live agent of Plan/Attempt the Message of kind
	// Message about Text (the answer; for a ping, how long it was silent).
	// The words are the runner's: the engine says what to tell, not how.
	CmdSend CommandType = "send"
	// CmdCheckpointOpened: Checkpoint waits for an answer (show it; write
	// its .pending-checkpoint file). Also repeated after a resume.
	CmdCheckpointOpened CommandType = "checkpoint-opened"
	// CmdCheckpointClosed: Checkpoint was answered.
	CmdCheckpointClosed CommandType = "checkpoint-closed"
	// CmdNeedHuman: an unattended run met Checkpoint, which only a human may answer.
	CmdNeedHuman CommandType = "need-human"
	// CmdCheckCommits: has Plan committed since Since? Answer with EvCommitsChecked.
	CmdCheckCommits CommandType = "check-commits"
	// CmdPermission: answer the permission request of the live agent of
	// Plan/Attempt named by Checkpoint (RequestID, Tool, Input): Text is
	// "allow" or "deny"; Reason is what a denied model is told.
	CmdPermission CommandType = "permission"
	// CmdNote: something worth telling the human. Plan, Text.
	CmdNote CommandType = "note"
	// CmdMerge: merge Plan's branch into the integration branch (it may
	// already be merged); answer with EvMerged.
	CmdMerge CommandType = "merge"
	// CmdGate: run the post-merge gate for Plan; answer with EvGateChecked.
	CmdGate CommandType = "gate"
	// CmdWake: send EvWake at At (a timer, journaled when it fires).
	CmdWake CommandType = "wake"
	// CmdStopForHuman: nothing can go on without a human's answer to the
	// open checkpoints (the snapshot's Queue), and none came in time: end
	// the agents and stop; the run resumes after `hive answer`.
	CmdStopForHuman CommandType = "stop-for-human"
	// CmdWatch: report the silence of Plan/Attempt's agent again, if it
	// lasts, no sooner than At (EvSilent).
	CmdWatch CommandType = "watch"
	// CmdPaused: the pause a human asked for is done: no agent runs, each
	// plan's work in progress is committed and its notes journaled. The
	// process writes the handoff file and stops; a resume goes on.
	CmdPaused CommandType = "paused"
	// CmdVerify: check the phase's must_haves mechanically, or, with After
	// "report", read the report of the verifier agent of Attempt; answer
	// with EvVerified.
	CmdVerify CommandType = "verify"
)

// Command is one output of the engine: plain data, never a closure.
type Command struct {
	Type    CommandType `json:"type"`
	Plan    string      `json:"plan,omitempty"`
	Attempt int         `json:"attempt,omitempty"`
	PID     int         `json:"pid,omitempty"` // stop-agent: the agent's process, when known
	State   PlanState   `json:"state,omitempty"`
	Wave    int         `json:"wave,omitempty"`
	After   string      `json:"after,omitempty"`
	Reason  string      `json:"reason,omitempty"`
	Text    string      `json:"text,omitempty"`
	Kill    bool        `json:"kill,omitempty"` // stop-agent: kill at once, do not close the session politely
	// Interrupt (stop-agent) ends the agent's turn now, before its session
	// closes: a live session gets the CLI's interrupt control request, so
	// that a budget or loop stop spends no more than the turn in flight.
	Interrupt bool      `json:"interrupt,omitempty"`
	Since     time.Time `json:"since,omitempty"`
	At        time.Time `json:"at,omitempty"` // watch: the earliest next report; wake: when
	// Role is the role of the agent to start: "" for the executor, "comb"
	// for a merge-conflict resolver, "verifier" for the phase verifier.
	Role string `json:"role,omitempty"`
	// Message is what a send tells the agent.
	Message Message `json:"message,omitempty"`
	// Rung is, for a start, the step down the model ladder the agent takes
	// (0: its configured model); MaxUSD is the most it may spend (0: no
	// limit), the CLI's own ceiling for a one-shot agent.
	Rung   int     `json:"rung,omitempty"`
	MaxUSD float64 `json:"max_usd,omitempty"`
	// Fallback: the agent starts on the fallback agent (models.fallback),
	// since a usage limit switched the run to it (RunSpec.OnLimit).
	Fallback bool `json:"fallback,omitempty"`

	Checkpoint   *Checkpoint   `json:"checkpoint,omitempty"`
	Continuation *Continuation `json:"continuation,omitempty"`
}

// PlanState is where a plan stands.
type PlanState string

// Plan states. Complete, failed and skipped are final.
const (
	Pending  PlanState = "pending"
	Running  PlanState = "running"
	Waiting  PlanState = "waiting" // at a checkpoint, for a human
	Complete PlanState = "complete"
	Failed   PlanState = "failed"
	Skipped  PlanState = "skipped" // a dependency failed
)

// Final reports whether the state can no longer change within the run.
func (s PlanState) Final() bool { return s == Complete || s == Failed || s == Skipped }

// Run outcomes, the Reason of CmdRunFinished.
const (
	OutcomeComplete = "complete" // every plan completed
	OutcomeFailed   = "failed"   // at least one plan failed or was skipped
	OutcomeAborted  = "aborted"  // a human answered "abort"
	OutcomeGaps     = "gaps"     // every plan completed, the phase verification found gaps
)

// Stage is where a running plan stands after its agent's work.
type Stage string

// Stages of a plan in worktree mode.
const (
	StageWork    Stage = ""        // its executor works
	StageMerge   Stage = "merge"   // being merged into the integration branch
	StageResolve Stage = "resolve" // a resolver agent resolves a merge conflict
	StageGate    Stage = "gate"    // the post-merge gate runs
	// StageHeld: a merge conflict's resolver waits for the budget to be
	// raised (the budget checkpoint holds every new agent).
	StageHeld Stage = "held"
)

// SpotCheck is why a plan's commits are being checked on disk, if they are:
// one value, so that a check cannot be out for two reasons at once.
type SpotCheck string

// Spot-check reasons; they are CmdSpotCheck's After.
const (
	CheckNone     SpotCheck = ""
	CheckComplete SpotCheck = "complete" // the agent said PLAN COMPLETE
	CheckExit     SpotCheck = "exit"     // the agent ended without it: did it finish anyway?
	CheckResume   SpotCheck = "resume"   // a resume asks what the previous process's agent achieved
)

// Silence is how far the watchdog has gone with an agent that prints
// nothing (EvSilent): first a ping, then a look at its commits, then a kill.
type Silence string

// Watchdog steps.
const (
	Quiet           Silence = ""
	Pinged          Silence = "pinged"
	CheckingCommits Silence = "checking-commits"
	Stalled         Silence = "stalled" // its agent is being killed
)

// Verification statuses (EvVerified Text).
const (
	VerifyPassed      = "passed"
	VerifyHumanNeeded = "human_needed"
	VerifyGapsFound   = "gaps_found"
)

// VerifyID is the plan id that `hive answer` uses for the phase
// verification's checkpoint.
const VerifyID = "verify"

// Answer is a human's answer to a plan's open checkpoint, as a terminal
// (the TUI, a prompt) hands it to the runner, which journals it as EvAnswer.
type Answer struct {
	Plan string
	Text string
	// Pause: the human asks the whole team to pause (EvPause) instead.
	Pause bool
}

// Message is the kind of a message to a live agent.
type Message string

// Messages.
const (
	MsgCheckpointResponse Message = "checkpoint-response" // Text: the answer to its checkpoint
	MsgDeviationResponse  Message = "deviation-response"  // Text: the decision on its deviation
	MsgPing               Message = "ping"                // Text: how long it has been silent
	MsgLoop               Message = "loop"                // Text: the loop the guard saw
	// MsgRollover asks a live agent to commit its work in progress, write
	// its notes (a HIVE_REPORT) and end its turn: a fresh session follows.
	// Text says why (how full its context is, or a pause).
	MsgRollover Message = "rollover"
)

// DonePlans counts the plans of the spec already complete on disk.
func (spec RunSpec) DonePlans() int {
	n := 0
	for _, p := range spec.Plans {
		if p.Done {
			n++
		}
	}
	return n
}

// LimitID is the plan id that `hive answer` uses to end a wait for the
// provider at once: `hive answer limit resume-now`.
const LimitID = "limit"

// ResumeNow is the answer that ends the wait for the provider at once.
const ResumeNow = "resume-now"

// Checkpoint types raised by reports.
const (
	TypeNeedsInput = "needs-input" // the agent needs a human's input to go on
	TypeChallenge  = "challenge"   // the agent challenges another's work or the plan
)
