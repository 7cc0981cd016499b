package claude_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

// The stall test's phase: one plan of two auto tasks.
const (
	stallPhaseDir = ".planning/phases/05-watchdog"
	stallPlanID   = "05-01"
	// stallHang is how long the first session's first request is held:
	// as long as the run may take (e2etest.RunTimeout): only the watchdog
	// ends it.
	stallHang = e2etest.RunTimeout
)

var stallPlanFile = `---
phase: 05-watchdog
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [src/watch/a.ts, src/watch/b.ts]
autonomous: true
---
<objective>Watchdog fixture</objective>
<tasks>
<task type="auto"><name>Task 1: Alpha</name><files>src/watch/a.ts</files><action>Write a.</action><done>a exists</done></task>
<task type="auto"><name>Task 2: Beta</name><files>src/watch/b.ts</files><action>Write b.</action><done>b exists</done></task>
</tasks>
`

var stallTasks = []task{
	{Name: "Alpha", File: "src/watch/a.ts"},
	{Name: "Beta", File: "src/watch/b.ts"},
}

var stallPlanRe = regexp.MustCompile(`- Plan: \.planning/phases/05-watchdog/(05-0\d)-PLAN\.md`)

// stallExecutor plays the executor of plan 05-01 in a team session: it
// checks the earlier commits when it is a continuation, then writes and
// commits each task, writes and commits the SUMMARY and says PLAN COMPLETE.
func stallExecutor(t *testing.T, root string) fa.Rule {
	return fa.Rule{
		Name: "stall-executor",
		Match: func(c *fa.Conversation) bool {
			return stallPlanRe.MatchString(firstUserText(c))
		},
		Reply: func(c *fa.Conversation) fa.Reply {
			id := stallPlanID
			first := firstUserText(c)
			prompt, k := c.LastPrompt()
			var steps []step
			if strings.Contains(first, "<continuation>") {
				steps = append(steps, static(fa.Bash(fmt.Sprintf("git log --all --oneline --grep 'Hive-Plan: %s'", id))))
			}
			total := len(stallTasks)
			var pending []string
			for n, tk := range stallTasks {
				subject := fmt.Sprintf("feat(%s): %s", id, tk.Name)
				steps = append(steps,
					static(withText(pending, fa.Write(filepath.Join(root, filepath.FromSlash(tk.File)), fmt.Sprintf("// %s: %s\n", id, tk.Name)))),
					static(fa.Bash(commitCmd(id, n+1, subject, "", tk.File, false))),
				)
				pending = []string{fmt.Sprintf("PROGRESS: Task %d/%d complete: %s", n+1, total, subject)}
			}
			summary := fmt.Sprintf("%s/%s-SUMMARY.md", stallPhaseDir, id)
			steps = append(steps,
				static(withText(pending, fa.Write(filepath.Join(root, filepath.FromSlash(summary)), fmt.Sprintf(
					"---\nphase: 05-watchdog\nplan: 01\nsubsystem: watch\ntags: [e2e]\nduration: 1min\ncompleted: 2026-01-01\n---\n# Plan %s Summary\n\nAll %d tasks done.\n\n## Self-Check: PASSED\n",
					id, total)))),
				static(fa.Bash(commitCmd(id, 0, fmt.Sprintf("docs(%s): complete plan", id), "", summary, false)+
					fmt.Sprintf(" && git log --format='- %%h %%s' --grep='Hive-Plan: %s'", id))),
				func(c *fa.Conversation) fa.Reply {
					var list []string
					for _, r := range c.LastToolResults() {
						for _, l := range strings.Split(r.Text, "\n") {
							if strings.HasPrefix(l, "- ") {
								list = append(list, l)
							}
						}
					}
					return fa.Text(fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s\n\n**Commits:**\n%s",
						id, total, total, summary, strings.Join(list, "\n")))
				},
			)
			if k >= len(steps) {
				t.Errorf("plan %s: no scripted reply for step %d of prompt %q", id, k, clipS(prompt, 80))
				return fa.Text("PLAN FAILED\n\n**Plan:** " + id + "\n**Error:** the script ran out")
			}
			return steps[k](c)
		},
	}
}

// stallFront sits in front of the fake Anthropic server. Every request of
// the first Claude Code session (the first x-claude-code-session-id seen:
// attempt 1) is held for stallHang, or until the client goes away or the
// test ends, so that session prints nothing in the middle of its turn;
// every other request goes to the fake server.
//
// The hang lives here rather than in a fakeanthropic Reply.Delay: the fake
// server calls Reply under its mutex (a blocking Reply would stall every
// other session) and sleeps a Delay with time.Sleep, deaf to the request
// context, and httptest.Server.Close waits for that handler: a 60 s Delay
// would hold the test's cleanup for up to 60 s after the agent was killed.
type stallFront struct {
	srv   *httptest.Server
	proxy *httputil.ReverseProxy
	stop  chan struct{} // closed when the test ends

	mu       sync.Mutex
	sessions []string // session ids in order of first appearance
	held     int      // requests held
	released []string // why each held request ended
	returned chan struct{}
}

func newStallFront(t *testing.T, backend string) *stallFront {
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	f := &stallFront{proxy: httputil.NewSingleHostReverseProxy(u), stop: make(chan struct{}), returned: make(chan struct{}, 16)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	t.Cleanup(func() { close(f.stop) }) // runs before f.srv.Close
	return f
}

func (f *stallFront) handle(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("X-Claude-Code-Session-Id")
	f.mu.Lock()
	known := false
	for _, s := range f.sessions {
		if s == sid {
			known = true
		}
	}
	if sid != "" && !known {
		f.sessions = append(f.sessions, sid)
	}
	hold := r.Method == http.MethodPost && r.URL.Path == "/v1/messages" && sid != "" && sid == f.sessions[0]
	if hold {
		f.held++
	}
	f.mu.Unlock()
	if !hold {
		f.proxy.ServeHTTP(w, r)
		return
	}
	// net/http watches for the client going away (and cancels
	// r.Context()) only once the body has been read to its end.
	body, _ := io.ReadAll(r.Body)
	at := time.Now()
	why := ""
	select {
	case <-r.Context().Done():
		why = "client gone"
	case <-f.stop:
		why = "test ended"
	case <-time.After(stallHang):
		why = "delay over"
	}
	f.mu.Lock()
	f.released = append(f.released, fmt.Sprintf("%s after %v (%s)", why, time.Since(at).Round(10*time.Millisecond), stallLastUser(body)))
	f.mu.Unlock()
	f.returned <- struct{}{}
	if why == "delay over" {
		http.Error(w, `{"type":"error","error":{"type":"api_error","message":"held too long"}}`, http.StatusInternalServerError)
	}
}

// stallObserver records the commands with their Kill flag on top of the
// shared observer's log.
type stallObserver struct {
	*e2etest.Recorder
	kmu   sync.Mutex
	stops []phase.Command
}

func (o *stallObserver) Command(c phase.Command, s phase.Snapshot) {
	if c.Type == phase.CmdStopAgent {
		o.kmu.Lock()
		o.stops = append(o.stops, c)
		o.kmu.Unlock()
		o.Add("stop %s attempt=%d kill=%v reason=%q", c.Plan, c.Attempt, c.Kill, c.Reason)
	}
	if c.Type == phase.CmdSend {
		o.Add("send %s attempt=%d text=%q", c.Plan, c.Attempt, c.Text)
	}
	o.Recorder.Command(c, s)
}

// A live session that hangs in the middle of its first turn (the model
// request never answers, so Claude Code prints nothing) is pinged, judged
// by its commits, interrupted and killed by the stall watchdog, and a
// continuation finishes the plan.
func TestStallWatchdogRealClaude(t *testing.T) {
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{stallPhaseDir + "/" + stallPlanID + "-PLAN.md": stallPlanFile})
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{stallExecutor(t, root)}})
	front := newStallFront(t, srv.URL())
	home := t.TempDir()
	launcher := adapter.Claude{
		Path: bin,
		Live: true,
		Env:  e2etest.ClaudeEnv(front.srv.URL, home),
	}
	ph := e2etest.LoadPhase(t, root, stallPhaseDir)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	obs := &stallObserver{Recorder: e2etest.NewRecorder(nil)}
	mem := journaltest.NewMemory()
	// The retry's CLI must show output within two of it (a ping, then the
	// commit check): at a load of 10 to 14 on 2 cores, Claude Code's start
	// took longer than two stalls of 4 s, and the continuation was killed
	// as hung too. The hung session is killed after about two of it.
	const stall = 15 * time.Second
	start := time.Now()
	res, err := runner.Run(ctx, runner.Options{
		Repo:     repo,
		Phase:    ph,
		Journal:  mem,
		Observer: obs,
		Schedule: runner.Schedule{
			MaxConcurrent: 1,
		},
		Agents: runner.Agents{
			Launcher:  launcher,
			Team:      true,
			Retries:   1,
			StopGrace: 5 * time.Second,
			Stall:     stall,
		},
		Human: runner.Human{
			Interactive:  true,
			Answers:      obs.Answers,
			PollInterval: 20 * time.Millisecond,
		},
	})
	spent := time.Since(start)
	if err != nil {
		t.Fatalf("runner.Run after %v: %v\nobserver:\n%s", spent, err, obs)
	}
	t.Logf("run took %v (stall %v, hang %v)", spent.Round(time.Millisecond), stall, stallHang)

	// The held requests end when the agent's connection closes.
	front.mu.Lock()
	held := front.held
	front.mu.Unlock()
	for i := 0; i < held; i++ {
		select {
		case <-front.returned:
		case <-time.After(5 * time.Second):
			t.Errorf("held request %d of %d was still pending 5 s after the run ended", i+1, held)
			i = held
		}
	}
	front.mu.Lock()
	t.Logf("sessions seen: %d; held requests: %d; released: %v", len(front.sessions), front.held, front.released)
	if front.held < 1 {
		t.Errorf("no request of the first session was held")
	}
	// The watchdog, not the hang's end, released the held request: its
	// session was killed, so net/http saw the client go away. (Measured
	// as an outcome, not a wall-clock time, which load would move.)
	for _, r := range front.released {
		if strings.HasPrefix(r, "delay over") {
			t.Errorf("a held request ran to the end of the %v hang (%s): the watchdog did not end its session", stallHang, r)
		}
	}
	if len(front.sessions) != 2 {
		t.Errorf("%d Claude Code sessions, want 2 (the hung one and its continuation)", len(front.sessions))
	}
	front.mu.Unlock()

	snap := res.Snapshot
	if !snap.Finished || snap.Outcome != phase.OutcomeComplete {
		t.Errorf("run finished=%v outcome=%q, want complete", snap.Finished, snap.Outcome)
	}
	for _, p := range snap.Plans {
		if p.State != phase.Complete {
			t.Errorf("plan %s is %s (%s), want complete", p.Spec.ID, p.State, p.Reason)
		}
	}

	// The journal: attempts, silences, the exit of the killed agent.
	recs, err := mem.Events(res.Run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var started []int
	silent := map[int]int{}
	var exits []string
	for _, r := range recs {
		var ev phase.Event
		if err := json.Unmarshal(r.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Plan != stallPlanID {
			continue
		}
		switch ev.Type {
		case phase.EvAgentStarted:
			started = append(started, ev.Attempt)
		case phase.EvSilent:
			silent[ev.Attempt]++
		case phase.EvAgentExited:
			exits = append(exits, fmt.Sprintf("attempt=%d code=%d reason=%q", ev.Attempt, ev.ExitCode, ev.Reason))
		}
	}
	if fmt.Sprint(started) != "[1 2]" {
		t.Errorf("agent-started attempts %v, want [1 2]", started)
	}
	if silent[1] < 2 {
		t.Errorf("%d silent events for attempt 1, want at least 2 (ping, then the commit check)", silent[1])
	}
	// The continuation works from its start. On a loaded machine its CLI
	// may take longer than the test's short stall to print its first line,
	// and be pinged once: that is the watchdog working, not a hang. It must
	// never be judged by its commits and stopped.
	if silent[2] > 1 {
		t.Errorf("%d silent events for attempt 2, want at most 1 (a ping while its CLI starts)", silent[2])
	}
	obs.kmu.Lock()
	for _, c := range obs.stops {
		if c.Plan == stallPlanID && c.Attempt == 2 && strings.Contains(c.Reason, "stall") {
			t.Errorf("the continuation was stopped as stalled: %+v", c)
		}
	}
	obs.kmu.Unlock()
	t.Logf("exits: %v", exits)

	obs.kmu.Lock()
	kills := 0
	for _, c := range obs.stops {
		if c.Plan == stallPlanID && c.Attempt == 1 && c.Kill {
			kills++
			if !strings.Contains(c.Reason, "stall") {
				t.Errorf("kill reason %q does not say stalled", c.Reason)
			}
		}
		if c.Attempt == 2 && c.Kill {
			t.Errorf("attempt 2 was killed: %q", c.Reason)
		}
	}
	obs.kmu.Unlock()
	if kills != 1 {
		t.Errorf("%d stop-agent commands with Kill for attempt 1, want 1", kills)
	}
	// The ping reached the model through Claude Code: the held turn's last
	// user message is hive's PING.
	front.mu.Lock()
	released := strings.Join(front.released, "\n")
	front.mu.Unlock()
	if !strings.Contains(released, "last user: PING: hive has seen no output") {
		t.Errorf("attempt 1 was not pinged before it was killed: the held requests ended %s", released)
	}

	// One commit per task, the SUMMARY, a clean tree.
	log := git(t, root, "log", "--format=%B")
	commits := e2etest.TaskCommits(t, root)
	for n := range stallTasks {
		trailer := fmt.Sprintf("Hive-Task: %s/%d", stallPlanID, n+1)
		if c := commits[strings.TrimPrefix(trailer, "Hive-Task: ")]; c != 1 {
			t.Errorf("%d commits carry %q, want 1", c, trailer)
		}
	}
	if n := strings.Count(log, "Hive-Task: "); n != len(stallTasks) {
		t.Errorf("%d task commits, want %d", n, len(stallTasks))
	}
	if err := e2etest.Summary(root, stallPhaseDir, stallPlanID); err != nil {
		t.Errorf("SUMMARY: %v", err)
	}
	if st := e2etest.Dirty(t, root); st != "" {
		t.Errorf("work tree not clean after the run:\n%s", st)
	}
	conts := 0
	for _, r := range srv.MainRequests() {
		if strings.Contains(firstUserText(r.Conv), "<continuation>") {
			conts++
		} else {
			t.Errorf("the fake model answered a request of a non-continuation session (rule %s)", r.Rule)
		}
	}
	if conts == 0 {
		t.Errorf("no request of a continuation agent reached the fake model")
	}
	if t.Failed() {
		t.Logf("observer:\n%s", obs)
	}
	var seq []string
	for _, l := range strings.Split(obs.String(), "\n") {
		if strings.Contains(l, "silent") || strings.Contains(l, "stop ") || strings.Contains(l, "start-agent") ||
			strings.Contains(l, "exited") || strings.Contains(l, "send ") || strings.Contains(l, "check-commits") {
			seq = append(seq, strings.TrimSpace(l))
		}
	}
	t.Logf("events: %s", strings.Join(seq, "; "))
}

// stallLastUser is the start of the last user text of a Messages request
// body, to tell a held first turn from a held PING turn.
func stallLastUser(body []byte) string {
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &b) != nil {
		return "?"
	}
	for i := len(b.Messages) - 1; i >= 0; i-- {
		m := b.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return fmt.Sprintf("%d messages, last user: %s", len(b.Messages), clipS(strings.Join(strings.Fields(s), " "), 60))
		}
		var bs []struct{ Type, Text string }
		if json.Unmarshal(m.Content, &bs) == nil && len(bs) > 0 {
			return fmt.Sprintf("%d messages, last user: %s", len(b.Messages), clipS(strings.Join(strings.Fields(bs[len(bs)-1].Text), " "), 60))
		}
	}
	return "?"
}
