package temporaltest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// CLI finds the temporal CLI: $HIVE_TEMPORAL, or .tools/temporal/temporal
// above the test's package folder. Under CI a missing CLI fails the test:
// a skipped server test proves nothing.
func CLI(t testing.TB) string {
	t.Helper()
	candidates := []string{os.Getenv("HIVE_TEMPORAL")}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			candidates = append(candidates, filepath.Join(dir, ".tools", "temporal", "temporal"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			if abs, err := filepath.Abs(path); err == nil {
				return abs
			}
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("the Temporal CLI is not built: run `make test`, which builds it from the Go module proxy into .tools/temporal")
	}
	t.Skip("the Temporal CLI is not built: `make temporal` builds it into .tools/temporal; skipped outside CI")
	return ""
}

// Start starts a dev server for the test, stopped when it ends, and
// returns its address and a client of its default namespace.
func Start(t testing.TB) (string, client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr := "127.0.0.1:" + freePort(t)
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath:  CLI(t),
		ClientOptions: &client.Options{HostPort: addr, Namespace: "default"},
		LogLevel:      "error",
		ExtraArgs:     []string{"--http-port", freePort(t), "--metrics-port", freePort(t)},
	})
	if err != nil {
		t.Fatalf("start the Temporal dev server: %v", err)
	}
	t.Cleanup(func() { srv.Stop() })
	return addr, srv.Client()
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// Query is what a test environment's workflow answers the query name
// with (a machine's state).
func Query[S any](env *testsuite.TestWorkflowEnvironment, name string) (S, error) {
	var out S
	v, err := env.QueryWorkflow(name)
	if err != nil {
		return out, fmt.Errorf("query: %w", err)
	}
	if err := v.Get(&out); err != nil {
		return out, fmt.Errorf("decode the answer to %s: %w", name, err)
	}
	return out, nil
}

// RecordHistory writes the history of run as Temporal's JSON at path
// (testdata/histories/…), for a replay test.
func RecordHistory(t testing.TB, c client.Client, run client.WorkflowRun, path string) {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), run.GetID(), run.GetRunID(), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var hist historypb.History
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, ev)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&hist)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s (%d events)", path, len(hist.Events))
}

// DecodeInput reads the input a continue-as-new carries into into.
func DecodeInput(can *workflow.ContinueAsNewError, into any) error {
	if can.Input == nil || len(can.Input.Payloads) != 1 {
		return fmt.Errorf("continue-as-new carries %v", can.Input)
	}
	return json.Unmarshal(can.Input.Payloads[0].Data, into)
}

// PhaseSpec is a phase of one-task plans, each after the first, two at a
// time, each tried twice.
func PhaseSpec(plans ...string) *phase.RunSpec {
	spec := &phase.RunSpec{Phase: "01", MaxConcurrent: 2, Retries: 1}
	for i, id := range plans {
		ps := phase.PlanSpec{ID: id, Tasks: 1}
		if i > 0 {
			ps.DependsOn = []string{plans[0]}
		}
		spec.Plans = append(spec.Plans, ps)
	}
	return spec
}
