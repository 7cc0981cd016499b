package notify

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWebhookPostsJSON(t *testing.T) {
	var mu sync.Mutex
	var got []Message
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s with %q", r.Method, r.Header.Get("Content-Type"))
		}
		var m Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			t.Error(err)
		}
		mu.Lock()
		got = append(got, m)
		mu.Unlock()
	}))
	defer srv.Close()
	rang := 0
	n := &Notifier{WebhookURL: srv.URL, Bell: func() { rang++ }}
	n.Send(Message{Kind: KindCheckpoint, Phase: "03", Plan: "03-01", Title: "hive: 03-01 — Decision Required", Text: "Select: a, b"})
	n.Send(Message{Kind: KindRunFinished, Phase: "03", Title: "hive: phase 03 finished", Outcome: "complete"})
	n.Wait()
	if rang != 2 {
		t.Errorf("bell rang %d times, want 2", rang)
	}
	if len(got) != 2 {
		t.Fatalf("%d webhook calls, want 2", len(got))
	}
	kinds := got[0].Kind + " " + got[1].Kind
	if !strings.Contains(kinds, KindCheckpoint) || !strings.Contains(kinds, KindRunFinished) {
		t.Errorf("kinds %q", kinds)
	}
}

// TestWebhookFailureIsLogged: a receiver that is down, answers 500 or
// hangs costs a log line and at most the timeout, never the run.
func TestWebhookFailureIsLogged(t *testing.T) {
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	defer broken.Close()
	for _, url := range []string{slow.URL, broken.URL, "http://127.0.0.1:1/nothing"} {
		var mu sync.Mutex
		var logs []string
		n := &Notifier{WebhookURL: url, Timeout: 200 * time.Millisecond, Logf: func(f string, a ...any) {
			mu.Lock()
			logs = append(logs, f)
			mu.Unlock()
		}}
		start := time.Now()
		n.Send(Message{Kind: KindRunFinished})
		n.Wait()
		if time.Since(start) > 5*time.Second {
			t.Errorf("%s: the timeout did not hold", url)
		}
		if len(logs) != 1 {
			t.Errorf("%s: %d log lines, want 1", url, len(logs))
		}
	}
}

// TestDesktopArguments: the texts are arguments of the notifier program,
// never a shell string.
func TestDesktopArguments(t *testing.T) {
	var args []string
	n := &Notifier{Desktop: true, command: func(title, text string) *exec.Cmd {
		c := desktopCommand(title, text)
		if c == nil {
			c = exec.Command("true", title, text)
		}
		args = c.Args
		return exec.Command("true")
	}}
	n.Send(Message{Title: `it's "quoted"; rm -rf /`, Text: "$(reboot)"})
	n.Wait()
	if args[len(args)-2] != `it's "quoted"; rm -rf /` || args[len(args)-1] != "$(reboot)" {
		t.Errorf("args = %q", args)
	}
	for _, a := range args {
		if a == "-c" || strings.HasSuffix(a, "sh") {
			t.Errorf("a shell in %q", args)
		}
	}
}

func TestSwitchedOff(t *testing.T) {
	n := &Notifier{command: func(string, string) *exec.Cmd { t.Error("desktop notification sent"); return nil }}
	n.Send(Message{Kind: KindCheckpoint})
	n.Wait()
}
