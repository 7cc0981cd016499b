package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/journal"
)

var t0 = time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)

func rec(run, seq int64, payload string) journal.Record {
	return journal.Record{Run: run, Seq: seq, Time: t0, Type: "ev", Payload: json.RawMessage(payload)}
}

// TestRunJournalKeepsRecordsInPlace: the workflow keeps a record only in
// its place: a resend changes nothing, a record after a gap waits for the
// gap's, and a run it had not heard of replaces the one it kept.
func TestRunJournalKeepsRecordsInPlace(t *testing.T) {
	var r RunJournal
	run := journal.Run{ID: 3, Phase: "run", Started: t0}
	r.add(JournalEntry{Driver: 1, Run: run, Records: []journal.Record{rec(3, 1, `1`), rec(3, 2, `2`)}})
	r.add(JournalEntry{Driver: 1, Run: run, Records: []journal.Record{rec(3, 2, `"again"`), rec(3, 4, `4`)}})
	if r.Run.Events != 2 || string(r.Records[1].Payload) != `2` {
		t.Fatalf("after a resend and a gap: %+v", r)
	}
	r.add(JournalEntry{Driver: 2, Run: run, Records: []journal.Record{rec(3, 3, `3`), rec(3, 4, `4`), rec(7, 5, `5`)}})
	if r.Run.Events != 4 {
		t.Fatalf("the gap filled, another run's record offered: %+v", r)
	}
	if got := r.from(3); len(got.Records) != 2 || got.Records[0].Seq != 3 || got.Run.Events != 4 {
		t.Errorf("from seq 3: %+v", got)
	}
	if got := r.from(5); len(got.Records) != 0 || got.Run.ID != 3 {
		t.Errorf("from past the end: %+v", got)
	}
	r.add(JournalEntry{Driver: 2, Run: journal.Run{ID: 4, Phase: "run", Started: t0}})
	if r.Run.ID != 4 || r.Run.Events != 0 || len(r.Records) != 0 {
		t.Errorf("a new run: %+v", r)
	}
	// An answer is bounded; the first record always goes.
	big := strings.Repeat("x", queryLimit)
	r = RunJournal{}
	r.add(JournalEntry{Run: run, Records: []journal.Record{rec(3, 1, `"`+big+`"`), rec(3, 2, `2`)}})
	if got := r.from(1); len(got.Records) != 1 {
		t.Errorf("a query's answer over the limit has %d records, want 1", len(got.Records))
	}
}

// copyOf is a workflow's copy of the journal, as the signals built it.
type copyOf struct {
	mu      sync.Mutex
	kept    RunJournal
	entries []JournalEntry
	fail    error
	inbox   []Inbound
	queries int
}

func (c *copyOf) send(e JournalEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return c.fail
	}
	c.entries = append(c.entries, e)
	c.kept.add(e)
	return nil
}

func (c *copyOf) known() (RunJournal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queries++
	r := c.kept.from(1 << 62)
	r.Inbox = c.inbox
	return r, nil
}

// answer is an inbound answer to checkpoint cp.
func answer(cp int, text string) Inbound {
	return Inbound{Run: 1, Checkpoint: cp, Type: answerType, Time: t0, Payload: json.RawMessage(fmt.Sprintf(`{"type":"answer","checkpoint":%d,"text":%q}`, cp, text))}
}

// TestMirrorJournalsTheInbox: the answers sent to the workflow are
// journaled by the driver when it reads the journal, in the order they
// came, each once (not one whose checkpoint the journal has an answer to:
// hive answer's in the folder, or one a driver before journaled), and go
// to the workflow's copy; only answers to their own checkpoint of this
// run come in; the inbox is read at most once a second.
func TestMirrorJournalsTheInbox(t *testing.T) {
	j := journal.NewMemory()
	wf := &copyOf{}
	m := newMirror(j, 1, wf.send, wf.known)
	now := t0
	m.now = func() time.Time { return now }
	run, err := m.CreateRun("run", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(run.ID, answerType, t0, []byte(`{"type":"answer","checkpoint":1,"text":"in the folder"}`)); err != nil {
		t.Fatal(err)
	}
	forged := answer(4, "forged")
	forged.Type = "role-report"
	otherRun := answer(5, "another run's")
	otherRun.Run = 9
	mismatched := answer(6, "which?")
	mismatched.Checkpoint = 7
	wf.inbox = []Inbound{answer(1, "too late"), answer(2, "yes"), forged, otherRun, mismatched, answer(3, "no")}
	recs, err := m.Events(run.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range recs {
		var ev struct{ Text string }
		json.Unmarshal(r.Payload, &ev)
		texts = append(texts, ev.Text)
	}
	if got := strings.Join(texts, ","); got != "in the folder,yes,no" {
		t.Fatalf("the journal's answers: %s", got)
	}
	sameRecords(t, j, run.ID, wf.kept)
	queries := wf.queries
	if _, err := m.Events(run.ID, 1); err != nil || wf.queries != queries {
		t.Fatalf("the inbox was read again within a second (%d queries, %v)", wf.queries-queries, err)
	}
	now = now.Add(inboxEvery)
	m2 := newMirror(j, 2, wf.send, wf.known) // a driver that takes over
	for _, mm := range []*mirror{m, m2} {
		mm.now = func() time.Time { return now }
		if recs, err := mm.Events(run.ID, 1); err != nil || len(recs) != 3 {
			t.Fatalf("the inbox read again: %d records, %v", len(recs), err)
		}
	}
}

// sameRecords fails unless the workflow's copy holds exactly run's records.
func sameRecords(t *testing.T, j journal.Journal, run int64, kept RunJournal) {
	t.Helper()
	want, err := j.Events(run, 1)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Run.ID != run || len(kept.Records) != len(want) {
		t.Fatalf("the workflow has run %d with %d records, the journal run %d with %d", kept.Run.ID, len(kept.Records), run, len(want))
	}
	for i := range want {
		g, w := kept.Records[i], want[i]
		if g.Seq != w.Seq || g.Type != w.Type || string(g.Payload) != string(w.Payload) || !g.Time.Equal(w.Time) {
			t.Fatalf("record %d: the workflow has %+v, the journal %+v", i+1, g, w)
		}
	}
}

// TestMirrorHandsEachRecordOn: each record the driver journals is in the
// workflow's copy when Append returns, with the records another process
// appended before it (an answer); a record that could not be handed on is
// durable in the journal, Append says so, and it goes with the next; a
// driver that takes the run over sends only what the workflow lacks, in
// signals of bounded size; the run's end reaches the workflow.
func TestMirrorHandsEachRecordOn(t *testing.T) {
	j := journal.NewMemory()
	wf := &copyOf{}
	m := newMirror(j, 1, wf.send, wf.known)
	run, err := m.CreateRun("run", t0)
	if err != nil {
		t.Fatal(err)
	}
	if wf.kept.Run.ID != run.ID {
		t.Fatalf("the workflow was not told of the run: %+v", wf.kept)
	}
	for i := range 3 {
		if _, err := m.Append(run.ID, "ev", t0, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := j.Append(run.ID, "answer", t0, []byte(`"the simple way"`)); err != nil { // hive answer, in another process
		t.Fatal(err)
	}
	// The driver reads it to act on it: the workflow has it first.
	if _, err := m.Events(run.ID, 4); err != nil {
		t.Fatal(err)
	}
	sameRecords(t, j, run.ID, wf.kept)
	if _, err := m.Append(run.ID, "ev", t0, []byte(`3`)); err != nil {
		t.Fatal(err)
	}
	sameRecords(t, j, run.ID, wf.kept)
	// A batch is one signal.
	wf.entries = nil
	if _, err := journal.AppendAll(m, run.ID, []journal.Entry{{Type: "ev", At: t0, Payload: []byte(`"a"`)}, {Type: "ev", At: t0, Payload: []byte(`"b"`)}}); err != nil {
		t.Fatal(err)
	}
	if len(wf.entries) != 1 || len(wf.entries[0].Records) != 2 {
		t.Errorf("a batch of two went in %d signals", len(wf.entries))
	}
	sameRecords(t, j, run.ID, wf.kept)

	wf.fail = errors.New("server unavailable")
	if _, err := m.Append(run.ID, "ev", t0, []byte(`4`)); err == nil || !strings.Contains(err.Error(), "server unavailable") {
		t.Fatalf("an append whose record did not reach the workflow: %v", err)
	}
	wf.fail = nil
	if recs, _ := j.Events(run.ID, 8); len(recs) != 1 {
		t.Fatal("the record that could not be handed on is not in the journal")
	}

	// The next driver takes over: it finds out how far the workflow has
	// the run, and sends the rest, the big records in several signals.
	m2 := newMirror(j, 2, wf.send, wf.known)
	big := `"` + strings.Repeat("y", sendLimit/2) + `"`
	for range 3 {
		if _, err := j.Append(run.ID, "ev", t0, []byte(big)); err != nil {
			t.Fatal(err)
		}
	}
	wf.entries = nil
	if _, err := m2.Append(run.ID, "ev", t0, []byte(`5`)); err != nil {
		t.Fatal(err)
	}
	sameRecords(t, j, run.ID, wf.kept)
	sent := 0
	for _, e := range wf.entries {
		size := 0
		for _, r := range e.Records {
			size += len(r.Payload)
		}
		if size > sendLimit && len(e.Records) > 1 {
			t.Errorf("one signal carries %d bytes of records", size)
		}
		if e.Driver != 2 || e.Run.Phase != "run" {
			t.Errorf("entry %+v", e.Run)
		}
		sent += len(e.Records)
	}
	if sent != 5 || len(wf.entries) < 2 {
		t.Errorf("the takeover sent %d records in %d signals, want the 5 the workflow lacked in 2 or more", sent, len(wf.entries))
	}

	if err := m2.FinishRun(run.ID, t0.Add(time.Minute), "complete"); err != nil {
		t.Fatal(err)
	}
	if wf.kept.Run.Outcome != "complete" || !wf.kept.Run.Finished.Equal(t0.Add(time.Minute)) {
		t.Errorf("the run's end: %+v", wf.kept.Run)
	}
}

// recordingDriver journals through the journal Takeover.Journal gives it:
// the first driver dies after its records; the second goes on, while the
// first, not yet gone, still sends (a worker the server took for dead).
type recordingDriver struct {
	j       journal.Journal
	mu      sync.Mutex
	journal []func(journal.Journal) journal.Journal
}

func (d *recordingDriver) Drive(ctx context.Context, _ json.RawMessage, t Takeover, started func(int64)) (json.RawMessage, error) {
	d.mu.Lock()
	d.journal = append(d.journal, t.Journal)
	d.mu.Unlock()
	j := t.Journal(d.j)
	if t.Attempt == 1 {
		run, err := j.CreateRun("run", t0)
		if err != nil {
			return nil, err
		}
		started(run.ID)
		for i := range 3 {
			if _, err := j.Append(run.ID, "ev", t0, []byte(fmt.Sprint(i))); err != nil {
				return nil, err
			}
		}
		return nil, errors.New("worker lost")
	}
	const run = 1 // the first driver's
	started(run)
	if _, err := j.Append(run, "ev", t0, []byte(`3`)); err != nil {
		return nil, err
	}
	// The answer sent to the workflow comes in as a record of the
	// journal, as a waiting driver polls it.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		recs, err := j.Events(run, 5)
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, errors.New("the answer sent to the workflow never reached the journal")
		}
	}
	if err := j.FinishRun(run, t0, "complete"); err != nil {
		return nil, err
	}
	// The first driver's late word: the workflow drops it.
	zombie := d.journal[0](journal.NewMemory())
	if late, err := zombie.CreateRun("zombie", t0); err != nil || late.ID != run {
		return nil, fmt.Errorf("zombie: %v %v", late, err)
	}
	return json.RawMessage(`{}`), nil
}

// TestPipelineWorkflowKeepsTheRunsJournal: on a dev server, what the
// drivers journal is in the workflow's copy (and its history), from the
// first driver and the one that took the run over, not from a driver
// replaced; an answer sent to the workflow is journaled by the driver;
// a WorkflowJournal reads the records back, as a follower does. With
// HIVE_RECORD_HISTORY=1 it keeps the history for the replay test (record
// another, pipeline-N.json, whenever PipelineWorkflow changes).
func TestPipelineWorkflowKeepsTheRunsJournal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := &recordingDriver{j: journal.NewMemory()}
	c, run := startPipeline(ctx, t, d, "hive-run-journal")
	if err := SendAnswer(ctx, c, run.GetID(), answer(1, "the simple way")); err != nil {
		t.Fatal(err)
	}
	var out json.RawMessage
	if err := Result(ctx, run, &out); err != nil {
		t.Fatal(err)
	}
	kept, err := queryJournal(ctx, c, run.GetID(), run.GetRunID(), 1)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, d.j, 1, kept)
	if kept.Run.Outcome != "complete" || kept.Run.Phase != "run" {
		t.Errorf("the run's end did not reach the workflow: %+v", kept.Run)
	}
	if last := kept.Records[len(kept.Records)-1]; last.Type != answerType || len(kept.Inbox) != 1 {
		t.Errorf("the answer sent: the last record is %s %s; the inbox %+v", last.Type, last.Payload, kept.Inbox)
	}
	recs, err := WorkflowJournal{C: c, ID: run.GetID(), RunID: run.GetRunID(), Ctx: ctx}.Events(1, 2)
	if err != nil || len(recs) != 4 || recs[0].Seq != 2 {
		t.Errorf("a follower reading from seq 2: %v %+v", err, recs)
	}
	if recs, err := (WorkflowJournal{C: c, ID: run.GetID(), Ctx: ctx}).Events(2, 1); err != nil || len(recs) != 0 {
		t.Errorf("a run the workflow does not have: %v %+v", err, recs)
	}
	if os.Getenv("HIVE_RECORD_HISTORY") != "" {
		// pipeline-1.json is the pipeline workflow's first with a journal;
		// pipeline-3.json its first whose drivers are one activity each
		// (continueChange).
		recordHistory(t, c, run, "pipeline-3.json")
	}
}

// startPipeline starts a pipeline workflow named id on a dev server, its
// drivers served by d (three at most, a minute each).
func startPipeline(ctx context.Context, t *testing.T, d PipelineDriver, id string) (client.Client, client.WorkflowRun) {
	t.Helper()
	c, queue := devServer(t, func(c client.Client, _ worker.Worker) {})
	w := PipelineWorker(c, queue+"-run", d, worker.Options{})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue + "-run"}, PipelineWorkflowName,
		PipelineInput{Request: json.RawMessage(`{}`), Heartbeat: 5 * time.Second, Timeout: time.Minute, Drivers: 3})
	if err != nil {
		t.Fatal(err)
	}
	return c, run
}

// handoverDriver is the run's folder driver (it creates the run, then
// works until its worker is stopped) or a clone's (it takes the run over
// and ends it).
type handoverDriver struct {
	j       journal.Journal
	working chan struct{}
	mu      sync.Mutex
	got     []Takeover
}

func (d *handoverDriver) Drive(ctx context.Context, _ json.RawMessage, t Takeover, started func(int64)) (json.RawMessage, error) {
	d.mu.Lock()
	d.got = append(d.got, t)
	d.mu.Unlock()
	j := t.Journal(d.j)
	if d.working != nil {
		run, err := j.CreateRun("run", t0)
		if err != nil {
			return nil, err
		}
		started(run.ID)
		close(d.working)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	started(t.Run)
	if err := j.FinishRun(t.Run, t0, "complete"); err != nil {
		return nil, err
	}
	return json.RawMessage(`{"by":"a clone"}`), nil
}

// TestPipelineWorkflowHandsOverToAnyClone: a run whose drivers may be
// anywhere goes first to its folder's; when the folder's last driver is
// gone and none of the folder takes the run up within the handover, a
// driver of any clone does, told which run and workflow it takes over and
// that drivers went before it.
func TestPipelineWorkflowHandsOverToAnyClone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, queue := devServer(t, func(client.Client, worker.Worker) {})
	folderQ, anyQ := queue+"-folder", queue+"-any"
	folder := &handoverDriver{j: journal.NewMemory(), working: make(chan struct{})}
	clone := &handoverDriver{j: journal.NewMemory()}
	// The clone's journal has the run too: the test's drivers share
	// nothing else.
	if _, err := clone.j.CreateRun("run", t0); err != nil {
		t.Fatal(err)
	}
	fw := PipelineWorker(c, folderQ, folder, worker.Options{WorkerStopTimeout: 5 * time.Second})
	cw := PipelineWorker(c, anyQ, clone, worker.Options{})
	for _, w := range []worker.Worker{fw, cw} {
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer cw.Stop()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "hive-run-handover", TaskQueue: anyQ}, PipelineWorkflowName,
		PipelineInput{Request: json.RawMessage(`{}`), Heartbeat: 5 * time.Second, Timeout: time.Minute, Drivers: 5,
			Anywhere: anyQ, Folder: folderQ, Handover: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-folder.working:
	case <-ctx.Done():
		t.Fatal("no driver of the folder took the run up")
	}
	fw.Stop() // the folder's machine goes
	var out json.RawMessage
	if err := Result(ctx, run, &out); err != nil || string(out) != `{"by":"a clone"}` {
		t.Fatalf("the run's result: %s %v", out, err)
	}
	if len(folder.got) != 1 || len(clone.got) != 1 {
		t.Fatalf("the folder drove %d times, a clone %d, want once each", len(folder.got), len(clone.got))
	}
	// The folder's second chance timed out before it started: the
	// clone's is the third.
	if tk := clone.got[0]; tk.Attempt != 3 || tk.Run != 1 || tk.Workflow != "hive-run-handover" {
		t.Errorf("the clone's driver was told %+v", tk)
	}
	v, err := c.QueryWorkflow(ctx, run.GetID(), "", DriversQuery)
	var ds []Driver
	if err != nil || v.Get(&ds) != nil || len(ds) != 2 || ds[1].Attempt != 3 {
		t.Errorf("the drivers: %+v %v", ds, err)
	}
	if kept, err := queryJournal(ctx, c, run.GetID(), "", 1); err != nil || kept.Run.Outcome != "complete" {
		t.Errorf("the clone's end of the run did not reach the workflow: %+v %v", kept.Run, err)
	}
	if os.Getenv("HIVE_RECORD_HISTORY") != "" {
		recordHistory(t, c, run, "pipeline-2.json") // the first that hands its drivers over
	}
}

// TestReconcile: a journal behind the workflow's copy gets the records it
// lacks under their seqs, and the run's end; one ahead keeps its own; one
// that differs is refused.
func TestReconcile(t *testing.T) {
	kept := []journal.Record{rec(1, 1, `1`), rec(1, 2, `2`), rec(1, 3, `3`)}
	j := journal.NewMemory()
	run, _ := j.CreateRun("run", t0)
	j.Append(run.ID, "ev", t0, []byte(`1`))
	run.Finished, run.Outcome = t0.Add(time.Hour), "complete"
	if err := Reconcile(j, run, kept); err != nil {
		t.Fatal(err)
	}
	sameRecords(t, j, run.ID, RunJournal{Run: run, Records: kept})
	if r, _, _ := j.LatestRun("run"); r.Outcome != "complete" {
		t.Errorf("the run's end: %+v", r)
	}
	if err := Reconcile(j, run, kept); err != nil {
		t.Errorf("reconciled twice: %v", err)
	}
	ahead := journal.NewMemory()
	r2, _ := ahead.CreateRun("run", t0)
	for _, p := range []string{`1`, `2`, `3`, `4`} {
		ahead.Append(r2.ID, "ev", t0, []byte(p))
	}
	if err := Reconcile(ahead, r2, kept); err != nil {
		t.Errorf("a journal ahead: %v", err)
	}
	if recs, _ := ahead.Events(r2.ID, 1); len(recs) != 4 {
		t.Errorf("a journal ahead has %d records", len(recs))
	}
	other := journal.NewMemory()
	r3, _ := other.CreateRun("run", t0)
	other.Append(r3.ID, "ev", t0, []byte(`1`))
	other.Append(r3.ID, "ev", t0, []byte(`"else"`))
	if err := Reconcile(other, r3, kept); !errors.Is(err, ErrDiverged) {
		t.Errorf("a journal that differs: %v", err)
	}
}

// longDriver journals a record every few milliseconds until it is
// stopped (the first driver), or takes the run over and ends it.
type longDriver struct {
	j   journal.Journal
	mu  sync.Mutex
	got []Takeover
}

func (d *longDriver) Drive(ctx context.Context, _ json.RawMessage, t Takeover, started func(int64)) (json.RawMessage, error) {
	d.mu.Lock()
	d.got = append(d.got, t)
	d.mu.Unlock()
	j := t.Journal(d.j)
	if t.Attempt > 1 {
		started(t.Run)
		if err := j.FinishRun(t.Run, t0, "complete"); err != nil {
			return nil, err
		}
		return json.RawMessage(`{}`), nil
	}
	run, err := j.CreateRun("run", t0)
	if err != nil {
		return nil, err
	}
	started(run.ID)
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := j.Append(run.ID, "ev", t0, []byte(fmt.Sprint(i))); err != nil {
			return nil, err
		}
	}
}

// TestPipelineDriverHandsOnALongHistory: on a dev server, a driver whose
// workflow's history has grown long ends, and the workflow continues as
// new: the next driver, second in turn, takes the run over in the next
// workflow run, which keeps every record the first journaled.
func TestPipelineDriverHandsOnALongHistory(t *testing.T) {
	defer func(h int, every time.Duration) { pipelineHistory, historyCheck = h, every }(pipelineHistory, historyCheck)
	pipelineHistory, historyCheck = 60, 100*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := &longDriver{j: journal.NewMemory()}
	c, run := startPipeline(ctx, t, d, "hive-run-long")
	var out json.RawMessage
	if err := Result(ctx, c.GetWorkflow(ctx, run.GetID(), ""), &out); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	got := slices.Clone(d.got)
	d.mu.Unlock()
	if len(got) != 2 || got[1].Attempt != 2 || got[1].Run != 1 {
		t.Fatalf("drivers %+v; want the second to take run 1 over", got)
	}
	desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), "")
	if err != nil {
		t.Fatal(err)
	}
	if latest := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId(); latest == run.GetRunID() {
		t.Fatalf("the workflow did not continue as new")
	}
	kept, err := queryJournal(ctx, c, run.GetID(), "", 1)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, d.j, 1, kept)
	if kept.Run.Outcome != "complete" || len(kept.Records) < 10 {
		t.Errorf("the next workflow run keeps %d records, run %+v", len(kept.Records), kept.Run)
	}
}

// TestMirrorRefusesARecordTooLarge: a record no signal carries (an
// agent's report of megabytes) is not sent, and the driver is told why,
// so that the run ends at once instead of failing for every driver.
func TestMirrorRefusesARecordTooLarge(t *testing.T) {
	j := journal.NewMemory()
	wf := &copyOf{}
	m := newMirror(j, 1, wf.send, wf.known)
	run, err := m.CreateRun("run", t0)
	if err != nil {
		t.Fatal(err)
	}
	big := append(append([]byte(`"`), bytes.Repeat([]byte("x"), recordLimit)...), '"')
	_, err = m.Append(run.ID, "report", t0, big)
	if !errors.Is(err, ErrRecordTooLarge) || !strings.Contains(err.Error(), "record 1 of run 1 (report)") || len(wf.kept.Records) != 0 {
		t.Fatalf("a record of %d bytes: %v; the workflow has %d records", len(big), err, len(wf.kept.Records))
	}
}
