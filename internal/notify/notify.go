package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// Kinds of notification.
const (
	KindCheckpoint  = "checkpoint"   // a plan waits for a human
	KindRunFinished = "run-finished" // every plan is final
	KindLimit       = "limit"        // the run waits for the account's usage limit to reset (Until)
)

// Message is one notification; it is also the webhook's JSON body.
type Message struct {
	Kind    string    `json:"kind"`
	Phase   string    `json:"phase"`
	Plan    string    `json:"plan,omitempty"`
	Title   string    `json:"title"`
	Text    string    `json:"text"`
	Outcome string    `json:"outcome,omitempty"` // run-finished: complete, failed, aborted
	Time    time.Time `json:"time"`
	// Until (limit) is when the wait ends: the reset the CLI said, or
	// when the run tries again.
	Until time.Time `json:"until,omitzero"`
	// URL opens the checkpoint's page in hive serve, and each of Answers
	// (by answer: "approved", an option, "done") gives that answer: signed
	// links, each good once, until it expires. Set only when
	// notifications.public_url says where hive serve is.
	URL     string            `json:"url,omitempty"`
	Answers map[string]string `json:"answers,omitempty"`
}

// Notifier sends messages on every channel switched on. Bell and desktop
// notifications are sent at once; webhooks in the background (Wait for
// them before the process exits).
type Notifier struct {
	// Bell rings the terminal bell; nil switches the bell off.
	Bell func()
	// Desktop shows a desktop notification when a notifier program exists.
	Desktop bool
	// WebhookURL receives each message as a JSON POST; "" for none.
	WebhookURL string
	// Timeout bounds each webhook call and desktop command; zero means 5 s.
	Timeout time.Duration
	// Logf reports failures; nil drops them.
	Logf func(format string, args ...any)
	// Client posts webhooks; nil means http.DefaultClient.
	Client *http.Client
	// command builds the desktop command; nil means desktopCommand.
	command func(title, text string) *exec.Cmd

	wg sync.WaitGroup
}

// Send notifies m on every channel switched on. It does not wait for the
// network: the runner that calls it must never stall on a slow receiver.
func (n *Notifier) Send(m Message) {
	if m.Time.IsZero() {
		m.Time = time.Now().UTC()
	}
	if n.Bell != nil {
		n.Bell()
	}
	if n.Desktop {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.desktop(m)
		}()
	}
	if n.WebhookURL != "" {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			if err := n.post(m); err != nil {
				n.logf("webhook %s: %v", n.WebhookURL, err)
			}
		}()
	}
}

// Wait waits for the notifications under way (each bounded by Timeout).
func (n *Notifier) Wait() { n.wg.Wait() }

func (n *Notifier) timeout() time.Duration {
	if n.Timeout > 0 {
		return n.Timeout
	}
	return 5 * time.Second
}

func (n *Notifier) logf(format string, args ...any) {
	if n.Logf != nil {
		n.Logf(format, args...)
	}
}

func (n *Notifier) post(m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hive")
	c := n.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return nil
}

func (n *Notifier) desktop(m Message) {
	build := n.command
	if build == nil {
		build = desktopCommand
	}
	cmd := build(m.Title, m.Text)
	if cmd == nil {
		return // no notifier program on this machine
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		n.logf("desktop notification: %v", err)
		return
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			n.logf("desktop notification: %v", err)
		}
	case <-time.After(n.timeout()):
		cmd.Process.Kill()
		<-done
		n.logf("desktop notification: %s took longer than %s", cmd.Path, n.timeout())
	}
}

// desktopCommand is notify-send (Linux, BSD) or osascript (macOS), with
// the texts as arguments, never through a shell; nil when neither exists.
func desktopCommand(title, text string) *exec.Cmd {
	if runtime.GOOS == "darwin" {
		path, err := exec.LookPath("osascript")
		if err != nil {
			return nil
		}
		// The texts reach AppleScript as arguments (argv), not inside the
		// script, so quotes in them cannot break out of a string.
		return exec.Command(path,
			"-e", "on run argv",
			"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
			"-e", "end run",
			title, text)
	}
	path, err := exec.LookPath("notify-send")
	if err != nil {
		return nil
	}
	return exec.Command(path, "--app-name=hive", "--", title, text)
}
