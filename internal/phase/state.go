package phase

import (
	"time"

	"github.com/hivectl/hive/internal/work"
)

// State is the engine's whole state as plain data: the engine's Export
// gives it, its Restore takes it back. A long run's history can then be carried as one value
// instead of every event (Temporal's continue-as-new, a journal's
// compaction); JSON keeps it compact and readable. What the engine derives
// (the dependency graph's links and priorities, the ready queues, the wave
// counts) is rebuilt from the spec, not carried.
type State struct {
	Version int `json:"engine_version"`
	// Rules is the engine version whose decisions the run follows (see
	// the engine's rules); 0 in a state exported before it was kept:
	// Version's.
	Rules    int          `json:"rules,omitempty"`
	Spec     RunSpec      `json:"spec"`
	Finished bool         `json:"finished,omitempty"`
	Resumes  int          `json:"resumes,omitempty"`
	Now      time.Time    `json:"now"`
	Begun    []int        `json:"begun,omitempty"`
	Plans    []PlanRecord `json:"plans"`
	// Queue lists the open checkpoints by id, in order: each is a plan's
	// Open or the verification's.
	Queue        []int         `json:"queue,omitempty"`
	LastCP       int           `json:"last_checkpoint,omitempty"`
	Resolved     int           `json:"resolved,omitempty"`
	Aborted      bool          `json:"aborted,omitempty"`
	Always       []string      `json:"always,omitempty"`
	Verify       VerifyState   `json:"verify"`
	Verification *Verification `json:"verification,omitempty"`
	VerifyOpen   *Checkpoint   `json:"verify_open,omitempty"`
	Active       time.Duration `json:"active,omitempty"`
	LastOwn      time.Time     `json:"last_own"`
	Down         []Downtime    `json:"down,omitempty"`
	ForeignGain  time.Duration `json:"foreign_gain,omitempty"`
	Human        HumanWait     `json:"human"`
	Merges       int           `json:"merges,omitempty"`
	Budget       BudgetRecord  `json:"budget,omitzero"`
	Pause        PauseRecord   `json:"pause,omitzero"`
	Waits        work.Waits    `json:"waits,omitzero"`
}

// PauseRecord is where a pause stands (the engine's pause).
type PauseRecord struct {
	Pausing bool      `json:"pausing,omitempty"`
	Paused  bool      `json:"paused,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

// BudgetRecord is the budget as it stands: raised by answers, its rung,
// whether 80 % was passed, its open checkpoint. What was spent is summed
// from the jobs again.
type BudgetRecord struct {
	Budget
	Rung   int         `json:"rung,omitempty"`
	Warned bool        `json:"warned,omitempty"`
	Open   *Checkpoint `json:"open,omitempty"`
	Spent  work.Spend  `json:"spent"`
	// LargestTurn, TurnEnded and Turns are what the run knows of its
	// turns' costs: the largest, whether one has ended, and the cost so
	// far of each turn in flight.
	LargestTurn float64    `json:"largest_turn,omitempty"`
	TurnEnded   bool       `json:"turn_ended,omitempty"`
	Turns       []TurnCost `json:"turns,omitempty"`
}

// TurnCost is an agent's turns in flight: how many, and what they have
// reported so far.
type TurnCost struct {
	Plan    string  `json:"plan"`
	Attempt int     `json:"attempt"`
	Turns   int     `json:"turns"`
	USD     float64 `json:"usd,omitempty"`
}

// HumanWait is when the run stops for a human (the engine's idle).
type HumanWait struct {
	Attended  bool          `json:"attended,omitempty"`
	Wait      time.Duration `json:"wait,omitempty"`
	NeedHuman bool          `json:"need_human,omitempty"`
	IdleSince time.Time     `json:"idle_since"`
	Stopping  bool          `json:"stopping,omitempty"`
}

// VerifyState is the verification job's state.
type VerifyState struct {
	VerifyJob
	Seen      SessionCosts `json:"seen,omitempty"`
	AgentLive bool         `json:"agent_live,omitempty"`
	TurnEnded bool         `json:"turn_ended,omitempty"`
}

// PlanRecord is one plan's state.
type PlanRecord struct {
	ID            string         `json:"id"`
	State         PlanState      `json:"state"`
	Attempt       int            `json:"attempt,omitempty"`
	PID           int            `json:"pid,omitempty"`
	TasksDone     int            `json:"tasks_done,omitempty"`
	Progress      string         `json:"progress,omitempty"`
	Reason        string         `json:"reason,omitempty"`
	Commits       []string       `json:"commits,omitempty"`
	Started       time.Time      `json:"started"`
	Stage         Stage          `json:"stage,omitempty"`
	Finished      time.Time      `json:"finished"`
	Open          *Checkpoint    `json:"open,omitempty"`
	Report        *work.Report   `json:"report,omitempty"`
	Resolved      int            `json:"resolved,omitempty"`
	Spend         work.Spend     `json:"spend"`
	Resolves      int            `json:"resolves,omitempty"`
	ResolveSpend  work.Spend     `json:"resolve_spend"`
	Seen          SessionCosts   `json:"seen,omitempty"`
	ResolveSeen   SessionCosts   `json:"resolve_seen,omitempty"`
	Resolvers     []int          `json:"resolvers,omitempty"`
	Check         SpotCheck      `json:"check,omitempty"`
	LastAnswered  *Checkpoint    `json:"last_answered,omitempty"`
	Answered      []Checkpoint   `json:"answered,omitempty"`
	Continuation  *Continuation  `json:"continuation,omitempty"`
	AutoRetries   int            `json:"auto_retries,omitempty"`
	HumanRetried  bool           `json:"human_retried,omitempty"`
	PastCeiling   bool           `json:"past_ceiling,omitempty"`
	Silence       Silence        `json:"silence,omitempty"`
	LastActive    time.Time      `json:"last_active"`
	AgentLive     bool           `json:"agent_live,omitempty"`
	ExitNote      string         `json:"exit_note,omitempty"`
	Permissions   []Checkpoint   `json:"permissions,omitempty"`
	ResolverAt    int            `json:"resolver_at,omitempty"`
	ConflictFiles []string       `json:"conflict_files,omitempty"`
	ConflictWhere string         `json:"conflict_where,omitempty"`
	GateLoops     int            `json:"gate_loops,omitempty"`
	Fix           string         `json:"fix,omitempty"`
	Rung          int            `json:"rung,omitempty"`
	Guard         work.CallGuard `json:"loop_guard,omitzero"`
	Context       ContextUse     `json:"context,omitzero"`
	RollBy        time.Time      `json:"roll_by,omitzero"`
	RollAtAnswer  bool           `json:"roll_at_answer,omitempty"`
	// AnswerAtTurnEnd is the answer that waits for the live agent's turn
	// to end.
	AnswerAtTurnEnd *Checkpoint  `json:"answer_at_turn_end,omitempty"`
	Notes           *work.Report `json:"notes,omitempty"`
}
