package temporal

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/journal"
)

// The names a `hive run` pipeline's workflow is known by in Temporal.
const (
	// PipelineWorkflowName is the workflow type of one `hive run`.
	PipelineWorkflowName = "hive-pipeline"
	// PipelineActivity drives the run on a worker, from its start or
	// from its journal, until it ends.
	PipelineActivity = "hive-pipeline-drive"
	// DriverSignal says which worker drives the run now, and the run's
	// number in the project's journal.
	DriverSignal = "hive-pipeline-driver"
	// DriversQuery answers the Drivers so far.
	DriversQuery = "hive-pipeline-drivers"
)

// PipelineInput starts a pipeline's workflow.
type PipelineInput struct {
	// Request is what the run is to do, opaque here: the CLI's (the
	// objective, the workflow of roles, the flags), handed to the driver.
	Request json.RawMessage `json:"request"`
	// Heartbeat is how long a driver may go silent before its worker is
	// taken for dead and another takes the run over from its journal;
	// Timeout bounds one driver (a run that waits days for an answer
	// needs days); Drivers is how many may take the run in turn.
	Heartbeat time.Duration `json:"heartbeat"`
	Timeout   time.Duration `json:"timeout"`
	Drivers   int           `json:"drivers"`
	// Anywhere, when set, is the task queue of the workers of any clone
	// of the project (a run whose work is on a git remote), where the
	// workflow itself runs; its drivers are those of Folder, the queue of
	// the run's folder, as long as one takes the run up within Handover,
	// else those of Anywhere.
	Anywhere string        `json:"anywhere,omitempty"`
	Folder   string        `json:"folder,omitempty"`
	Handover time.Duration `json:"handover,omitempty"`
	// Carried is what a workflow run whose history grew long hands the
	// next one (it continues as new between two drivers): gzipped JSON
	// of a carried; nil for a new run.
	Carried []byte `json:"carried,omitempty"`
}

// carried is what goes on from one workflow run of a pipeline to the
// next: the run's records and answers, its drivers so far, and when the
// first workflow run started (the drivers' Since).
type carried struct {
	Kept    RunJournal `json:"kept"`
	Drivers []Driver   `json:"drivers,omitempty"`
	Latest  int32      `json:"latest"`
	N       int32      `json:"n"`                // the drive activities so far
	Failed  int32      `json:"failed,omitempty"` // those that failed
	Since   time.Time  `json:"since"`
}

// pipelineHistory is the history length (Temporal's events) past which a
// pipeline's workflow continues as new, between two drivers, far below
// the server's limit (51,200 events), where a workflow is terminated;
// a driver that drives on past it hands the run over (Drive ends, and
// the next driver resumes it from the journal). A variable for tests.
var pipelineHistory = 20000

// continueChange marks, in a run's history, that its workflow runs its
// drivers one activity each (as over a remote) and continues as new once
// its history is long.
const continueChange = "hive-pipeline-continue"

// Driver is a worker that drove (or drives) the run.
type Driver struct {
	// Attempt counts the drivers: 1 started the run, each later one
	// resumed it from the journal.
	Attempt int32  `json:"attempt"`
	Host    string `json:"host"`
	// Run is the run's number in the project's pipeline journal.
	Run int64 `json:"run"`
}

// Takeover is what a driver knows of the run before it.
type Takeover struct {
	// Attempt counts the drivers: 1 starts the run, a later one takes it
	// over because the one before died or failed.
	Attempt int32 `json:"attempt"`
	// Run is the run the driver before said it drove (0: it never said;
	// it may have died right after creating it).
	Run int64 `json:"run,omitempty"`
	// Since is when the workflow started: a run in the journal created
	// after it is this workflow's.
	Since time.Time `json:"since"`
	// Workflow is the run's workflow: a driver that is not in the run's
	// folder takes the run up from its copy of the journal.
	Workflow string `json:"workflow,omitempty"`
	// Journal wraps the driver's journal so that each record, once
	// durable there, goes to the workflow's history too (JournalSignal)
	// before the append returns (nil: the records stay in the journal).
	Journal func(journal.Journal) journal.Journal `json:"-"`
}

// PipelineDriver carries a `hive run` out on a worker: the run request
// asks for, or, taking over (t.Attempt > 1), the one the driver before
// left in the project's journal. It tells started the run's number as
// soon as it has one, returns the run's result (opaque here: the CLI's),
// and must end when ctx does. An error that another driver would meet too
// (a bad request, a run that is not there) should be Refused, so that
// none is tried.
type PipelineDriver interface {
	Drive(ctx context.Context, request json.RawMessage, t Takeover, started func(run int64)) (json.RawMessage, error)
}

// Refused marks err as one that no other driver would get past: the
// pipeline's workflow fails with it at once, instead of handing the run to
// the next worker.
func Refused(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), "hive-refused", err)
}

// PipelineWorkflow is one `hive run`: its pipeline machine runs on one
// worker at a time, an activity that heartbeats (PipelineActivity), and
// journals every event there, in the project's journal, before it acts
// on it, as a local run does. When that worker dies its heartbeat stops,
// and the run goes to another worker, which resumes it from the journal:
// no finished role or answered question is lost or done again. The
// workflow ends with the run's result.
//
// Each journaled event also comes to the workflow (JournalSignal), which
// keeps the run's records and answers them (JournalQuery): a terminal
// that follows the run reads it there. Answers to the run's questions
// come as signals (AnswerSignal), which the driver journals. The drivers
// share the project's folder (its worktrees).
func PipelineWorkflow(ctx workflow.Context, in PipelineInput) (json.RawMessage, error) {
	var drivers []Driver
	var kept RunJournal
	latest := int32(0) // the newest driver: the only one whose entries count
	n := int32(0)      // the drive activities so far
	failed := int32(0) // those that failed
	since := workflow.GetInfo(ctx).WorkflowStartTime
	if in.Carried != nil {
		var c carried
		if err := gunzipJSON(in.Carried, &c); err != nil {
			return nil, temporal.NewNonRetryableApplicationError("the run's workflow before this one: "+err.Error(), "hive-refused", err)
		}
		kept, drivers, latest, n, failed, since = c.Kept, c.Drivers, c.Latest, c.N, c.Failed, c.Since
		in.Carried = nil
	}
	if err := workflow.SetQueryHandler(ctx, DriversQuery, func() ([]Driver, error) { return drivers, nil }); err != nil {
		return nil, err
	}
	inbox := kept.Inbox
	if err := workflow.SetQueryHandler(ctx, JournalQuery, func(from int64) (RunJournal, error) {
		r := kept.from(from)
		r.Inbox = inbox
		return r, nil
	}); err != nil {
		return nil, err
	}
	driver := func(d Driver) {
		drivers = append(drivers, d)
		latest = max(latest, d.Attempt)
	}
	entry := func(e JournalEntry) {
		if e.Driver >= latest {
			latest = e.Driver
			kept.add(e)
		}
	}
	signals := workflow.GetSignalChannel(ctx, DriverSignal)
	entries := workflow.GetSignalChannel(ctx, JournalSignal)
	answers := workflow.GetSignalChannel(ctx, AnswerSignal)
	// Answers go to the inbox whenever they come, between drivers too (a
	// driver that ended, a backoff): a terminal that asks whether an
	// answer waits must find it there.
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var in Inbound
			answers.Receive(ctx, &in)
			inbox = append(inbox, in)
		}
	})
	attempts := in.Drivers
	if attempts <= 0 {
		attempts = 10
	}
	// drive runs one drive activity to its end, taking the signals that
	// come meanwhile.
	drive := func(opts workflow.ActivityOptions, work driveWork) (out json.RawMessage, err error) {
		f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), PipelineActivity, work)
		sel := workflow.NewSelector(ctx)
		done := false
		sel.AddFuture(f, func(f workflow.Future) {
			done = true
			err = f.Get(ctx, &out)
		})
		sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) {
			var d Driver
			c.Receive(ctx, &d)
			driver(d)
		})
		sel.AddReceive(entries, func(c workflow.ReceiveChannel, _ bool) {
			var e JournalEntry
			c.Receive(ctx, &e)
			entry(e)
		})
		for !done {
			sel.Select(ctx)
		}
		return out, err
	}
	// ended takes a driver's words that came with its end, and the
	// answers not yet in the inbox.
	ended := func(out json.RawMessage, err error) (json.RawMessage, error) {
		for {
			var a Inbound
			if !answers.ReceiveAsync(&a) {
				break
			}
			inbox = append(inbox, a)
		}
		for {
			var d Driver
			if !signals.ReceiveAsync(&d) {
				break
			}
			driver(d)
		}
		for {
			var e JournalEntry
			if !entries.ReceiveAsync(&e) {
				break
			}
			entry(e)
		}
		return out, err
	}
	// The drivers one activity each: over a remote (anywhere), and in runs
	// that continue as new once their history is long (continues).
	anywhere := in.Anywhere != "" && workflow.GetVersion(ctx, anywhereChange, workflow.DefaultVersion, 1) == 1
	continues := in.Anywhere == "" && workflow.GetVersion(ctx, continueChange, workflow.DefaultVersion, 1) == 1 ||
		anywhere && workflow.GetVersion(ctx, continueChange, workflow.DefaultVersion, 1) == 1
	if !anywhere && !continues {
		// The drivers of the workflow's own queue, one after another as
		// Temporal retries the activity.
		opts := workflow.ActivityOptions{
			StartToCloseTimeout: in.Timeout,
			HeartbeatTimeout:    in.Heartbeat,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
				MaximumAttempts: int32(attempts)},
		}
		return ended(drive(opts, driveWork{Request: in.Request, Since: since}))
	}
	// A driver of the run's folder (Folder), as long as one takes the run
	// up within Handover; else one of any clone (Anywhere), which takes
	// the run up from the workflow's copy of its journal and the remote.
	// Each driver is an activity of its own, so that the next may be on
	// another queue.
	away := false // the folder's drivers did not come: any clone's
	backoff := time.Second
	for {
		if continues && n > 0 && workflow.GetInfo(ctx).GetCurrentHistoryLength() >= pipelineHistory {
			ended(nil, nil) // what came with the last driver's end
			kept.Inbox = inbox
			next, err := gzipJSON(carried{Kept: kept, Drivers: drivers, Latest: latest, N: n, Failed: failed, Since: since})
			if err != nil {
				return nil, err
			}
			in.Carried = next
			return nil, workflow.NewContinueAsNewError(ctx, PipelineWorkflowName, in)
		}
		opts := workflow.ActivityOptions{StartToCloseTimeout: in.Timeout, HeartbeatTimeout: in.Heartbeat,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}}
		run := kept.Run.ID
		if run == 0 && len(drivers) > 0 {
			run = drivers[len(drivers)-1].Run
		}
		switch {
		case away:
			opts.TaskQueue = in.Anywhere
		case run != 0 && anywhere:
			// Before the run exists only the folder can start it.
			opts.ScheduleToStartTimeout = in.Handover
			fallthrough
		default:
			opts.TaskQueue = in.Folder
		}
		// From now on only this driver's entries count, before it has
		// sent any: a driver it replaces may still be sending.
		latest = max(latest, n+1)
		out, err := drive(opts, driveWork{Request: in.Request, Since: since, Run: run, After: n, Continues: continues})
		n++
		var timeout *temporal.TimeoutError
		var refused *temporal.ApplicationError
		switch {
		case err == nil, errors.As(err, &refused) && refused.NonRetryable():
			return ended(out, err)
		case errors.As(err, &timeout) && timeout.TimeoutType() == enums.TIMEOUT_TYPE_SCHEDULE_TO_START:
			away = true // no driver of the folder came
			continue
		case errors.As(err, &refused) && refused.Type() == handoverType:
			continue // the driver handed the run on: the history is long
		}
		// A run that continues as new counts its drivers' failures, not
		// its drivers (a long run hands over many times).
		failed++
		if continues && failed >= int32(attempts) || !continues && n >= int32(attempts) {
			return ended(out, err)
		}
		away = false // the folder's drivers first again
		if err := workflow.Sleep(ctx, backoff); err != nil {
			return ended(nil, err)
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// anywhereChange marks, in a run's history, that its drivers are handed
// over between queues (PipelineInput.Anywhere).
const anywhereChange = "hive-drivers-anywhere"

// handoverType is the error type of a driver that hands the run on
// because the workflow's history is long (pipelineHistory): the workflow
// continues as new, and the next driver resumes the run.
const handoverType = "hive-handover"

// errHandover is how such a driver ends.
var errHandover = temporal.NewApplicationError("the run's workflow history is long: the run goes on in a new workflow run, from its journal", handoverType)

// gzipJSON is v as gzipped JSON.
func gzipJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if err := json.NewEncoder(z).Encode(v); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// gunzipJSON reads what gzipJSON made into v.
func gunzipJSON(data []byte, v any) error {
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer z.Close()
	return json.NewDecoder(z).Decode(v)
}

// driveWork is what each driver of a run is given.
type driveWork struct {
	Request json.RawMessage `json:"request"`
	Since   time.Time       `json:"since"`
	// Run is the run the drivers before drove, as far as the workflow
	// knows; After counts them (the drive activities before this one).
	Run   int64 `json:"run,omitempty"`
	After int32 `json:"after,omitempty"`
	// Continues: the workflow continues as new once its history is long,
	// and the driver hands the run on then.
	Continues bool `json:"continues,omitempty"`
}

// pipelineActivities drive the runs on a worker.
type pipelineActivities struct {
	drive  PipelineDriver
	client client.Client
	host   string
	beat   time.Duration
}

// Drive runs the driver while it heartbeats with the run's number, which
// a driver that takes over reads.
func (a *pipelineActivities) Drive(ctx context.Context, w driveWork) (json.RawMessage, error) {
	info := activity.GetInfo(ctx)
	t := Takeover{Attempt: w.After + info.Attempt, Since: w.Since, Run: w.Run, Workflow: info.WorkflowExecution.ID}
	if a.client != nil {
		t.Journal = func(j journal.Journal) journal.Journal {
			return mirrorTo(a.client, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, t.Attempt, j)
		}
	}
	if info.Attempt > 1 && activity.HasHeartbeatDetails(ctx) {
		activity.GetHeartbeatDetails(ctx, &t.Run)
	}
	var run atomic.Int64
	done := make(chan struct{})
	defer close(done)
	// A worker that is stopped (ctrl-c) stops its driver at once, which
	// then says so: the next worker need not wait out the heartbeat.
	stopped := activity.GetWorkerStopChannel(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		beat := time.NewTicker(a.beat)
		defer beat.Stop()
		for {
			select {
			case <-done:
				return
			case <-stopped:
				cancel()
				stopped = nil
			case <-beat.C:
				activity.RecordHeartbeat(ctx, run.Load())
			}
		}
	}()
	started := func(id int64) {
		run.Store(id)
		activity.RecordHeartbeat(ctx, id)
		if a.client == nil {
			return
		}
		d := Driver{Attempt: t.Attempt, Host: a.host, Run: id}
		if err := a.client.SignalWorkflow(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, DriverSignal, d); err != nil {
			activity.GetLogger(ctx).Warn("tell the run which worker drives it", "error", err)
		}
	}
	var handing atomic.Bool // the history is long: this driver hands the run on
	if a.client != nil && w.Continues {
		go func() {
			tick := time.NewTicker(historyCheck)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				d, err := a.client.DescribeWorkflowExecution(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID)
				if err == nil && d.GetWorkflowExecutionInfo().GetHistoryLength() >= int64(pipelineHistory) {
					handing.Store(true)
					cancel()
					return
				}
			}
		}()
	}
	out, err := a.drive.Drive(ctx, w.Request, t, started)
	if err != nil && ctx.Err() != nil {
		if handing.Load() {
			return nil, errHandover
		}
		return nil, ctx.Err()
	}
	return out, err
}

// historyCheck is how often a driver asks how long its workflow's
// history is. A variable for tests.
var historyCheck = 30 * time.Second

// PipelineWorker is what one `hive worker` runs for `hive run`: a worker of
// queue that drives pipelines with drive.
func PipelineWorker(c client.Client, queue string, drive PipelineDriver, opts worker.Options) worker.Worker {
	host, _ := os.Hostname()
	acts := &pipelineActivities{drive: drive, client: c, host: fmt.Sprintf("%s (pid %d)", host, os.Getpid()), beat: time.Second}
	if opts.WorkerStopTimeout == 0 {
		opts.WorkerStopTimeout = 10 * time.Second // for a stopped driver to say it stopped
	}
	w := worker.New(c, queue, opts)
	w.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: PipelineWorkflowName})
	w.RegisterActivityWithOptions(acts.Drive, activity.RegisterOptions{Name: PipelineActivity})
	return w
}
