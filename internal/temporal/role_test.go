package temporal

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// scriptedRole plays a role session on a worker: it emits "first", waits
// for the test's word (or its end), then emits "last".
type scriptedRole struct {
	goOn chan struct{}
}

func (r *scriptedRole) Run(ctx context.Context, session json.RawMessage, emit func(json.RawMessage)) error {
	var name string
	if err := json.Unmarshal(session, &name); err != nil {
		return err
	}
	emit(json.RawMessage(`"` + name + ` first"`))
	select {
	case <-r.goOn:
		emit(json.RawMessage(`"` + name + ` last"`))
		return nil
	case <-ctx.Done():
		emit(json.RawMessage(`"` + name + ` stopped"`))
		return ctx.Err()
	}
}

// TestRoleSessionOnAWorker, on a real Temporal server: a role session's
// outputs reach the driver that follows it while it works, in order and
// once each; a session the driver stops still says how it ended.
func TestRoleSessionOnAWorker(t *testing.T) {
	role := &scriptedRole{goOn: make(chan struct{})}
	c, queue := devServer(t, func(c client.Client, w worker.Worker) { RegisterRoles(w, c, role) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := func(id, name string) *RoleCall {
		raw, _ := json.Marshal(name)
		call, err := StartRole(ctx, c, id, RoleInput{Session: raw, Queue: queue, Heartbeat: 5 * time.Second, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return call
	}
	follow := func(call *RoleCall, first func()) ([]string, string) {
		var got []string
		why := call.Follow(ctx, 100*time.Millisecond, func(raw json.RawMessage) {
			var s string
			json.Unmarshal(raw, &s)
			got = append(got, s)
			if len(got) == 1 {
				first()
			}
		})
		return got, why
	}

	// The first output comes while the session works: only then does it
	// go on.
	got, why := follow(start("role-architect-1", "architect"), func() { close(role.goOn) })
	if why != "" || !slices.Equal(got, []string{"architect first", "architect last"}) {
		t.Fatalf("outputs %q, ended %q; want first and last, ended well", got, why)
	}

	// Stopped after its first output: it ends, saying so.
	role.goOn = make(chan struct{})
	call := start("role-tester-1", "tester")
	got, why = follow(call, func() {
		if err := call.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	if why != "stopped" || !slices.Equal(got, []string{"tester first", "tester stopped"}) {
		t.Fatalf("outputs %q, ended %q; want first and stopped, ended stopped", got, why)
	}
	if !strings.HasPrefix(call.ID(), "role-tester") {
		t.Fatalf("id %s", call.ID())
	}
}
