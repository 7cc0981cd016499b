package temporal

// A hive run's journal in its workflow's history. The driver journals
// each of the pipeline's events in the project's journal, durably, and
// then hands it to the workflow (JournalSignal) before it acts on it; the
// workflow keeps the run's records and answers them (JournalQuery). So a
// terminal that follows the run reads it from the workflow, not from the
// project's folder, and the history holds every event of the run.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/journal"
)

const (
	// JournalSignal carries a JournalEntry from the run's driver.
	JournalSignal = "hive-pipeline-journal"
	// JournalQuery answers the run's RunJournal from a seq on.
	JournalQuery = "hive-pipeline-journal"
	// AnswerSignal carries an Inbound answer to the run's open question,
	// from any machine: the driver journals it as its own record.
	AnswerSignal = "hive-pipeline-answer"
)

// Inbound is an answer sent to the run (hive answer, a terminal that
// follows the run): the record the driver is to journal, unless the
// journal has an answer to its checkpoint already.
type Inbound struct {
	Run        int64           `json:"run"`
	Checkpoint int             `json:"checkpoint"`
	Type       string          `json:"type"`
	Time       time.Time       `json:"time"`
	Payload    json.RawMessage `json:"payload"`
}

// JournalEntry is what a driver tells the workflow after it journaled:
// the run (its number, start and end) and its records that follow the
// ones sent before, in order.
type JournalEntry struct {
	// Driver is the sender's attempt (Takeover.Attempt): an entry from a
	// driver that a later one replaced is dropped, since that one goes
	// on from the journal as it found it.
	Driver  int32            `json:"driver"`
	Run     journal.Run      `json:"run"`
	Records []journal.Record `json:"records,omitempty"`
}

// RunJournal is a run's journal as its workflow keeps it: Run.Events
// counts its records, which are Records[i].Seq == i+1 when complete
// (a query from a later seq answers the records from it on).
type RunJournal struct {
	Run     journal.Run      `json:"run"`
	Records []journal.Record `json:"records,omitempty"`
	// Inbox are the answers sent to the run, every one (the driver
	// knows which it journaled).
	Inbox []Inbound `json:"inbox,omitempty"`
}

// add keeps what e brings that follows what r has: a record is kept only
// in its place (seq one past the last), so a driver's resend is harmless
// and a gap never hides.
func (r *RunJournal) add(e JournalEntry) {
	if e.Run.ID != r.Run.ID {
		*r = RunJournal{} // a run the workflow had not heard of
	}
	r.Run = e.Run
	for _, rec := range e.Records {
		if rec.Run == e.Run.ID && rec.Seq == int64(len(r.Records))+1 {
			r.Records = append(r.Records, rec)
		}
	}
	r.Run.Events = int64(len(r.Records))
}

// queryLimit bounds the payloads of one query's answer; the reader asks
// again for the rest.
const queryLimit = 1 << 20

// from is r with the records from seq on, up to queryLimit of payloads
// (at least one).
func (r *RunJournal) from(seq int64) RunJournal {
	out := RunJournal{Run: r.Run}
	size := 0
	for i := max(seq-1, 0); i < int64(len(r.Records)); i++ {
		rec := r.Records[i]
		if size += len(rec.Payload); size > queryLimit && len(out.Records) > 0 {
			break
		}
		out.Records = append(out.Records, rec)
	}
	return out
}

// sendLimit bounds the payloads of one signal (Temporal refuses a payload
// over 2 MB): a driver that takes a run over sends what the workflow
// lacks in several.
const sendLimit = 256 << 10

// recordLimit is the largest record a signal carries, with room to
// spare under Temporal's 2 MB.
const recordLimit = 1536 << 10

// ErrRecordTooLarge is a record of the run that no signal carries (an
// agent's report of megabytes): no driver would get past it, so the run
// ends at once, saying which.
var ErrRecordTooLarge = errors.New("a record too large for the run's workflow")

// mirror is a driver's journal that hands each record of the run, once it
// is durable in the project's journal, to the run's workflow, and returns
// only then: the driver never acts on an event the history lacks. Records
// others appended (hive answer's) go with the driver's next.
//
// The answers sent to the workflow (its inbox) come the other way: when
// the driver reads the journal for others' records (Events), the mirror
// first journals each answer of the inbox whose checkpoint the journal
// has no answer to, at most once every inboxEvery.
type mirror struct {
	journal.Journal
	send   func(JournalEntry) error
	known  func() (RunJournal, error)
	inbox  func() (RunJournal, error) // known, quick: the shell's loop waits for it
	driver int32
	now    func() time.Time

	mu       sync.Mutex
	runs     map[int64]journal.Run
	sent     map[int64]int64        // the last seq the workflow has of each run
	answered map[int64]map[int]bool // the checkpoints each run's journal has answers to, once read
	asked    time.Time              // when the inbox was last read
}

// inboxEvery is how often a driver reads its workflow's inbox.
const inboxEvery = time.Second

func newMirror(j journal.Journal, driver int32, send func(JournalEntry) error, known func() (RunJournal, error)) *mirror {
	return &mirror{Journal: j, send: send, known: known, inbox: known, driver: driver, now: time.Now,
		runs: map[int64]journal.Run{}, sent: map[int64]int64{}, answered: map[int64]map[int]bool{}}
}

// Events journals the inbox's new answers to run, then reads the journal;
// records others appended there (hive answer's) go to the workflow
// before the driver, which reads them to act on them, has them.
func (m *mirror) Events(run int64, from int64) ([]journal.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.takeInbox(run); err != nil {
		return nil, err
	}
	recs, err := m.Journal.Events(run, from)
	if err != nil || len(recs) == 0 {
		return recs, err
	}
	if sent, ok := m.sent[run]; !ok || recs[len(recs)-1].Seq > sent {
		if err := m.sync(run); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// takeInbox journals the answers sent to the workflow that run's journal
// lacks, in the order they came.
func (m *mirror) takeInbox(run int64) error {
	if now := m.now(); now.Sub(m.asked) >= inboxEvery {
		m.asked = now
	} else {
		return nil
	}
	kept, err := m.inbox()
	if err != nil || len(kept.Inbox) == 0 {
		return nil // asked again in a moment
	}
	answered, err := m.answersOf(run)
	if err != nil {
		return err
	}
	for _, in := range kept.Inbox {
		if in.Run != run || answered[in.Checkpoint] || !in.valid() {
			continue
		}
		if _, err := m.Journal.Append(run, answerType, in.Time, in.Payload); errors.Is(err, journal.ErrRunFinished) {
			return nil // too late: the run has ended
		} else if err != nil {
			return err
		}
		answered[in.Checkpoint] = true
		if err := m.sync(run); err != nil {
			return err
		}
	}
	return nil
}

// answersOf is the set of checkpoints run's journal has answers to.
func (m *mirror) answersOf(run int64) (map[int]bool, error) {
	if a, ok := m.answered[run]; ok {
		return a, nil
	}
	a := map[int]bool{}
	err := m.Journal.Each(run, func(r journal.Record) error {
		noteAnswer(a, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.answered[run] = a
	return a, nil
}

// answerType is the type of an answer's record (pipeline.EvAnswer, which
// this package does not import).
const answerType = "answer"

// valid says whether in is an answer to its checkpoint: only such a
// record comes into the journal from outside.
func (in Inbound) valid() bool {
	var ev struct {
		Type       string `json:"type"`
		Checkpoint int    `json:"checkpoint"`
	}
	return in.Type == answerType && json.Unmarshal(in.Payload, &ev) == nil && ev.Type == answerType && ev.Checkpoint == in.Checkpoint
}

// noteAnswer adds r's checkpoint to a when r is an answer.
func noteAnswer(a map[int]bool, r journal.Record) {
	if r.Type != answerType {
		return
	}
	var ev struct {
		Checkpoint int `json:"checkpoint"`
	}
	if json.Unmarshal(r.Payload, &ev) == nil {
		a[ev.Checkpoint] = true
	}
}

func (m *mirror) CreateRun(phase string, at time.Time) (journal.Run, error) {
	run, err := m.Journal.CreateRun(phase, at)
	if err != nil {
		return run, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs[run.ID] = run
	m.sent[run.ID] = 0
	return run, m.sync(run.ID)
}

func (m *mirror) Append(run int64, typ string, at time.Time, payload []byte) (int64, error) {
	seq, err := m.Journal.Append(run, typ, at, payload)
	if err != nil {
		return seq, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return seq, m.sync(run)
}

// AppendAll implements journal.BatchAppender: the batch is one durable
// write, as the journal under m makes it, and one signal.
func (m *mirror) AppendAll(run int64, entries []journal.Entry) ([]int64, error) {
	seqs, err := journal.AppendAll(m.Journal, run, entries)
	if err != nil || len(seqs) == 0 {
		return seqs, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return seqs, m.sync(run)
}

// FinishRun finishes the run here; the workflow is told with it, or, if
// that fails, by CatchUp, which the driver calls before it returns: the
// run has ended here either way.
func (m *mirror) FinishRun(run int64, at time.Time, outcome string) error {
	if err := m.Journal.FinishRun(run, at, outcome); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.runs[run]; ok {
		r.Finished, r.Outcome = at, outcome
		m.runs[run] = r
	}
	m.sync(run)
	return nil
}

// sync sends the workflow run's records it lacks, with the run's own
// record.
func (m *mirror) sync(run int64) error {
	r, ok := m.runs[run]
	if !ok {
		// A run this driver took over: its record, and how far the
		// workflow has it.
		found, err := m.lookup(run)
		if err != nil {
			return err
		}
		r = found
		m.runs[run] = r
		if kept, err := m.known(); err == nil && kept.Run.ID == run {
			m.sent[run] = kept.Run.Events
		}
	}
	recs, err := m.Journal.Events(run, m.sent[run]+1)
	if err != nil {
		return err
	}
	if a, ok := m.answered[run]; ok {
		for _, r := range recs {
			noteAnswer(a, r) // hive answer's, journaled here
		}
	}
	for _, rec := range recs {
		if len(rec.Payload) > recordLimit {
			return fmt.Errorf("%w: record %d of run %d (%s) is %d bytes, more than a Temporal signal carries (%d); run it with --backend local", ErrRecordTooLarge, rec.Seq, run, rec.Type, len(rec.Payload), recordLimit)
		}
	}
	for first := true; first || len(recs) > 0; first = false {
		n, size := 0, 0
		for n < len(recs) && (n == 0 || size+len(recs[n].Payload) <= sendLimit) {
			size += len(recs[n].Payload)
			n++
		}
		if err := m.send(JournalEntry{Driver: m.driver, Run: r, Records: recs[:n]}); err != nil {
			return fmt.Errorf("hand run %d's journal to its workflow: %w", run, err)
		}
		if n > 0 {
			m.sent[run] = recs[n-1].Seq
		}
		recs = recs[n:]
	}
	return nil
}

// lookup is run's record in the journal.
func (m *mirror) lookup(run int64) (journal.Run, error) {
	runs, err := m.Journal.Runs()
	if err != nil {
		return journal.Run{}, err
	}
	for _, r := range runs {
		if r.ID == run {
			r.Events = 0
			return r, nil
		}
	}
	return journal.Run{}, fmt.Errorf("run %d: %w", run, journal.ErrRunNotFound)
}

// CatchUp hands the workflow the records of run that j, a driver's
// journal (Takeover.Journal's), has and the workflow lacks: those of a run
// whose driver died between journaling them and handing them on. Another
// journal is left as it is.
func CatchUp(j journal.Journal, run int64) error {
	m, ok := j.(*mirror)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sync(run)
}

// signalTimeout bounds handing one entry to the workflow; inboxTimeout
// reading its inbox (asked again a second later).
const (
	signalTimeout = 30 * time.Second
	inboxTimeout  = 3 * time.Second
)

// mirrorTo makes j a mirror that sends entries to the workflow execution
// id/runID through c.
func mirrorTo(c client.Client, id, runID string, driver int32, j journal.Journal) journal.Journal {
	send := func(e JournalEntry) error {
		// Not the driver's context: a driver that is stopped journals its
		// last events on its way out, and they belong in the history too.
		ctx, cancel := context.WithTimeout(context.Background(), signalTimeout)
		defer cancel()
		return c.SignalWorkflow(ctx, id, runID, JournalSignal, e)
	}
	query := func(timeout time.Duration) func() (RunJournal, error) {
		return func() (RunJournal, error) {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			return queryJournal(ctx, c, id, runID, math.MaxInt64)
		}
	}
	m := newMirror(j, driver, send, query(signalTimeout))
	m.inbox = query(inboxTimeout)
	return m
}

func queryJournal(ctx context.Context, c client.Client, id, runID string, from int64) (RunJournal, error) {
	var r RunJournal
	v, err := c.QueryWorkflow(ctx, id, runID, JournalQuery, from)
	if err != nil {
		return r, err
	}
	return r, v.Get(&r)
}

// ErrDiverged says a journal holds a run's records otherwise than the
// run's workflow: no driver can go on from both.
var ErrDiverged = errors.New("the run's journal here differs from its workflow's copy")

// Reconcile brings run's records in j up to those the workflow keeps
// (kept, from seq 1): the records j lacks are appended in order, under
// their own seqs, and the run's end when the workflow has it. Records j
// has beyond the workflow's are left (a driver that died before it
// handed them on journaled them: the mirror hands them on). A record the
// two hold differently is ErrDiverged: another driver journaled
// otherwise.
func Reconcile(j journal.Journal, run journal.Run, kept []journal.Record) error {
	have, err := j.Events(run.ID, 1)
	if err != nil {
		return err
	}
	for i := range min(len(have), len(kept)) {
		a, b := have[i], kept[i]
		if a.Seq != b.Seq || a.Type != b.Type || string(a.Payload) != string(b.Payload) {
			return fmt.Errorf("%w: run %d's record %d is %s here, %s there; another driver journaled otherwise: start the run again with hive run --fresh", ErrDiverged, run.ID, a.Seq, a.Type, b.Type)
		}
	}
	for _, r := range kept[min(len(have), len(kept)):] {
		seq, err := j.Append(run.ID, r.Type, r.Time, r.Payload)
		if err != nil {
			return err
		}
		if seq != r.Seq {
			return fmt.Errorf("run %d's record %d took seq %d here", run.ID, r.Seq, seq)
		}
	}
	if !run.Finished.IsZero() {
		if err := j.FinishRun(run.ID, run.Finished, run.Outcome); err != nil && !errors.Is(err, journal.ErrRunFinished) {
			return err
		}
	}
	return nil
}

// SendAnswer sends an answer to the run of workflow id: its driver
// journals it (RunJournal.Inbox).
func SendAnswer(ctx context.Context, c client.Client, id string, in Inbound) error {
	return c.SignalWorkflow(ctx, id, "", AnswerSignal, in)
}

// WorkflowJournal reads a run's journal from its workflow (JournalQuery):
// the records a driver anywhere handed it. Its Events is what a
// piperun.Follower reads.
type WorkflowJournal struct {
	C         client.Client
	ID, RunID string
	Ctx       context.Context
}

// Latest is the run the workflow keeps (ID 0: none yet).
func (w WorkflowJournal) Latest() (journal.Run, error) {
	r, err := queryJournal(w.Ctx, w.C, w.ID, w.RunID, math.MaxInt64)
	return r.Run, err
}

// Answered says whether an answer to checkpoint of run is in the
// workflow's inbox (its driver journals it next).
func (w WorkflowJournal) Answered(run int64, checkpoint int) (bool, error) {
	r, err := queryJournal(w.Ctx, w.C, w.ID, w.RunID, math.MaxInt64)
	if err != nil {
		return false, err
	}
	for _, in := range r.Inbox {
		if in.Run == run && in.Checkpoint == checkpoint {
			return true, nil
		}
	}
	return false, nil
}

// Events returns the records of run from seq from on that the workflow
// has (none while it has not heard of run).
func (w WorkflowJournal) Events(run, from int64) ([]journal.Record, error) {
	var out []journal.Record
	for {
		r, err := queryJournal(w.Ctx, w.C, w.ID, w.RunID, from)
		if err != nil {
			return out, fmt.Errorf("the run's journal in workflow %s: %w", w.ID, err)
		}
		if r.Run.ID != run || len(r.Records) == 0 {
			return out, nil
		}
		out = append(out, r.Records...)
		from = r.Records[len(r.Records)-1].Seq + 1
	}
}
