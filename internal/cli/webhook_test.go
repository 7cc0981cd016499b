package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// webhookReceiver is a script's webhook endpoint: it keeps every body it
// receives.
type webhookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

var (
	receiversMu sync.Mutex
	receivers   = map[*testscript.TestScript]*webhookReceiver{}
)

// webhook is a script command:
//
//	webhook listen FILE    start a receiver and write a config FILE naming it
//	webhook count KIND N   the receiver got N notifications of KIND
//	webhook dump FILE      write the bodies received, one JSON per line
func webhook(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: webhook listen FILE | count KIND N | dump FILE")
	}
	receiversMu.Lock()
	r := receivers[ts]
	receiversMu.Unlock()
	switch args[0] {
	case "listen":
		r = &webhookReceiver{}
		r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			var body map[string]any
			b, _ := io.ReadAll(req.Body)
			if err := json.Unmarshal(b, &body); err != nil {
				body = map[string]any{"kind": "not-json", "raw": string(b)}
			}
			r.mu.Lock()
			r.bodies = append(r.bodies, body)
			r.mu.Unlock()
		}))
		receiversMu.Lock()
		receivers[ts] = r
		receiversMu.Unlock()
		ts.Defer(func() {
			r.srv.Close()
			receiversMu.Lock()
			delete(receivers, ts)
			receiversMu.Unlock()
		})
		cfg := fmt.Sprintf(`{"notifications": {"webhook_url": %q}}`, r.srv.URL)
		path := ts.MkAbs(args[1])
		ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
		ts.Check(os.WriteFile(path, []byte(cfg+"\n"), 0o644))
	case "count":
		if r == nil || len(args) != 3 {
			ts.Fatalf("usage: webhook count KIND N, after webhook listen")
		}
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		r.mu.Lock()
		got := 0
		for _, b := range r.bodies {
			if b["kind"] == args[1] {
				got++
			}
		}
		r.mu.Unlock()
		if (got == want) == neg {
			ts.Fatalf("webhook got %d %s notification(s), want %d", got, args[1], want)
		}
	case "dump":
		if r == nil {
			ts.Fatalf("webhook dump before webhook listen")
		}
		r.mu.Lock()
		var out []byte
		for _, b := range r.bodies {
			line, _ := json.Marshal(b)
			out = append(append(out, line...), '\n')
		}
		r.mu.Unlock()
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
	default:
		ts.Fatalf("unknown webhook command %q", args[0])
	}
}
