package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/demo"
)

// TestStatusBesideAStartingRun: readers of hive status, started again and
// again beside a hive run that starts and asks its first question, never
// see fewer runs than there are. Each one either shows the older phase run
// and, from the moment one reader saw it, the new hive run, or fails with
// an error that says why; never "No runs yet" (a user saw that, and [] from
// --json, for 17 s while a run asked its first question on a busy machine).
// Then hive answer finds the run's question.
func TestStatusBesideAStartingRun(t *testing.T) {
	t.Parallel()
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	dir := t.TempDir()
	if err := demo.Create(dir); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HIVE_SIM_DELAY=1ms", "CI=")
	hiveRun := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, hive, append(args, "--repo", dir)...)
		cmd.Env = env
		return cmd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := hiveRun(ctx, "execute-phase", "1", "--agent", "sim", "--yes", "--no-tui").CombinedOutput(); err != nil {
		t.Fatalf("the older phase run: %v\n%s", err, out)
	}

	// The run asks its interviewer's first question and waits for an
	// answer (no terminal): the readers read until it is asked.
	var out lockedBuffer
	run := hiveRun(ctx, "run", "add a health check endpoint", "--agent", "sim", "--roles", "interviewer,implementer", "--checkpoint-wait", "2m")
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Process.Kill(); run.Wait() })
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		for ctx.Err() == nil && !strings.Contains(out.String(), "answer from another terminal") {
			time.Sleep(20 * time.Millisecond)
		}
	}()

	var mu sync.Mutex
	sawPipeline := false
	reads := 0
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-asked:
					return
				default:
				}
				mu.Lock()
				seen := sawPipeline
				mu.Unlock()
				var stdout, stderr bytes.Buffer
				status := hiveRun(ctx, "status", "--json")
				status.Stdout, status.Stderr = &stdout, &stderr
				if err := status.Run(); err != nil {
					// A reader may fail, but it must say why.
					if strings.TrimSpace(stderr.String()) == "" {
						t.Errorf("hive status failed without a word: %v", err)
					}
					continue
				}
				var views []struct {
					Kind string `json:"kind"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &views); err != nil {
					t.Errorf("hive status --json: %v\n%s", err, stdout.String())
					return
				}
				kinds := map[string]bool{}
				for _, v := range views {
					kinds[v.Kind] = true
				}
				mu.Lock()
				reads++
				if !kinds["phase"] {
					t.Errorf("read %d: the older phase run is missing: %s", reads, stdout.String())
				}
				if seen && !kinds["pipeline"] {
					t.Errorf("read %d: the hive run another reader saw is missing: %s", reads, stdout.String())
				}
				sawPipeline = sawPipeline || kinds["pipeline"]
				mu.Unlock()
			}
		}()
	}
	<-asked
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the run asked nothing:\n%s", out.String())
	}
	t.Logf("%d reads of hive status beside the starting run", reads)
	if !sawPipeline {
		t.Errorf("no reader saw the hive run, which asks its question now")
	}
	// The question is open: hive status shows it, and hive answer finds it.
	status, err := hiveRun(ctx, "status", "--json").Output()
	if err != nil || !strings.Contains(string(status), `"kind": "pipeline"`) {
		t.Errorf("hive status once the question is asked: %v\n%s", err, status)
	}
	if answer, err := hiveRun(ctx, "answer", "interviewer", "the smallest version that works").CombinedOutput(); err != nil {
		t.Errorf("hive answer interviewer: %v\n%s\nthe run:\n%s", err, answer, out.String())
	}
}
