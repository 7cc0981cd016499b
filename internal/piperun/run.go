package piperun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/phaserun"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// Options is what a pipeline run needs.
type Options struct {
	Repo    *gitx.Repo
	Journal journal.Journal // the pipeline's journal (not a phase's)
	// Observer is told what happens; nil tells nobody.
	Observer Observer
	Now      func() time.Time
	// After calls f once d has passed on the run's clock (nil: the wall
	// clock's timers): the timers of a provider's limit, which a test
	// plays on a clock of its own.
	After func(d time.Duration, f func())

	// Objective and Workflow start a new run; Resume takes over the
	// newest unfinished one instead.
	Objective string
	Workflow  workflows.Workflow
	// Planning, for a new run, is how the planner (or the rules) chose
	// Workflow; it is journaled first.
	Planning *runjournal.Planning
	// Postmortem, when set, is the cheap model that tells the finished
	// run in a paragraph (PostmortemModel its model); nil: hive's own
	// paragraph, from a template.
	Postmortem      agent.Launcher
	PostmortemModel string
	// Evaluator, when set, judges each role's work from three aspects
	// (EvaluatorModel its model, EvaluatorTimeout each call's bound,
	// 2 minutes by default), and Routing tunes what follows from it; a
	// new run evaluates when Routing.Evaluate is set.
	Evaluator        agent.Launcher
	EvaluatorModel   string
	EvaluatorTimeout time.Duration
	Routing          roleplan.Routing
	Resume           bool
	// Started, when set, is told the run once it is created or taken
	// over, before any of its work (a Temporal driver tells its workflow).
	Started func(journal.Run)
	// Answer answers the open checkpoint of the run being resumed.
	Answer string

	// Launcher starts the agents of every role that Roles does not name;
	// Roles the agents of single roles (models.ROLE), the implementer's
	// also the phase's executors.
	Launcher agent.Launcher
	Roles    map[string]agent.Launcher
	// Agent is the agent program --agent named ("" for the config's),
	// and CheckpointWait the --checkpoint-wait given ("" for none): a new
	// run journals them in its spec, for its resume to start the same
	// agents and wait as long.
	Agent          string
	CheckpointWait string
	Home           string // where the user's global prompts are; "" for none
	AutoAnswer     bool
	// NoInterview skips the interviewer of a new run (AutoAnswer does
	// too).
	NoInterview bool
	// Context is given to every role of a new run: files the user named
	// (-c), with their text.
	Context []roleplan.ContextFile
	// Tools limits the machine's tools a new run's roles are told about
	// (the config's "tools"); empty: every one found.
	Tools []string
	// Closes is journaled in a new run's spec: what its pull request says
	// of the issue it started from ("Closes OWNER/REPO#N").
	Closes string
	// NoMerge leaves the finished run's work on its branch (as does a
	// run started with it).
	NoMerge bool
	// AllowDirty is journaled in a new run's spec: it started next to
	// uncommitted changes (--allow-dirty), which the command line checks.
	AllowDirty bool
	// Elsewhere, when set, says where the finished run's work is for a
	// run driven away from the user's folder (a clone of it): the work is
	// left on its branch, which the driver hands on, and this is the
	// user's note.
	Elsewhere string
	// Push pushes a completed run's branch to origin instead of merging
	// it; PR also opens a pull request for it with gh. A resumed run
	// publishes as it was started to, or as these ask.
	Push, PR bool
	// Follow (hive run --follow, a new run) opens the pull request and
	// follows it until it is merged or closed: failed checks and review
	// comments go to the implementer (roleplan.FollowJob). PRPoll is how
	// often it is looked at (0: every 30 s).
	Follow bool
	PRPoll time.Duration
	// WorktreeRoot is where the run's worktrees go; "" means the user's
	// cache folder.
	WorktreeRoot string
	// MaxConcurrent bounds the implementers that run at once.
	MaxConcurrent int
	// Setup readies each new worktree, the run's and its plans'
	// (workflow.worktree_setup): a fresh checkout lacks what git does not
	// carry, such as the project's installed dependencies.
	Setup integration.Setup
	// TestCommand and BuildCommand are the project's configured commands
	// (commands.test, commands.build), a line each for sh -c; "" finds
	// them from the project's files.
	TestCommand, BuildCommand string
	// Stall is how long an agent may print nothing (0: 5 minutes).
	Stall time.Duration

	// Prices price every turn (nil: the built-in table). Budget is what a
	// new run may spend (a resumed one keeps its own, raised only by
	// answers): the machine gives each role agent its allotment as its
	// ceiling and rung of Ladders[role], and the implementers' phase its
	// allotment as the phase's budget, with PlanUSD each plan's ceiling
	// and TaskUSD a task's estimate on each rung of Ladders["implementer"].
	Prices  pricing.Table
	Budget  roleplan.Budget
	Ladders map[string][]string
	PlanUSD float64
	TaskUSD []float64
	// Guard tunes the loop guard of a new run's role agents and phase.
	Guard work.LoopGuard
	// OnLimit is what the run does at a usage limit: a new run journals
	// it (the machine and the phase's engine fall back); stop is this
	// process's to carry out, so a resume's flag holds. Fallback starts
	// the agents of a run that fell back (models.fallback; nil: none).
	OnLimit  work.OnLimit
	Fallback agent.Launcher
	// Phases runs the implementers' phase; nil runs it here, with the
	// runner, its journal in the run's worktree.
	Phases phaserun.Runner
	// Share, when set, is handed the run's worktree before each event
	// that follows work there is journaled (the run's start or resumption,
	// a role's report or its agent's exit, the phase's end), so that a driver elsewhere
	// that takes the run over goes on from what it journaled. An error
	// stops the run as a journal error does: nothing that follows the work
	// is journaled before the work is shared.
	Share func(ctx context.Context, dir string, run journal.Run) error

	// Wait is how long a run at a question waits for its answer: typed
	// here (Answers) or given with `hive answer` (read from the journal
	// every PollInterval). Zero stops at once with NeedsHumanError;
	// negative waits for ever.
	Wait         time.Duration
	Answers      <-chan string
	PollInterval time.Duration
}

// Observer is told everything that happens, from the run's goroutine.
type Observer interface {
	Event(ev roleplan.Event, s roleplan.Snapshot)
	Command(c roleplan.Command, s roleplan.Snapshot)
	Note(job, text string)
}

// PlansObserver is an Observer that also wants the states of the
// implementers' plans while their phase runs, to show them side by side.
type PlansObserver interface {
	Plans(states []PlanState)
}

// PlanState is one plan of the implementers' phase.
type PlanState struct {
	ID    string
	State phase.PlanState
}

// Result is how a run ended.
type Result struct {
	Run      journal.Run
	Snapshot roleplan.Snapshot
	Branch   string
	// Merged says the work reached the user's branch; otherwise Branch
	// holds it.
	Merged bool
	// Pushed says Branch is on origin; PullRequest is the address of the
	// pull request gh opened for it.
	Pushed      bool
	PullRequest string
	// Undelivered says why the work of a completed run did not reach the
	// user's branch (or origin) as it was meant to: it is on Branch, and
	// Notes say how to take it. "" when it did, or when --no-merge kept
	// it there.
	Undelivered string
	// Notes says what the user should know: where the work is, what to do.
	Notes []string
}

// NeedsHumanError stops a run at a checkpoint nobody here can answer (the
// command line says how to answer it: Checkpoint.Example is an answer).
type NeedsHumanError struct {
	Run        int64
	Checkpoint roleplan.Checkpoint
}

func (e *NeedsHumanError) Error() string {
	cp := e.Checkpoint
	var b strings.Builder
	fmt.Fprintf(&b, "run %d waits for a human: %s", e.Run, cp.Question)
	if cp.Details != "" {
		fmt.Fprintf(&b, "\n  %s", strings.ReplaceAll(strings.TrimSpace(cp.Details), "\n", "\n  "))
	}
	switch {
	case cp.Kind == roleplan.KindFindings:
		fmt.Fprintf(&b, "\n  answer fix, view, accept [ID] REASON, defer [ID] (not a blocker), continue (once no blocker is open) or quit")
	case len(cp.Options) > 0:
		fmt.Fprintf(&b, "\n  answer one of: %s", strings.Join(cp.Options, ", "))
	}
	return b.String()
}

// ErrInterrupted says the run was stopped before it ended; it resumes.
var ErrInterrupted = errors.New("interrupted")

// UnfinishedError refuses a new run while another is unfinished (the
// command line says how to resume it or abandon it).
type UnfinishedError struct{ Run journal.Run }

func (e *UnfinishedError) Error() string {
	return fmt.Sprintf("run %d (started %s) is unfinished", e.Run.ID, e.Run.Started.Local().Format("2006-01-02 15:04"))
}

// worktreeDir is where a run's worktree lives.
func worktreeDir(o Options, run int64) (string, error) {
	root, err := WorktreeRoot(o)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, fmt.Sprintf("run-%d", run)), nil
}

// WorktreeRoot is the folder of the runs' worktrees (run-N): o's, or the
// user's cache folder.
func WorktreeRoot(o Options) (string, error) {
	if o.WorktreeRoot != "" {
		return o.WorktreeRoot, nil
	}
	return worktrees.DefaultRoot(o.Repo.Root)
}
