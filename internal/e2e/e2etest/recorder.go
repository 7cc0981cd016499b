package e2etest

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
)

// Recorder is a runner.Observer that keeps every event, command and note
// in order and counts the checkpoints opened per plan. Its mutex guards
// the fields of types that embed it.
type Recorder struct {
	sync.Mutex
	// Short records "event TYPE PLAN" and "command TYPE PLAN STATE" lines
	// instead of ones with attempt= and the command's reason.
	Short bool
	// Answers takes the answer of each opened checkpoint of a plan in the
	// answer map (buffered: runner.Run reads it in the same goroutine).
	Answers chan runner.Answer

	answerOf map[string]string
	opened   map[string]int
	lines    []string
	notes    []string
}

// NewRecorder returns a Recorder that answers a checkpoint of plan p with
// answers[p] (answers may be nil).
func NewRecorder(answers map[string]string) *Recorder {
	return &Recorder{Answers: make(chan runner.Answer, 8), answerOf: answers, opened: map[string]int{}}
}

// Add records a line.
func (r *Recorder) Add(format string, args ...any) {
	r.Lock()
	defer r.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *Recorder) Resumed(run journal.Run, _ phase.Snapshot) { r.Add("resumed %d", run.ID) }

func (r *Recorder) Event(ev phase.Event, _ phase.Snapshot) {
	if r.Short {
		r.Add("event %s %s", ev.Type, ev.Plan)
		return
	}
	r.Add("event %s %s attempt=%d", ev.Type, ev.Plan, ev.Attempt)
}

func (r *Recorder) Command(c phase.Command, _ phase.Snapshot) {
	switch {
	case r.Short && c.Type == phase.CmdNote:
		r.Add("command note %s %s", c.Plan, c.Text)
	case r.Short:
		r.Add("command %s %s %s", c.Type, c.Plan, c.State)
	default:
		what := c.Reason
		if c.Type == phase.CmdNote {
			what = c.Text
		}
		r.Add("command %s %s attempt=%d %s", c.Type, c.Plan, c.Attempt, what)
	}
	if c.Type == phase.CmdCheckpointOpened {
		r.Lock()
		if r.opened == nil {
			r.opened = map[string]int{}
		}
		r.opened[c.Plan]++
		r.Unlock()
		if a, ok := r.answerOf[c.Plan]; ok {
			r.Answers <- runner.Answer{Plan: c.Plan, Text: a}
		}
	}
}

func (r *Recorder) Note(planID, text string) {
	r.Add("note %s %s", planID, text)
	r.Lock()
	r.notes = append(r.notes, planID+": "+text)
	r.Unlock()
}

// Opened is the number of checkpoints opened for plan id.
func (r *Recorder) Opened(id string) int {
	r.Lock()
	defer r.Unlock()
	return r.opened[id]
}

// Notes lists the notes as "plan: text".
func (r *Recorder) Notes() []string {
	r.Lock()
	defer r.Unlock()
	return append([]string(nil), r.notes...)
}

// Index is the position of the first line equal to want, or -1.
func (r *Recorder) Index(want string) int {
	r.Lock()
	defer r.Unlock()
	for i, l := range r.lines {
		if l == want {
			return i
		}
	}
	return -1
}

func (r *Recorder) String() string {
	r.Lock()
	defer r.Unlock()
	return strings.Join(r.lines, "\n")
}
