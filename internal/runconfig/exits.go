package runconfig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/work"
)

// Commands spell the hive commands a run tells the user to type, ready to
// paste: the CLI knows how hive was started, and which --repo.
type Commands struct {
	// Resume goes on with the project's run (args follow --resume).
	Resume func(args ...string) string
	// Answer answers job's question with text.
	Answer func(job, text string) string
	// Fresh abandons the unfinished run for a new one.
	Fresh string
}

// ResultExit is the exit of a run that ended with res: a run that did
// not complete failed; a complete one whose work did not reach the
// user's branch (or origin) as meant is told apart from one whose did.
func ResultExit(res piperun.Result) error {
	switch {
	case res.Snapshot.Outcome != roleplan.OutcomeComplete:
		return exit.Silent(exit.Failed)
	case res.Undelivered != "":
		return exit.Silent(exit.Undelivered)
	}
	return nil
}

// CheckTree applies execute-phase's rule to the user's working tree: a
// run starts (or resumes) next to no uncommitted change, which its agents,
// working from commits, would not see, and which its merge must not
// touch; unless --allow-dirty, then said. hive's own folder is kept out
// of git first.
func (o *Run) CheckTree(ctx context.Context, repo *gitx.Repo) error {
	if err := repo.Exclude(ctx, "/.hive/"); err != nil {
		return exit.With(exit.Internal, fmt.Errorf("keep hive's files out of git: %w", err))
	}
	err := integration.CheckClean(ctx, repo)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, integration.ErrDirty):
		return exit.With(exit.Internal, err)
	case o.AllowDirty:
		fmt.Fprintln(o.Stderr, "running with uncommitted changes (--allow-dirty): the agents work from your last commit and do not see them; the work is merged only if it touches none of them")
		return nil
	}
	return exit.With(exit.Usage, err)
}

// Exit is the exit of a run that ended with err, with the command that
// goes on, ready to paste.
func Exit(ctx context.Context, err error, cmds Commands) error {
	var needs *piperun.NeedsHumanError
	var unfinished *piperun.UnfinishedError
	var answer *runjournal.AnswerError
	if e := StoppedAtLimit(err, time.Now(), cmds.Resume()); e != nil {
		return e
	}
	switch {
	case errors.As(err, &needs):
		return exit.Errorf(exit.NeedsHuman, "%v\ngo on with your answer: %s", err, cmds.Resume("--answer", needs.Checkpoint.Example()))
	case errors.Is(err, lock.ErrLocked):
		return exit.With(exit.Busy, err)
	case errors.As(err, &unfinished):
		return exit.Errorf(exit.Usage, "%v: resume it with %s, or abandon it with %s", err, cmds.Resume(), cmds.Fresh)
	case errors.As(err, &answer), errors.Is(err, runjournal.ErrNoRun):
		return exit.With(exit.Usage, err)
	case errors.Is(err, piperun.ErrInterrupted), err != nil && ctx.Err() != nil:
		return exit.Errorf(exit.Interrupted, "%v: resume it with %s", err, cmds.Resume())
	case err != nil:
		return exit.With(exit.Internal, err)
	}
	return nil
}

// StoppedAtLimit is the exit of a run that stopped at a usage limit
// (--on-limit stop): how long is left, and the command that goes on.
func StoppedAtLimit(err error, now time.Time, resume string) error {
	var stopped *work.StoppedAtLimit
	if !errors.As(err, &stopped) {
		return nil
	}
	w := stopped.Wait
	left := ""
	if d := w.Until.Sub(now).Round(time.Minute); d > 0 {
		left = fmt.Sprintf(" (in %s)", d)
	}
	return exit.Errorf(exit.Paused, "%s%s; every agent's commits are kept.\ngo on: %s\n  (before then it waits for the rest of the wait; hive answer limit resume-now in another terminal ends the wait at once)",
		stopped.Error(), left, resume)
}
