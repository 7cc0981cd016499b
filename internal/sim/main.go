package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Main runs one sim session in the current directory, which must be the git
// repository (or worktree) the plan belongs to. It is `hive __sim`: args are
// the command-line arguments after that word; Claude Code's flags (-p,
// --input-format, --output-format, --verbose, ...) are accepted and ignored,
// except --session-id, which names the session. It returns the process exit
// code: 0 when the plan completed (or a standalone checkpoint was returned)
// and stdin closed, 1 when stdin closed before that, 2 for a bad
// configuration, 3 for a simulated crash.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := BenchMain(os.Getenv, stdin, stdout, stderr); ok { // HIVE_SIM_MODE: see instant.go
		return code
	}
	set, err := LoadSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "hive sim: %v\n", err)
		return 2
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "hive sim: working directory: %v\n", err)
		return 2
	}
	return run(dir, set, args, stdin, stdout, stderr)
}

func run(dir string, set Settings, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		fmt.Fprintf(stderr, "hive sim: working directory: %v\n", err)
		return 2
	}
	sessionID := newUUID()
	for i, a := range args {
		if a == "--session-id" && i+1 < len(args) {
			sessionID = args[i+1]
		} else if v, ok := strings.CutPrefix(a, "--session-id="); ok {
			sessionID = v
		}
	}
	if len(sessionID) < 8 {
		sessionID = newUUID()
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &agent{
		dir: dir, realDir: realDir, set: set, log: stderr, ctx: ctx,
		out:   newEmitter(stdout, sessionID, dir, set.Context),
		msgs:  make(chan string, 1024),
		exitc: make(chan int, 1),
	}
	a.git = &git{dir: dir, mu: &a.mu, ctx: ctx, extra: gitOptions(dir)}
	a.eofExit.Store(1)

	eof := make(chan struct{})
	go readInput(stdin, a.msgs, eof, stderr)
	go a.converse()

	select {
	case code := <-a.exitc:
		a.out.close()
		return code
	case <-eof:
	}
	// A requested exit that raced with EOF wins: it carries the real code.
	select {
	case code := <-a.exitc:
		a.out.close()
		return code
	default:
	}
	if a.hung.Load() {
		// A hung agent ignores stdin, like a wedged Claude Code session: only
		// a kill ends it. Sleeping (not select{}) keeps the runtime from
		// declaring a deadlock.
		for {
			time.Sleep(time.Hour)
		}
	}
	cancel()
	a.mu.Lock() // let the git command or file write in flight finish
	a.out.close()
	a.mu.Unlock()
	return int(a.eofExit.Load())
}

// gitOptions supplies an identity when the repository has none (commits
// would fail) and turns off commit signing, which would prompt.
func gitOptions(dir string) []string {
	opts := []string{"-c", "commit.gpgsign=false"}
	if os.Getenv("GIT_AUTHOR_EMAIL") != "" && os.Getenv("GIT_COMMITTER_EMAIL") != "" {
		return opts // the environment names one: no git process to ask
	}
	g := &git{dir: dir, mu: new(sync.Mutex), ctx: context.Background()}
	if email, _ := g.run("config", "user.email"); email == "" {
		opts = append(opts, "-c", "user.name=hive sim", "-c", "user.email=sim@hive.invalid")
	}
	return opts
}

// readInput turns stdin's stream-json user messages into texts on msgs and
// closes eof when stdin ends. Lines it cannot use are reported on stderr and
// skipped, as Claude Code does.
func readInput(r io.Reader, msgs chan<- string, eof chan<- struct{}, stderr io.Writer) {
	defer close(eof)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if text, perr := userText(line); perr != nil {
				fmt.Fprintf(stderr, "hive sim: ignoring input line: %v\n", perr)
			} else {
				msgs <- text
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(stderr, "hive sim: reading stdin: %v\n", err)
			}
			return
		}
	}
}

// userText extracts the text of a {"type":"user"} line; content is a string
// or an array of {"type":"text"} blocks.
func userText(line []byte) (string, error) {
	var m struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	if m.Type != "user" {
		return "", fmt.Errorf("type %q is not supported by the sim", m.Type)
	}
	var s string
	if err := json.Unmarshal(m.Message.Content, &s); err == nil {
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Message.Content, &blocks); err != nil {
		return "", fmt.Errorf("message content is neither a string nor blocks: %w", err)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// agent is one session: the conversation and the plan it carries out.
type agent struct {
	dir, realDir string
	set          Settings
	out          *emitter
	log          io.Writer
	git          *git
	ctx          context.Context
	msgs         chan string
	exitc        chan int
	eofExit      atomic.Int32 // exit code if stdin closes now
	hung         atomic.Bool

	// mu is held around every git command and file write; see run.
	mu sync.Mutex

	pr *planRun // nil until the first prompt named a plan

	// pending holds the messages that arrived during a turn and wait for
	// its end (see takeRollover); only the converse goroutine uses it.
	pending []string
}

// next waits for the next user message; false once stdin closed.
func (a *agent) next() (string, bool) {
	if len(a.pending) > 0 {
		m := a.pending[0]
		a.pending = a.pending[1:]
		return m, true
	}
	select {
	case m := <-a.msgs:
		return m, true
	case <-a.ctx.Done():
		return "", false
	}
}

// exit asks Main to return code. The caller returns errExited right after.
func (a *agent) exit(code int) {
	select {
	case a.exitc <- code:
	default:
	}
}

var errExited = errors.New("process exit requested")

// converse runs the session: the first message is the executor prompt; later
// messages (after the plan ended) get a short answer each, keeping the
// session alive until stdin closes.
func (a *agent) converse() {
	prompt, ok := a.next()
	if !ok {
		return
	}
	a.out.startTurn(prompt)
	var err error
	switch {
	case isPipelineRole(prompt):
		err = a.playRole(prompt)
	case a.set.Role == "comb":
		err = a.resolveConflicts(prompt)
	case a.set.Role == "verifier":
		err = a.verifyPhase()
	default:
		err = a.execute(prompt)
	}
	switch {
	case errors.Is(err, errStopped), errors.Is(err, errExited):
		return
	case errors.Is(err, errRolledOver): // the report ended the turn
	case err != nil:
		fmt.Fprintf(a.log, "hive sim: %v\n", err)
		a.planFailed(err.Error())
	}
	for {
		msg, ok := a.next()
		if !ok {
			return
		}
		a.out.startTurn(msg)
		if isRollover(msg) && a.pr != nil && !a.ignoresRollover() {
			a.handOver()
			continue
		}
		a.out.text(a.idleReply(msg))
		a.out.endTurn()
	}
}

func (a *agent) idleReply(msg string) string {
	switch {
	case a.pr == nil:
		return "No plan is loaded in this session."
	case strings.HasPrefix(strings.TrimSpace(msg), "CHECKPOINT_RESPONSE:"):
		return fmt.Sprintf("No checkpoint is pending for plan %s.", a.pr.p.ID)
	case a.pr.complete:
		return fmt.Sprintf("Plan %s is complete; nothing left to do.", a.pr.p.ID)
	case a.pr.rolledOver:
		return fmt.Sprintf("Plan %s was handed over at a context rollover; a fresh session goes on with it.", a.pr.p.ID)
	default:
		return fmt.Sprintf("Plan %s stopped; nothing left to do in this session.", a.pr.p.ID)
	}
}

// mutate runs f (a file write) under the repository mutex, unless the session
// has ended.
func (a *agent) mutate(f func() error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx.Err() != nil {
		return errStopped
	}
	return f()
}

// hang stops the agent for good: no output, stdin ignored (see run).
func (a *agent) hang() {
	a.hung.Store(true)
	fmt.Fprintf(a.log, "hive sim: simulated hang\n")
	for {
		time.Sleep(time.Hour)
	}
}
