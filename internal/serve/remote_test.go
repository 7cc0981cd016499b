package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/serve/views"
)

// fakeRemote is one running workflow whose plan 01-02 waits at a decision,
// until it is answered; or a server that cannot be reached (down).
type fakeRemote struct {
	mu      sync.Mutex
	open    bool
	down    bool
	reads   int
	answers []string
}

func (f *fakeRemote) Runs(context.Context) ([]views.RemoteRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.down {
		return nil, errors.New("connection refused")
	}
	snap := phase.Snapshot{Phase: "01", Started: true, Plans: []*phase.PlanStatus{
		{Spec: phase.PlanSpec{ID: "01-01", Name: "Book model", Tasks: 2}, State: phase.Complete, Attempt: 1, TasksDone: 2},
		{Spec: phase.PlanSpec{ID: "01-02", Tasks: 2}, State: phase.Running, Attempt: 1, TasksDone: 1},
	}}
	if f.open {
		snap.Queue = []phase.Checkpoint{{ID: 3, Plan: "01-02", Attempt: 1, Kind: phase.KindCheckpoint, Type: "decision",
			Details: "Pick **the store**:\n1. `sqlite`\n2. <b>postgres</b>", Options: []string{"sqlite", "postgres"}}}
	}
	return []views.RemoteRun{{Workflow: "hive-01-demo-1a2b3c4d", Started: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), Snap: snap}}, nil
}

func (f *fakeRemote) Answer(_ context.Context, r views.RemoteRun, plan string, cp int, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open || plan != "01-02" || cp != 3 {
		return fmt.Errorf("%w: checkpoint #%d of %s", views.ErrNotOpen, cp, plan)
	}
	f.open = false
	f.answers = append(f.answers, r.Workflow+" "+plan+" "+text)
	return nil
}

// TestRemoteRuns: a Temporal workflow's run is listed beside the
// journals' (none here), its checkpoint is answered through the Remote
// once, with secrets masked, and a second answer is refused as late.
func TestRemoteRuns(t *testing.T) {
	root := t.TempDir()
	key, err := LoadKey(root)
	if err != nil {
		t.Fatal(err)
	}
	remote := &fakeRemote{open: true}
	var logs strings.Builder
	var logMu sync.Mutex
	token := strings.Repeat("t", 32)
	srv, err := New(Options{Root: root, Token: token, Key: key, Poll: 20 * time.Millisecond, Remote: remote,
		Redactor: redact.New().With("hunter2-secret-value"),
		Logf: func(format string, args ...any) {
			logMu.Lock()
			fmt.Fprintf(&logs, format+"\n", args...)
			logMu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	ts := httptest.NewServer(srv)
	defer func() {
		cancel()
		ts.Close()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	key1 := temporalKey("hive-01-demo-1a2b3c4d")
	var runs []views.RunView
	deadline := time.Now().Add(10 * time.Second)
	for len(runs) == 0 && time.Now().Before(deadline) {
		_, body := call("GET", "/api/runs", "")
		if err := json.Unmarshal([]byte(body), &runs); err != nil {
			t.Fatalf("GET /api/runs: %v: %s", err, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(runs) != 1 {
		t.Fatalf("runs = %+v, want the workflow's", runs)
	}
	r := runs[0]
	if r.Key != key1 || r.Kind != views.KindTemporal || r.Workflow != "hive-01-demo-1a2b3c4d" || r.State != "running" || len(r.Items) != 2 || len(r.Checkpoints) != 1 {
		t.Fatalf("run view = %+v", r)
	}
	if cp := r.Checkpoints[0]; cp.Run != key1 || cp.Plan != "01-02" || cp.ID != 3 || cp.Form != "choice" {
		t.Fatalf("checkpoint view = %+v", cp)
	}
	if status, body := call("GET", "/runs/"+key1, ""); status != 200 || !strings.Contains(body, "hive-01-demo-1a2b3c4d") || !strings.Contains(body, ">Plans<") {
		t.Fatalf("run page: %d\n%s", status, body)
	} else {
		// The checkpoint's details rendered from their Markdown, its HTML
		// escaped; each plan with its name.
		for _, want := range []string{`<div class="details"><p>Pick <strong>the store</strong>:</p><ol><li><code>sqlite</code></li><li>&lt;b&gt;postgres&lt;/b&gt;</li></ol></div>`,
			`>01-01</a> <span class="name">Book model</span>`} {
			if !strings.Contains(body, want) {
				t.Errorf("run page lacks %s:\n%s", want, body)
			}
		}
	}
	if status, body := call("GET", "/runs/"+key1+"/output/01-02", ""); status != 200 || !strings.Contains(body, "runs on a hive worker") {
		t.Fatalf("output of a remote plan: %d %s", status, body)
	}

	path := fmt.Sprintf("/api/runs/%s/checkpoints/01-02/3/answer", key1)
	// A body without its field is told which field it lacks.
	for _, tc := range []struct{ body, want string }{
		{`{"response":"sqlite"}`, `the body has no field \"answer\": send {\"answer\": \"...\"} (it has \"response\")`},
		{`{}`, `the body has no field \"answer\"`},
		{`{"answer":3}`, `the field \"answer\" must be a string`},
		{`["sqlite"]`, `the body must be a JSON object`},
	} {
		if status, body := call("POST", path, tc.body); status != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("answer %s: %d %s, want 400 %s", tc.body, status, body, tc.want)
		}
	}
	formReq, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader("response=sqlite"))
	formReq.Header.Set("Authorization", "Bearer "+token)
	formReq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := http.DefaultClient.Do(formReq); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `the form has no field \"answer\"`) {
			t.Errorf("form without answer: %d %s, want 400 naming the field", resp.StatusCode, b)
		}
	}
	if status, body := call("POST", path, `{"answer":"sqlite, password hunter2-secret-value"}`); status != 200 {
		t.Fatalf("answer: %d %s", status, body)
	}
	remote.mu.Lock()
	got := remote.answers
	remote.mu.Unlock()
	if len(got) != 1 || !strings.HasPrefix(got[0], "hive-01-demo-1a2b3c4d 01-02 sqlite, password ") || strings.Contains(got[0], "hunter2") {
		t.Fatalf("answers sent = %q, want one, its secret masked", got)
	}
	// The view was read again at once: the checkpoint is gone, and a second
	// answer is late.
	if _, body := call("GET", "/api/checkpoints", ""); strings.Contains(body, "01-02") {
		t.Fatalf("checkpoints after the answer: %s", body)
	}
	if status, body := call("POST", path, `{"answer":"postgres"}`); status != http.StatusConflict {
		t.Fatalf("second answer: %d %s, want 409", status, body)
	}
	if status, _ := call("POST", fmt.Sprintf("/api/runs/%s/checkpoints/01-02/9/answer", key1), `{"answer":"x"}`); status == 200 {
		t.Fatal("an answer to a checkpoint never raised was accepted")
	}

	// The server goes away: said once in the log, the last view stays.
	remote.mu.Lock()
	remote.down, remote.reads = true, 0
	remote.mu.Unlock()
	for time.Now().Before(deadline) {
		remote.mu.Lock()
		n := remote.reads
		remote.mu.Unlock()
		if n >= 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	logMu.Lock()
	told := strings.Count(logs.String(), "connection refused")
	logMu.Unlock()
	if told != 1 {
		t.Fatalf("the remote's failure was logged %d times, want once:\n%s", told, logs.String())
	}
	if _, body := call("GET", "/api/runs", ""); !strings.Contains(body, key1) {
		t.Fatalf("runs while the server is away: %s", body)
	}
}

// temporalKey is the key of a workflow's run as views gives it: a number
// drawn from the workflow's name, the same across restarts of hive serve.
func temporalKey(workflow string) string {
	h := fnv.New32a()
	h.Write([]byte(workflow))
	return fmt.Sprintf("%s-%d", views.KindTemporal, int64(h.Sum32())+1)
}
