package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hivectl/hive/internal/redact"
)

// Spec says what to start.
type Spec struct {
	Plan    string
	Attempt int
	Dir     string   // working directory
	Prompt  string   // the first user message
	Env     []string // extra KEY=VALUE entries
	LogPath string   // raw output goes here (appended)
	// AllowEnv names the variables of hive's environment the agent gets
	// besides DefaultEnvAllow: the config's secrets.env. Others stay out.
	AllowEnv []string
	// Redactor masks secrets in the log. The values of the credential-like
	// variables the agent gets (…_KEY, …_TOKEN) are masked too; nil masks
	// those and the common credential shapes.
	Redactor *redact.Redactor
	// LogLimit caps the log on disk: 0 means DefaultLogLimit, a negative
	// value no cap. Output past it is still read, only not written down.
	LogLimit int64
	// MaxLine is the longest stdout line read; 0 means DefaultMaxLine.
	MaxLine int
	// Model, when set, runs this session on that model instead of the
	// launcher's (a budget stepping down the model ladder).
	Model string
	// MaxBudgetUSD is the most a one-shot session may spend, passed to a CLI
	// that enforces it (Claude Code's --max-budget-usd); 0: no limit.
	MaxBudgetUSD float64
}

// Output is one thing an agent did.
type Output struct {
	Plan    string
	Attempt int
	Kind    OutputKind
	Text    string // OutText: one text block; OutGarbage: the raw line; OutResult: the result text
	IsError bool   // OutResult: the turn ended in an error
	Usage   Usage  // OutResult: the turn's usage not already reported by OutSpend; OutSpend: one request's
	CostUSD float64
	Model   string   // OutResult, OutSpend: the model that did the turn, when the CLI says
	Denied  []string // OutResult: tools the CLI refused to run this turn (a denied tool is not an error exit)
	Stalled bool     // hive is ending this agent as hung: its errors are hive's doing
	// Limit (OutResult): the turn ended on the provider's error, not the
	// agent's (a usage or rate limit, an overload, a refused login).
	Limit *Limit
	// Context is how full the session's context is after this output
	// (OutSpend, OutResult: the latest request's input, cache read and
	// cache write tokens; OutCompacted: after the compaction); Window is
	// its model's context window when the CLI says (0: unknown);
	// PreTokens is the context before a compaction (OutCompacted).
	Context   int64
	Window    int64
	PreTokens int64
	// OutExit:
	ExitCode int    // -1 when killed by a signal
	Err      string // how it ended, in words, with the tail of stderr
	// OutPermission: the agent asks before using a tool (Claude Code's
	// control_request can_use_tool); answer with Session.AnswerPermission.
	// OutToolCall: the agent called Tool with Input.
	RequestID string
	Tool      string
	Input     string // the tool's input, JSON
}

// OutputKind tells Outputs apart.
type OutputKind int

// Output kinds.
const (
	OutText       OutputKind = iota // an assistant text block
	OutResult                       // a turn ended
	OutGarbage                      // a line that is not stream-json
	OutExit                         // the process ended; always the last Output
	OutPermission                   // the agent waits for permission to use a tool
	OutToolCall                     // the agent called a tool (the loop guard watches these)
	OutSpend                        // the agent spent in the middle of a turn: Usage of one API request
	OutCompacted                    // the CLI compacted the conversation on its own: Text is the trigger
)

// Usage is a token count. The Anthropic API counts input, cache writes
// and cache reads apart (disjoint); the other dialects are converted to
// that shape.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// Session is a live agent as the runner drives it. Process is the one kind
// today; a Temporal worker's agent, driven from another machine, is the
// next. Start reports the end of the session to the sink (OutExit).
type Session interface {
	PID() int
	// Send writes a user message to a live session's input.
	Send(text string) error
	// AnswerPermission answers a permission request (OutPermission).
	AnswerPermission(requestID string, allow bool, input, message string) error
	// Stop closes the input and gives the agent grace to exit, then kills it.
	Stop(grace time.Duration)
	// StopTurn ends the turn in flight (a live session gets the interrupt
	// control request), then stops the agent as Stop does.
	StopTurn(grace time.Duration)
	// KillStalled interrupts and kills a silent agent, saying why in its exit.
	KillStalled(reason string)
	// Kill ends the agent and everything it started at once.
	Kill()
	// Silent is how long the agent has printed nothing, at now.
	Silent(now time.Time) time.Duration
	// Touch restarts the silence: the agent waited for hive, not hung.
	Touch()
	// Done is closed once the agent has ended and its last output was sent.
	Done() <-chan struct{}
}

// Process is one running agent process: a Session.
type Process struct {
	plan    string
	attempt int
	pid     int

	cmd      *exec.Cmd
	stdin    io.WriteCloser
	mu       sync.Mutex // guards stdin writes and closed
	closed   bool
	done     chan struct{}
	stderr   *tailBuffer
	log      *agentLog
	killOnce sync.Once
	lastOut  atomic.Int64 // unix nanoseconds of the last stdout line, for the stall watchdog
	// stallReason, once set, says why hive killed a silent agent; it leads
	// the exit's description.
	stallReason atomic.Pointer[string]
	// lastTurn: the agent is being stopped, and the turn it is in (or the
	// one it has queued) is its last: it is killed at that turn's result.
	lastTurn atomic.Bool
	dialect  Dialect
}

// Dialect turns one stdout line of an agent into Outputs; an error means
// the line is not in the dialect (it is reported as garbage and kept in the
// log). Finish, when set, is called once at the end of the output for
// dialects whose messages span lines.
type Dialect struct {
	Line   func(b []byte) ([]Output, error)
	Finish func() []Output
	// Input says how the prompt reaches the agent: "stream" writes it as a
	// stream-json user message and keeps stdin open for later messages (a
	// live session); "none" closes stdin at once (the prompt is an argument);
	// "stdin" writes it as plain text and closes stdin.
	Input string
}

// Start starts argv as an agent speaking dialect d.
func Start(ctx context.Context, argv []string, spec Spec, d Dialect, sink func(Output)) (Session, error) {
	if len(argv) == 0 {
		return nil, errors.New("start agent: empty command")
	}
	if err := os.MkdirAll(filepath.Dir(spec.LogPath), 0o755); err != nil {
		return nil, fmt.Errorf("start agent %s: log folder: %w", spec.Plan, err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	// Only allowed variables of hive's environment reach the agent.
	// HIVE_AGENT_PLAN marks the process as this plan's agent, so that a later
	// hive process can recognise it (IsAgentOf) before it kills it.
	cmd.Env = append(append(FilterEnv(os.Environ(), spec.AllowEnv), spec.Env...), "HIVE_AGENT_PLAN="+spec.Plan, "HIVE_AGENT_ATTEMPT="+strconv.Itoa(spec.Attempt))
	cmd.SysProcAttr = sysProcAttr()
	limit := spec.LogLimit
	if limit == 0 {
		limit = DefaultLogLimit
	}
	log := &agentLog{red: spec.Redactor.With(secretValues(cmd.Env)...), limit: max(limit, 0)}
	s := &Process{plan: spec.Plan, attempt: spec.Attempt, cmd: cmd, done: make(chan struct{}), stderr: &tailBuffer{max: 4096}, log: log, dialect: d}
	// Plain pipes rather than cmd.StdoutPipe: the process is reaped on its
	// own, so a child that keeps the pipes open (a daemonised dev server)
	// cannot hide the agent's exit.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start agent %s: %w", spec.Plan, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start agent %s: %w", spec.Plan, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if s.stdin, err = cmd.StdinPipe(); err == nil {
		err = cmd.Start()
	}
	outW.Close()
	errW.Close()
	if err == nil {
		// The log is made while the agent boots: creating a file can cost
		// as much as starting the process (half a millisecond on some
		// virtual disks), and nothing reads the pipes before it is open.
		if log.f, err = os.OpenFile(spec.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start agent %s: %w", spec.Plan, err)
	}
	s.pid = cmd.Process.Pid
	s.lastOut.Store(time.Now().UnixNano())
	fmt.Fprintf(log, "== %s attempt %d pid %d: %q\n", spec.Plan, spec.Attempt, s.pid, argv)
	stdoutDone := make(chan struct{})
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		errLog := redact.NewWriter(log.red, prefixLines{w: log, prefix: "stderr: "})
		io.Copy(io.MultiWriter(s.stderr, errLog), errR)
		errLog.Flush()
	}()
	go func() {
		defer close(stdoutDone)
		s.read(outR, spec.MaxLine, sink)
	}()
	go s.reap(outR, errR, stdoutDone, stderrDone, sink)
	switch d.Input {
	case "stream":
		if err := s.Send(spec.Prompt); err != nil {
			s.Kill()
		}
	case "stdin":
		fmt.Fprintf(log, "== hive → agent:\n%s\n== end\n", spec.Prompt)
		s.stdin.Write([]byte(spec.Prompt))
		s.CloseInput()
	default:
		s.CloseInput()
	}
	go func() {
		select {
		case <-ctx.Done():
			s.Kill()
		case <-s.done:
		}
	}()
	return s, nil
}

// drainGrace is how long the output of an exited agent may take to reach EOF
// before hive stops waiting for it.
const drainGrace = 2 * time.Second

// read turns stdout lines into Outputs. A line longer than maxLine is
// dropped with a note in the log and a garbage Output, and reading goes on.
func (s *Process) read(stdout io.Reader, maxLine int, sink func(Output)) {
	lr := newLineReader(stdout, maxLine, func() { s.lastOut.Store(time.Now().UnixNano()) })
	var rec []byte
	for {
		b, dropped, err := lr.Next()
		if err != nil {
			if err != io.EOF && !errors.Is(err, os.ErrDeadlineExceeded) {
				s.emit(sink, Output{Kind: OutGarbage, Text: "unreadable output: " + err.Error()})
			}
			break
		}
		if dropped > 0 {
			note := fmt.Sprintf("[line of %d bytes dropped: longer than %d bytes; it began %q]", dropped, lr.max, b)
			s.log.Write([]byte(note + "\n"))
			s.emit(sink, Output{Kind: OutGarbage, Text: note})
			continue
		}
		rec = append(append(rec[:0], b...), '\n')
		s.log.Write(rec)
		if len(b) == 0 {
			continue
		}
		outs, err := s.dialect.Line(b)
		if err != nil {
			s.emit(sink, Output{Kind: OutGarbage, Text: string(b)})
			continue
		}
		for _, o := range outs {
			s.emit(sink, o)
			if o.Kind == OutResult && s.lastTurn.Load() {
				// Its usage is reported; a message it had queued must not
				// start another turn.
				s.Kill()
			}
		}
	}
	if s.dialect.Finish != nil {
		for _, o := range s.dialect.Finish() {
			s.emit(sink, o)
		}
	}
}

func (s *Process) emit(sink func(Output), o Output) {
	o.Plan, o.Attempt = s.plan, s.attempt
	o.Stalled = s.stallReason.Load() != nil
	sink(o)
}

// reap waits for the process, then for its output to drain, and reports the
// exit last, so a PLAN COMPLETE printed just before exiting is never lost.
func (s *Process) reap(outR, errR *os.File, stdoutDone, stderrDone <-chan struct{}, sink func(Output)) {
	defer close(s.done)
	err := s.cmd.Wait()
	for _, p := range []struct {
		f    *os.File
		done <-chan struct{}
	}{{outR, stdoutDone}, {errR, stderrDone}} {
		select {
		case <-p.done:
		case <-time.After(drainGrace):
			p.f.SetReadDeadline(time.Now()) // a leftover child holds the pipe open
			<-p.done
		}
		p.f.Close()
	}
	code, why := exitStatus(err)
	if r := s.stallReason.Load(); r != nil {
		why = *r + "; " + why
	}
	if tail := s.stderr.String(); tail != "" {
		why += ": " + tail
	}
	why = s.log.red.String(why)
	s.log.close(fmt.Sprintf("== exit %d: %s\n", code, why))
	s.emit(sink, Output{Kind: OutExit, ExitCode: code, Err: why})
}

func exitStatus(err error) (int, string) {
	if err == nil {
		return 0, "exited normally"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1, fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		}
		return ee.ExitCode(), fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	return -1, err.Error()
}

// Send writes text to the agent as a new user message.
func (s *Process) Send(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("send to agent %s: input closed", s.plan)
	}
	if _, err := s.stdin.Write(UserMessage(text)); err != nil {
		return fmt.Errorf("send to agent %s: %w", s.plan, err)
	}
	// The log shows what the agent was told as well as what it said.
	fmt.Fprintf(s.log, "== hive → agent:\n%s\n== end\n", text)
	return nil
}

// CloseInput ends the live session politely: a stream-json agent exits when
// its input closes.
func (s *Process) CloseInput() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.stdin.Close()
	}
}

// StopTurn interrupts a live session's turn, so that it spends nothing
// more, then stops it: the result of the interrupted turn (which says what
// the turn spent) ends the process, so that a message it had already taken
// in does not start another turn (measured with Claude Code 2.1.330: an
// interrupt that lands between turns is acknowledged, then the queued
// message runs). A one-shot agent's one turn is its whole session, and it
// takes no control requests: it is killed at once (each request it made
// was reported as it began, so its spend so far is counted but for the
// last request's exact output), else it would work on for the grace.
func (s *Process) StopTurn(grace time.Duration) {
	if s.dialect.Input != "stream" {
		s.Kill()
		return
	}
	s.lastTurn.Store(true)
	_ = s.Interrupt() // a session whose input is closed is stopping already
	s.Stop(grace)
}

// Stop closes the input and kills the process group if the agent has not
// gone within grace.
func (s *Process) Stop(grace time.Duration) {
	s.CloseInput()
	select {
	case <-s.done:
	case <-time.After(grace):
		s.Kill()
	}
}

// KillStalled ends an agent judged hung, recording why for its exit. A
// live stream-json session is first asked to interrupt its turn (Claude
// Code's control_request) and given a moment; then its process group is
// killed.
func (s *Process) KillStalled(reason string) {
	s.stallReason.CompareAndSwap(nil, &reason)
	if s.dialect.Input == "stream" && s.Interrupt() == nil {
		// Closing the input too lets the CLI exit once the interrupted turn
		// ends, instead of taking up the next queued message (a ping).
		s.CloseInput()
		select {
		case <-s.done:
			return
		case <-time.After(interruptGrace):
		}
	}
	s.Kill()
}

// interruptGrace is how long an interrupted agent has to end its turn.
const interruptGrace = 2 * time.Second

// Interrupt asks a live stream-json session to stop its current turn.
func (s *Process) Interrupt() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("interrupt agent %s: input closed", s.plan)
	}
	_, err := s.stdin.Write([]byte(`{"type":"control_request","request_id":"hive-interrupt","request":{"subtype":"interrupt"}}` + "\n"))
	return err
}

// AnswerPermission answers a live stream-json session's can_use_tool
// request: allow runs the tool with input (the request's input JSON), deny
// tells the model message instead.
func (s *Process) AnswerPermission(requestID string, allow bool, input, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("answer permission request of agent %s: input closed", s.plan)
	}
	line := PermissionResponse(requestID, allow, input, message)
	if _, err := s.stdin.Write(line); err != nil {
		return fmt.Errorf("answer permission request of agent %s: %w", s.plan, err)
	}
	fmt.Fprintf(s.log, "== hive → agent:\n%s== end\n", line)
	return nil
}

// Kill ends the agent and every process it started.
func (s *Process) Kill() {
	s.killOnce.Do(func() { KillGroup(s.pid) })
}

// Silent returns how long the agent has printed nothing on stdout.
func (s *Process) Silent(now time.Time) time.Duration {
	return now.Sub(time.Unix(0, s.lastOut.Load()))
}

// Done is closed once the process has ended and its last Output was sent.
func (s *Process) Done() <-chan struct{} { return s.done }

// PID is the agent's process id (its process group's, too).
func (s *Process) PID() int { return s.pid }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	const keep = 400
	b := t.b
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return string(trimSpace(b))
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == '\n' || b[0] == ' ') {
		b = b[1:]
	}
	return b
}

// Touch restarts the agent's silence clock: after an answer, the time it
// spent waiting for a human is not a stall.
func (s *Process) Touch() { s.lastOut.Store(time.Now().UnixNano()) }
