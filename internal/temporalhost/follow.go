package temporalhost

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/temporal/objective"
	"github.com/hivectl/hive/internal/words"
)

// ObjectiveState is the machine's state in the run's workflow id.
func ObjectiveState(ctx context.Context, c client.Client, id string) (roleplan.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var snap roleplan.Snapshot
	v, err := c.QueryWorkflow(ctx, id, "", temporal.StateQuery)
	if err == nil {
		err = v.Get(&snap)
	}
	if err != nil {
		return snap, fmt.Errorf("ask the run's workflow %s for its state (is a worker of this folder up? hive worker --backend temporal): %w", id, err)
	}
	return snap, nil
}

// objectiveAnswers are what the run's workflow id answered to the events
// after seq.
func objectiveAnswers(ctx context.Context, c client.Client, id string, seq int) ([]objective.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var as []objective.Answer
	v, err := c.QueryWorkflow(ctx, id, "", temporal.AnswersQuery, seq)
	if err == nil {
		err = v.Get(&as)
	}
	return as, err
}

// follow shows the run as its workflow steps it, sends the answers typed
// here to it, and ends with the run: its delivery, or, on
// ctrl-c, at once, the run going on on its workers. attached: the run was
// under way, and what it did before since (when this command began, before
// its own worker could step anything) is not shown again. Without a
// terminal, a question open for wait (negative: never) ends the following
// with exit.NeedsHuman, as a local run stops: the run waits on its workers
// for hive answer.
func follow(ctx context.Context, o *Run, c client.Client, root string, j journal.Journal, id string, red *redact.Redactor, attached bool, since time.Time, wait time.Duration) error {
	obs, answers := o.Follow(wait)
	type ended struct {
		res objective.Result
		err error
	}
	done := make(chan ended, 1)
	go func() {
		var res objective.Result
		err := temporal.Result(ctx, c.GetWorkflow(ctx, id, ""), &res)
		done <- ended{res, err}
	}()
	seen := 0
	var snap roleplan.Snapshot
	show := func(as []objective.Answer) {
		for _, a := range as {
			if a.Seq <= seen {
				continue
			}
			seen = a.Seq
			if attached && a.Stepped.Time.Before(since) {
				continue // shown when it happened, to whoever followed then
			}
			switch {
			case a.Event == roleplan.EvNote:
				obs.Note(a.Stepped.Job, a.Stepped.Text)
				continue
			case a.Err != "":
				obs.Note(a.Stepped.Job, fmt.Sprintf("event %s refused: %s", a.Event, a.Err))
				continue
			}
			obs.Event(a.Stepped, snap)
			for _, cmd := range a.Commands {
				obs.Command(cmd, snap)
			}
		}
	}
	var asked time.Time // since when the open question is open
	hinted, queryFailed := false, false
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case e := <-done:
			if e.err != nil {
				if ctx.Err() != nil {
					return goesOn(o.Commands)
				}
				return exit.With(exit.Internal, fmt.Errorf("the run's workflow %s ended without a result: %w", id, e.err))
			}
			snap = e.res.State
			show(e.res.Answers)
			if e.res.DeliveryError != "" {
				return exit.With(exit.Internal, fmt.Errorf("the run ended %s, but no worker of this folder could deliver it (%s): %s delivers it",
					e.res.State.Outcome, e.res.DeliveryError, o.Commands.Resume()))
			}
			removeMarker(root) // nothing more to answer there
			var res piperun.Result
			if err := json.Unmarshal(e.res.Delivery, &res); err != nil {
				return exit.With(exit.Internal, fmt.Errorf("the run's delivery: %w", err))
			}
			obs.Result(res)
			return runconfig.ResultExit(res)
		case <-ctx.Done():
			return goesOn(o.Commands)
		case text := <-answers:
			if snap.Open == nil {
				obs.Note("", "nothing is asked now: "+text+" ignored")
			} else if _, err := sendRunAnswer(ctx, c, id, nil, red, snap.Open.Job, text); err != nil {
				obs.Note(snap.Open.Job, err.Error())
			}
		case <-tick.C:
			as, err := objectiveAnswers(ctx, c, id, seen)
			if err == nil {
				snap, err = ObjectiveState(ctx, c, id)
			}
			if err != nil {
				// No worker answers the workflow's queries for a moment
				// (none started yet, one dying): the next tick asks again.
				if !hinted && time.Since(since) > 10*time.Second {
					hinted = true
					fmt.Fprintf(o.Stderr, "hive: no worker answers the run's workflow yet: start one in this folder with hive worker --backend temporal\n")
				}
				if !queryFailed && hinted {
					obs.Note("", words.OneLine(err.Error())+" (asking again)")
				}
				queryFailed = true
				continue
			}
			queryFailed = false
			show(as)
			open := snap.Open
			switch {
			case open == nil:
				asked = time.Time{}
			case asked.IsZero():
				asked = time.Now()
			}
			if open != nil && answers == nil && wait >= 0 && time.Since(asked) >= wait {
				// hive answer checks an answer against the folder's
				// journal while no worker is up: the question is there
				// before this process, and its worker, stop.
				journaled(ctx, j, open.ID)
				return exit.Errorf(exit.NeedsHuman, "%s asks: %s. The run waits for the answer on its workers: %s, then %s follows it again",
					open.Job, clipped(words.OneLine(open.Question), 200), o.Commands.Answer(open.Job, open.Example()), o.Commands.Resume())
			}
		}
	}
}

// journaled waits, ten seconds at most, until the folder's journal j
// holds the run's open question (a worker journals it as soon as it is
// asked), and says whether it does.
func journaled(ctx context.Context, j journal.Journal, question int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if last, ok, err := runjournal.Latest(j); err == nil && ok {
			if m, err := runjournal.Replay(j, last); err == nil {
				if open := m.Snapshot().Open; open != nil && open.ID == question {
					return true
				}
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// goesOn is the exit of a command that stopped following a Temporal run,
// which goes on on its workers.
func goesOn(cmds runconfig.Commands) error {
	return exit.Errorf(exit.Interrupted, "interrupted: the run goes on on its workers (hive worker --backend temporal); %s follows it again", cmds.Resume())
}
