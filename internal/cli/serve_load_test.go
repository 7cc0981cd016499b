package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/serve/views"
)

// TestServeLoad puts hive serve under load on loopback beside a running
// sim phase: SSE clients follow it while answers arrive at a fixed rate
// (open loop: each in its own request, whatever the latency), aimed at
// the checkpoints open at the time, so that many race each other and
// arrive late. Nothing may be lost: every accepted answer is journaled
// once and reaches every stream once, every other one is told 409, and
// the run finishes. HIVE_SERVE_LOAD=1 runs the full load (50 clients,
// 200 answers/s for 30 s); the normal suite runs a short one.
func TestServeLoad(t *testing.T) {
	clients, rate, duration, plans, perPlan := 5, 50, 2*time.Second, 4, 3
	if os.Getenv("HIVE_SERVE_LOAD") != "" {
		clients, rate, duration, plans, perPlan = 50, 200, 30*time.Second, 12, 12
	}
	kinds := []string{"verify", "decision", "action"}
	var specs []servePlan
	for i := range plans {
		p := servePlan{id: fmt.Sprintf("01-%02d", i+1)}
		for k := range perPlan {
			p.checkpoints = append(p.checkpoints, kinds[(i+k)%len(kinds)])
		}
		specs = append(specs, p)
	}
	dir, env := serveRepo(t, specs, "", "HIVE_SIM_DELAY=20ms", "CI=")
	ts := startServe(t, dir, 1e6) // one client address sends it all: --rate set high, as a user would

	// The run, in another process.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exe := hiveCmd(t, ctx, env, "execute-phase", "1", "--agent", "sim", "--checkpoint-wait", "10m", "--repo", dir)
	var out strings.Builder
	exe.Stdout, exe.Stderr = &out, &out
	if err := exe.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- exe.Wait() }()

	// The streams: each counts the answers it is told of.
	type stream struct {
		answered map[string]int
		err      error
	}
	streams := make([]*stream, clients)
	var swg sync.WaitGroup
	sctx, stopStreams := context.WithCancel(context.Background())
	defer stopStreams()
	for i := range streams {
		st := &stream{answered: map[string]int{}}
		streams[i] = st
		swg.Add(1)
		go func() {
			defer swg.Done()
			req, _ := http.NewRequestWithContext(sctx, "GET", ts.URL+"/api/events", nil)
			req.Header.Set("Authorization", "Bearer "+ts.token)
			resp, err := ts.Client().Do(req)
			if err != nil {
				st.err = err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				st.err = fmt.Errorf("GET /api/events: %s", resp.Status)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			var typ string
			for sc.Scan() {
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "event: "):
					typ = strings.TrimPrefix(line, "event: ")
				case strings.HasPrefix(line, "data: ") && typ == "answered":
					var a views.Answered
					if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &a) == nil {
						st.answered[fmt.Sprintf("%s/%s/%d", a.Run, a.Plan, a.Checkpoint)]++
					}
				case strings.HasPrefix(line, "event: reset"):
					st.err = fmt.Errorf("the stream was reset: events were lost")
				}
			}
		}()
	}

	// What is open now, as the API says.
	var mu sync.Mutex
	var open []views.CheckpointView
	finished := make(chan struct{})
	go func() {
		for {
			select {
			case <-finished:
				return
			case <-time.After(20 * time.Millisecond):
			}
			req, _ := http.NewRequest("GET", ts.URL+"/api/checkpoints", nil)
			req.Header.Set("Authorization", "Bearer "+ts.token)
			resp, err := ts.Client().Do(req)
			if err != nil {
				continue
			}
			var cps []views.CheckpointView
			json.NewDecoder(resp.Body).Decode(&cps)
			resp.Body.Close()
			mu.Lock()
			if len(cps) > 0 || open == nil {
				open = cps
			}
			mu.Unlock()
		}
	}()

	// The answers, at rate per second, each aimed at a checkpoint open (or
	// lately open: many arrive after another answer took it).
	reply := map[string]string{"human-verify": "approved", "decision": "clerk", "human-action": "done"}
	type result struct {
		status  int
		latency time.Duration
		key     string
	}
	results := make(chan result, rate*int(duration/time.Second+120)*2)
	var awg sync.WaitGroup
	sent := 0 // answers sent so far
	fire := func(n int) {
		mu.Lock()
		if len(open) == 0 {
			mu.Unlock()
			return
		}
		cp := open[n%len(open)]
		sent++
		mu.Unlock()
		awg.Add(1)
		go func() {
			defer awg.Done()
			body, _ := json.Marshal(map[string]string{"answer": reply[cp.Type]})
			req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/runs/%s/checkpoints/%s/%d/answer", ts.URL, cp.Run, cp.Plan, cp.ID), strings.NewReader(string(body)))
			req.Header.Set("Authorization", "Bearer "+ts.token)
			req.Header.Set("Content-Type", "application/json")
			start := time.Now()
			resp, err := ts.Client().Do(req)
			if err != nil {
				results <- result{status: -1}
				return
			}
			resp.Body.Close()
			results <- result{status: resp.StatusCode, latency: time.Since(start), key: fmt.Sprintf("%s/%s/%d", cp.Run, cp.Plan, cp.ID)}
		}()
	}
	tick := time.NewTicker(time.Second / time.Duration(rate))
	start := time.Now()
	n := 0
	for time.Since(start) < duration {
		<-tick.C
		fire(n)
		n++
	}
	tick.Stop()
	loadTime := time.Since(start)
	mu.Lock()
	sentLoad := sent
	mu.Unlock()
	// Then, until the run ends, answer what is left at a calmer pace.
	deadline := time.After(3 * time.Minute)
	var runErr error
drain:
	for {
		select {
		case runErr = <-exited:
			break drain
		case <-deadline:
			t.Fatalf("the run did not finish; its output:\n%s", out.String())
		case <-time.After(25 * time.Millisecond):
			fire(n)
			n++
		}
	}
	close(finished)
	awg.Wait()
	close(results)
	if runErr != nil {
		t.Errorf("execute-phase: %v\n%s", runErr, out.String())
	}

	statuses := map[int]int{}
	accepted := map[string]int{}
	var latencies []time.Duration
	for r := range results {
		statuses[r.status]++
		if r.status == http.StatusOK {
			accepted[r.key]++
		}
		if r.status > 0 {
			latencies = append(latencies, r.latency)
		}
	}
	total := plans * perPlan
	for k, c := range accepted {
		if c != 1 {
			t.Errorf("checkpoint %s accepted %d answers", k, c)
		}
	}
	if len(accepted) != total {
		t.Errorf("%d checkpoints answered, want %d", len(accepted), total)
	}
	for code, c := range statuses {
		if code != http.StatusOK && code != http.StatusConflict {
			t.Errorf("%d answers got %d: only 200 and 409 (already answered) are expected", c, code)
		}
	}
	answered := 0
	for _, p := range specs {
		answered += answerEvents(t, dir, p.id)
	}
	if answered != total {
		t.Errorf("%d answers in the journal, want %d", answered, total)
	}

	// Every stream saw every accepted answer, once.
	time.Sleep(500 * time.Millisecond)
	stopStreams()
	swg.Wait()
	for i, st := range streams {
		if st.err != nil {
			t.Errorf("stream %d: %v", i, st.err)
		}
		for k := range accepted {
			if st.answered[k] != 1 {
				t.Errorf("stream %d told answer %s %d times", i, k, st.answered[k])
			}
		}
		if len(st.answered) != len(accepted) {
			t.Errorf("stream %d told %d answers, want %d", i, len(st.answered), len(accepted))
		}
	}
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(float64(len(latencies))*p))]
	}
	report := fmt.Sprintf("load: %d SSE clients; %d answers sent in %s (%.0f/s, %d/s asked), %d more until the run ended; %d accepted (one per checkpoint, %d checkpoints), %d already answered (409); answer latency p50 %s, p99 %s, max %s",
		clients, sentLoad, loadTime.Round(time.Millisecond), float64(sentLoad)/loadTime.Seconds(), rate, sent-sentLoad,
		statuses[http.StatusOK], total, statuses[http.StatusConflict], pct(0.50), pct(0.99), pct(1))
	t.Log(report)
	if dir := os.Getenv("HIVE_ARTIFACTS"); dir != "" {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "serve-load.txt"), []byte(report+"\n"), 0o644)
	}
}
