package answer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/tui"
)

// By is who the engine is told gave the answer. The engine counts an
// answer from outside the running process as no time of the run's, so
// every caller of this package (terminal or web) is "hive answer".
const By = "hive answer"

// ErrAnswered says the checkpoint was answered already (or meanwhile, in
// another place): the answer given now was not applied.
var ErrAnswered = errors.New("already answered")

// RefusedError is an answer that cannot be recorded as given: nothing
// waits for it (NoCheckpoint), or the checkpoint does not take that text.
// Its message says what to do instead.
type RefusedError struct {
	Err          error
	NoCheckpoint bool
}

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

func refused(noCheckpoint bool, format string, args ...any) error {
	return &RefusedError{Err: fmt.Errorf(format, args...), NoCheckpoint: noCheckpoint}
}

// Journals are where the answers go: the phase runs' journal
// (.hive/journal.db) and hive run's (.hive/runs.db); nil when the
// repository has none yet.
type Journals struct {
	Root     string // the repository's root: the answer lock lives in its .hive/
	Phase    journal.Journal
	Pipeline journal.Journal
	// Redactor masks secrets in the journaled answer; nil masks the
	// built-in credential shapes only.
	Redactor *redact.Redactor
}

// Request is one answer.
type Request struct {
	// Plan is a plan id, phase.VerifyID, or a role of hive run
	// (runjournal.IsRunJob).
	Plan string
	// Run and Checkpoint name the checkpoint meant; zero means the one open
	// now. A page shows one checkpoint, and its answer must never land on
	// the next checkpoint of the same plan: it is then already answered.
	Run        int64
	Checkpoint int
	Text       string
	Now        time.Time
}

// Result is the recorded answer.
type Result struct {
	Run      int64
	Pipeline bool // a question of hive run, else a phase run's checkpoint
	Seq      int64
	Answer   string // as journaled: a secret typed into it stays masked
	// Checkpoint is the phase run's checkpoint answered (Pipeline false),
	// Question hive run's (Pipeline true).
	Checkpoint phase.Checkpoint
	Question   roleplan.Checkpoint
	// Phase is the phase of the run (Pipeline false).
	Phase string
}

// mu serialises the answers of this process; the lock file, those of
// every process.
var mu sync.Mutex

// Record checks req's answer and journals it, exactly once: of two answers
// to one checkpoint, given at once anywhere, one is recorded and the other
// gets ErrAnswered.
func Record(js Journals, req Request) (Result, error) {
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	mu.Lock()
	defer mu.Unlock()
	unlock, err := lockFile(js.Root)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	red := js.Redactor
	if red == nil {
		red = redact.New()
	}
	if req.Plan == phase.LimitID {
		return recordResumeNow(js, red, req)
	}
	if runjournal.IsRunJob(req.Plan) {
		return recordRole(js.Pipeline, red, req)
	}
	return recordPhase(js.Phase, red, req)
}

func recordPhase(j journal.Journal, red *redact.Redactor, req Request) (Result, error) {
	if j == nil {
		return Result{}, refused(true, "no phase has run here yet: there is nothing to answer")
	}
	run, cp, eng, last, err := openCheckpoint(j, req)
	if err != nil {
		return Result{}, err
	}
	ev := phase.Event{Type: phase.EvAnswer, Time: req.Now.UTC(), Plan: req.Plan, CheckpointID: cp.ID, Text: req.Text, By: By}
	seq, err := appendAnswer(j, red, run.ID, last, eng, ev, fmt.Sprintf("checkpoint #%d of plan %s was answered meanwhile", cp.ID, req.Plan))
	if err != nil {
		return Result{}, err
	}
	return Result{Run: run.ID, Seq: seq, Answer: red.String(req.Text), Checkpoint: cp, Phase: eng.Snapshot().Phase}, nil
}

// appendAnswer checks answer ev the way the engine will, against eng (run
// replayed up to the event with seq last), journals it, and returns its
// seq. When the running hive journaled events in between (perhaps an
// answer typed in its terminal), the engine takes the journal's order, so
// the answer counts only if it still applies after them; meanwhile says
// why it does not.
func appendAnswer(j journal.Journal, red *redact.Redactor, run, last int64, eng *engine.Engine, ev phase.Event, meanwhile string) (int64, error) {
	if _, err := eng.Step(ev); err != nil {
		return 0, &RefusedError{Err: err}
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return 0, err
	}
	seq, err := journal.Redacting(j, red).Append(run, string(ev.Type), ev.Time, payload)
	if err != nil {
		return 0, fmt.Errorf("record the answer: %w", err)
	}
	if seq != last+1 {
		eng, _, err := replay(j, run, seq-1)
		if err != nil {
			return 0, err
		}
		if _, err := eng.Step(ev); err != nil {
			return 0, fmt.Errorf("%w: %s (%v)", ErrAnswered, meanwhile, err)
		}
	}
	return seq, nil
}

// recordResumeNow journals `hive answer limit resume-now` in the
// unfinished run that waits for its provider's limit, a phase's or hive
// run's: the running hive (or the next resume) ends the wait at once.
func recordResumeNow(js Journals, red *redact.Redactor, req Request) (Result, error) {
	if js.Pipeline != nil {
		if run, ok, err := runjournal.Latest(js.Pipeline); err != nil {
			return Result{}, err
		} else if ok && run.Finished.IsZero() && (req.Run == 0 || run.ID == req.Run) {
			m, err := runjournal.Replay(js.Pipeline, run)
			if err != nil {
				return Result{}, err
			}
			if m.Snapshot().Limit != nil {
				ev := roleplan.Event{Type: roleplan.EvAnswer, Time: req.Now.UTC(), Job: roleplan.LimitJob, Text: req.Text}
				if _, err := m.Step(ev); err != nil {
					return Result{}, &RefusedError{Err: err}
				}
				payload, err := json.Marshal(ev)
				if err != nil {
					return Result{}, err
				}
				seq, err := journal.Redacting(js.Pipeline, red).Append(run.ID, string(ev.Type), ev.Time, payload)
				if err != nil {
					return Result{}, fmt.Errorf("record the answer: %w", err)
				}
				return Result{Run: run.ID, Pipeline: true, Seq: seq, Answer: red.String(req.Text)}, nil
			}
		}
	}
	j := js.Phase
	if j == nil {
		return Result{}, refused(true, "no run waits for its provider's limit now: there is nothing to resume")
	}
	runs, err := j.Runs()
	if err != nil {
		return Result{}, err
	}
	for _, run := range runs {
		if !run.Finished.IsZero() || req.Run != 0 && run.ID != req.Run {
			continue
		}
		eng, last, err := replay(j, run.ID, 0)
		if err != nil {
			return Result{}, err
		}
		if eng.Snapshot().Limit == nil {
			continue
		}
		ev := phase.Event{Type: phase.EvAnswer, Time: req.Now.UTC(), Plan: phase.LimitID, Text: req.Text, By: By}
		seq, err := appendAnswer(j, red, run.ID, last, eng, ev, "the wait ended meanwhile")
		if err != nil {
			return Result{}, err
		}
		return Result{Run: run.ID, Seq: seq, Answer: red.String(req.Text), Phase: eng.Snapshot().Phase}, nil
	}
	return Result{}, refused(true, "no run waits for its provider's limit now: there is nothing to resume (`hive status` shows where each run stands)")
}

// replay steps run's events with seq <= until (every event when until is
// 0) through a new engine, as a resume does, and returns it with the seq
// of the last event stepped.
func replay(j journal.Journal, run, until int64) (*engine.Engine, int64, error) {
	eng := engine.New()
	var last int64
	errStop := errors.New("stop")
	err := j.Each(run, func(rec journal.Record) error {
		if until > 0 && rec.Seq > until {
			return errStop
		}
		last = rec.Seq
		var ev phase.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("journal run %d event %d: %w", run, rec.Seq, err)
		}
		// A refused event changed nothing when it was first stepped
		// either; a newer hive's events are refused whole.
		if _, err := eng.Step(ev); errors.As(err, new(*phase.NewerError)) {
			return err
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, 0, fmt.Errorf("replay run %d: %w", run, err)
	}
	return eng, last, nil
}

// openCheckpoint finds the unfinished run in which req's plan waits at a
// checkpoint (req's own, when it names one), and returns it with its
// engine, replayed up to the event with seq last. When the plan does not
// wait, the error says where it stands and lists the plans that do wait,
// so that the user can pick the right one.
func openCheckpoint(j journal.Journal, req Request) (run journal.Run, cp phase.Checkpoint, eng *engine.Engine, last int64, err error) {
	runs, err := j.Runs()
	if err != nil {
		return run, cp, nil, 0, err
	}
	state := phase.PlanState("")
	var open []string       // "PLAN (#ID Title)" of every open checkpoint
	var unfinished []string // "run N (phase P)" of every unfinished run looked in
	for _, run := range runs {
		if req.Run != 0 && run.ID != req.Run {
			continue
		}
		if !run.Finished.IsZero() {
			if req.Run != 0 {
				return run, cp, nil, 0, fmt.Errorf("%w: run %d is finished (%s)", ErrAnswered, run.ID, run.Outcome)
			}
			continue
		}
		eng, last, err := replay(j, run.ID, 0)
		if err != nil {
			return run, cp, nil, 0, err
		}
		snap := eng.Snapshot()
		unfinished = append(unfinished, fmt.Sprintf("run %d (phase %s)", run.ID, snap.Phase))
		var found *phase.Checkpoint
		inRun := req.Plan == phase.VerifyID
		for _, cp := range snap.Queue {
			if cp.Plan == req.Plan && (req.Checkpoint == 0 || cp.ID == req.Checkpoint) {
				found = &cp
			}
			open = append(open, fmt.Sprintf("%s (#%d %s)", cp.Plan, cp.ID, tui.Title(cp)))
		}
		for _, p := range snap.Plans {
			if p.Spec.ID != req.Plan {
				continue
			}
			inRun = true
			if p.State == phase.Waiting && p.Open != nil && (req.Checkpoint == 0 || p.Open.ID == req.Checkpoint) {
				found = p.Open
			}
			if state == "" {
				state = p.State
			}
		}
		if found != nil {
			return run, *found, eng, last, nil
		}
		if req.Checkpoint != 0 && inRun {
			// The plan is in this run, and the checkpoint shown is not the
			// one it waits at (if any): it was answered.
			return run, cp, nil, 0, fmt.Errorf("%w: checkpoint #%d of plan %s in run %d is no longer open", ErrAnswered, req.Checkpoint, req.Plan, run.ID)
		}
	}
	if req.Checkpoint != 0 {
		return run, cp, nil, 0, refused(true, "run %d has no checkpoint #%d of plan %s", req.Run, req.Checkpoint, req.Plan)
	}
	msg := fmt.Sprintf("plan %s has no open checkpoint", req.Plan)
	switch {
	case state != "":
		msg += fmt.Sprintf(" (it is %s)", state)
	case len(unfinished) > 0 && req.Plan != phase.VerifyID:
		// Not a plan of any run that could wait: a typo, or a plan of
		// another phase.
		msg = fmt.Sprintf("no such plan %s in %s", req.Plan, strings.Join(unfinished, ", "))
	}
	if len(open) == 0 {
		return run, cp, nil, 0, refused(true, "%s, and no plan waits for an answer now (`hive status` shows where each plan stands)", msg)
	}
	return run, cp, nil, 0, refused(true, "%s. Waiting for an answer: %s; answer one with `hive answer PLAN-ID RESPONSE`", msg, strings.Join(open, ", "))
}

// recordRole journals the answer to the question hive run asks of a role.
func recordRole(j journal.Journal, red *redact.Redactor, req Request) (Result, error) {
	if j == nil {
		return Result{}, refused(true, "%v", runjournal.ErrNoRun)
	}
	if req.Checkpoint != 0 {
		// The question meant must be the one asked now; a later question
		// of the same role is not answered by a page showing the former.
		run, ok, err := runjournal.Latest(j)
		if err != nil {
			return Result{}, err
		}
		if !ok || (req.Run != 0 && run.ID != req.Run) || !run.Finished.IsZero() {
			return Result{}, fmt.Errorf("%w: run %d is no longer waiting", ErrAnswered, req.Run)
		}
		m, err := runjournal.Replay(j, run)
		if err != nil {
			return Result{}, err
		}
		if open := m.Snapshot().Open; open == nil || open.ID != req.Checkpoint || open.Job != req.Plan {
			return Result{}, fmt.Errorf("%w: the question #%d of %s in run %d is no longer open", ErrAnswered, req.Checkpoint, req.Plan, run.ID)
		}
	}
	run, cp, err := runjournal.Answer(journal.Redacting(j, red), req.Plan, req.Text, req.Now)
	var bad *runjournal.AnswerError
	switch {
	case errors.As(err, &bad):
		return Result{}, &RefusedError{Err: err}
	case errors.Is(err, runjournal.ErrNoRun):
		return Result{}, &RefusedError{Err: err, NoCheckpoint: true}
	case err != nil:
		return Result{}, err
	}
	return Result{Run: run.ID, Pipeline: true, Answer: red.String(req.Text), Question: cp}, nil
}
