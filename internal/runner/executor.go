package runner

import (
	"context"

	"github.com/hivectl/hive/internal/phase"
)

// An Executor carries out the engine's commands of one kind of I/O (agent
// sessions, git, planning files, waits for a human) and reports what came
// of them to an Inbox, as events. The loop hands each command to the
// executors routed for its type and decides nothing itself, so that each
// executor can be tested or replaced alone, and a Temporal worker can
// carry out the same commands as activities. Execute runs on the loop's
// goroutine: slow work goes to a goroutine of its own and Sends its result.
type Executor interface {
	Execute(ctx context.Context, c phase.Command, snap phase.Snapshot)
}

// An Inbox takes what executors report back to the loop.
type Inbox interface {
	// Post adds an event to the loop's next batch, after those already
	// posted: only from the loop's goroutine (inside Execute), where the
	// order of a start and its failure must be kept.
	Post(ev phase.Event)
	// Send hands an event to the loop from any goroutine; it never blocks
	// once the loop has ended.
	Send(ev phase.Event)
	// Note tells the observer something that is not an event, from any
	// goroutine.
	Note(plan, text string)
}

// routes maps each command type to the executors that carry it out, in
// order.
type routes map[phase.CommandType][]Executor

func (rt routes) add(e Executor, types ...phase.CommandType) {
	for _, t := range types {
		rt[t] = append(rt[t], e)
	}
}

// ExecutorFunc makes a function an Executor.
type ExecutorFunc func(ctx context.Context, c phase.Command, snap phase.Snapshot)

func (f ExecutorFunc) Execute(ctx context.Context, c phase.Command, snap phase.Snapshot) {
	f(ctx, c, snap)
}
