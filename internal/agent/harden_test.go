package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain lets the test binary play an agent: run again with
// HIVE_TEST_CHILD set, it does what the mode says and exits.
func TestMain(m *testing.M) {
	if mode := os.Getenv("HIVE_TEST_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

func textLine(s string) string {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}})
	return string(b) + "\n"
}

// textOutputs is the dialect the child agent speaks: the text blocks of
// its assistant lines, as textLine writes them; a line that is not a JSON
// object with a type is garbage.
func textOutputs(b []byte) ([]Output, error) {
	var l struct {
		Type    string `json:"type"`
		Message *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, err
	}
	if l.Type == "" {
		return nil, errors.New("no type")
	}
	var out []Output
	if l.Type == "assistant" && l.Message != nil {
		for _, c := range l.Message.Content {
			if c.Type == "text" && c.Text != "" {
				out = append(out, Output{Kind: OutText, Text: c.Text})
			}
		}
	}
	return out, nil
}

func child(mode string) int {
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer out.Flush()
	switch mode {
	case "env":
		// Every variable as a text block, then a secret split across two
		// writes on stdout and on stderr.
		for _, kv := range os.Environ() {
			out.WriteString(textLine("ENV " + kv))
		}
		secret := os.Getenv("MY_CONFIGURED_SECRET")
		half := len(secret) / 2
		l := textLine("the secret is " + secret)
		i := strings.Index(l, secret) + half
		out.WriteString(l[:i])
		out.Flush()
		time.Sleep(20 * time.Millisecond)
		out.WriteString(l[i:])
		out.Flush()
		os.Stderr.WriteString("stderr has " + secret[:half])
		time.Sleep(20 * time.Millisecond)
		os.Stderr.WriteString(secret[half:] + " and an " + os.Getenv("ANTHROPIC_API_KEY") + "\n")
	case "flood":
		// HIVE_TEST_BYTES of 32 KiB garbage lines as fast as possible,
		// then one stream-json line that must still be read.
		n, _ := strconv.Atoi(os.Getenv("HIVE_TEST_BYTES"))
		line := append(bytes.Repeat([]byte("x"), 32<<10-1), '\n')
		for w := 0; w < n; w += len(line) {
			if _, err := out.Write(line); err != nil {
				return 3
			}
		}
		out.WriteString(textLine("flood done"))
	case "longline":
		// 10 MB without a newline, then a good line.
		chunk := bytes.Repeat([]byte("y"), 1<<20)
		for range 10 {
			out.Write(chunk)
		}
		out.WriteString("\n" + textLine("after the long line"))
	default:
		return 2
	}
	return 0
}

// startChild runs the test binary as an agent in mode and waits for it.
func startChild(t *testing.T, mode string, spec *Spec) []Output {
	t.Helper()
	var mu sync.Mutex
	var outs []Output
	spec.Env = append(spec.Env, "HIVE_TEST_CHILD="+mode)
	if spec.LogPath == "" {
		spec.LogPath = filepath.Join(t.TempDir(), "logs", spec.Plan+".attempt-1.log")
	}
	s, err := Start(context.Background(), []string{os.Args[0]}, *spec, Dialect{Line: textOutputs, Input: "none"}, func(o Output) {
		mu.Lock()
		outs = append(outs, o)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(60 * time.Second):
		s.Kill()
		t.Fatal("the child did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	return outs
}

func texts(outs []Output) []string {
	var ts []string
	for _, o := range outs {
		if o.Kind == OutText {
			ts = append(ts, o.Text)
		}
	}
	return ts
}

// TestAgentEnvironment: an unlisted variable of hive's environment never
// reaches the agent; an allowlisted one, a configured secret and a model's
// env do; the configured secret and a credential-like variable are masked
// in the log although the agent printed them, split across writes, on
// stdout and stderr.
func TestAgentEnvironment(t *testing.T) {
	const secret = "cfg-secret-Zx81QwErTy-value"
	const apiKey = "plain-looking-api-key-0042"
	t.Setenv("MY_PRIVATE_THING", "private-value-1")
	t.Setenv("MY_CONFIGURED_SECRET", secret)
	t.Setenv("ANTHROPIC_API_KEY", apiKey)
	t.Setenv("LC_TIME", "C")
	t.Setenv("GIT_DIR", "/somewhere/else")
	spec := Spec{
		Plan: "01-01", Attempt: 1, Dir: t.TempDir(),
		AllowEnv: []string{"MY_CONFIGURED_SECRET"},
		Redactor: redact.FromEnv([]string{"MY_CONFIGURED_SECRET"}, os.LookupEnv),
		Env:      []string{"MODEL_SETTING=on"},
	}
	outs := startChild(t, "env", &spec)
	env := map[string]string{}
	for _, s := range texts(outs) {
		if kv, ok := strings.CutPrefix(s, "ENV "); ok {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	}
	for _, k := range []string{"MY_PRIVATE_THING", "GIT_DIR"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s reached the agent", k)
		}
	}
	for k, want := range map[string]string{"MY_CONFIGURED_SECRET": secret, "ANTHROPIC_API_KEY": apiKey, "LC_TIME": "C", "MODEL_SETTING": "on", "HIVE_AGENT_PLAN": "01-01", "PATH": os.Getenv("PATH")} {
		if env[k] != want {
			t.Errorf("agent got %s=%q, want %q", k, env[k], want)
		}
	}
	if ts := texts(outs); !slices.Contains(ts, "the secret is "+secret) {
		t.Errorf("the agent's own text must reach hive unmasked for parsing; got %q", ts[len(ts)-1])
	}
	log, err := os.ReadFile(spec.LogPath)
	if err != nil || len(log) == 0 {
		t.Fatalf("log: %v", err)
	}
	for _, s := range []string{secret, apiKey, secret[:len(secret)/2+1]} {
		if bytes.Contains(log, []byte(s)) {
			t.Errorf("the log holds %q:\n%s", s, tail(log))
		}
	}
	if !bytes.Contains(log, []byte("stderr: stderr has "+redact.Mask+" and an "+redact.Mask)) || !bytes.Contains(log, []byte("the secret is "+redact.Mask)) {
		t.Errorf("log lacks the masked lines:\n%s", tail(log))
	}
}

func tail(b []byte) string {
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

func TestEnvAllowlist(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "XDG_CONFIG_HOME=/c", "ANTHROPIC_BASE_URL=u", "OPENAI_API_KEY=k", "CODEX_HOME=c", "CLAUDE_CONFIG_DIR=d",
		"HIVE_SIM_DELAY=1", "GIT_AUTHOR_NAME=a", "GIT_DIR=/x", "GIT_INDEX_FILE=i", "AWS_SECRET_ACCESS_KEY=s", "MY_PRIVATE_THING=p", "DB_URL=postgres://", "NAMED=1", "=weird", "noequals"}
	got := FilterEnv(environ, []string{"NAMED", "DB_*"})
	want := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "XDG_CONFIG_HOME=/c", "ANTHROPIC_BASE_URL=u", "OPENAI_API_KEY=k", "CODEX_HOME=c", "CLAUDE_CONFIG_DIR=d",
		"HIVE_SIM_DELAY=1", "GIT_AUTHOR_NAME=a", "DB_URL=postgres://", "NAMED=1"}
	if !slices.Equal(got, want) {
		t.Errorf("FilterEnv\n got %q\nwant %q", got, want)
	}
	if got := secretValues([]string{"ANTHROPIC_API_KEY=a", "GH_TOKEN=b", "X_SECRET=c", "PATH=/bin", "EMPTY_KEY="}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("secretValues = %q", got)
	}
}

// TestLogCapped: past the limit the log gets one truncation line and the
// exit line, and every line of output is still read.
func TestLogCapped(t *testing.T) {
	spec := Spec{Plan: "01-02", Attempt: 1, Dir: t.TempDir(), LogLimit: 256 << 10, Env: []string{"HIVE_TEST_BYTES=" + strconv.Itoa(3<<20)}}
	outs := startChild(t, "flood", &spec)
	log, err := os.ReadFile(spec.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) > 256<<10+200 {
		t.Errorf("log is %d bytes, over the 256 KiB cap", len(log))
	}
	if n := bytes.Count(log, []byte("[log truncated after 262144 bytes]")); n != 1 {
		t.Errorf("%d truncation lines", n)
	}
	if !bytes.Contains(log[len(log)-100:], []byte("== exit 0")) {
		t.Errorf("no exit line at the end: %q", log[len(log)-100:])
	}
	garbage := 0
	for _, o := range outs {
		if o.Kind == OutGarbage {
			garbage++
		}
	}
	if ts := texts(outs); garbage != 96 || !slices.Contains(ts, "flood done") {
		t.Errorf("%d garbage lines (want 96), texts %q: reading stopped with the log", garbage, ts)
	}
}

// TestLongLineDropped: a 10 MB line without a newline is dropped with a
// note, and the line after it is read.
func TestLongLineDropped(t *testing.T) {
	spec := Spec{Plan: "01-03", Attempt: 1, Dir: t.TempDir()}
	outs := startChild(t, "longline", &spec)
	var note string
	for _, o := range outs {
		if o.Kind == OutGarbage {
			note = o.Text
		}
	}
	if !strings.Contains(note, "line of 10485760 bytes dropped") || len(note) > 500 {
		t.Errorf("note %q", note)
	}
	if ts := texts(outs); !slices.Contains(ts, "after the long line") {
		t.Errorf("texts %q", ts)
	}
	if st, _ := os.Stat(spec.LogPath); st.Size() > 1<<20 {
		t.Errorf("the dropped line was logged: %d bytes", st.Size())
	}
}

// TestLineReaderBounded: however long a line, the reader holds at most max
// bytes (plus its read buffer), and the lines around it are intact.
func TestLineReaderBounded(t *testing.T) {
	const max = 1 << 20
	long := io.LimitReader(repeatReader('z'), 50<<20)
	r := io.MultiReader(strings.NewReader("first\n"), long, strings.NewReader("\nlast"))
	lr := newLineReader(r, max, nil)
	var got []string
	for {
		line, dropped, err := lr.Next()
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		if cap(lr.line) > 2*max {
			t.Fatalf("line buffer grew to %d bytes", cap(lr.line))
		}
		got = append(got, fmt.Sprintf("%d:%d", len(line), dropped))
	}
	if want := []string{"5:0", "200:52428800", "4:0"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestFlood64 starts 64 real agents that each write 20 MB as fast as they
// can. Every log stays capped, every agent's last line is read, and the
// heap stays bounded: nothing holds an agent's output beyond a line.
func TestFlood64(t *testing.T) {
	const agents, each, limit = 64, 20 << 20, 1 << 20
	dir := t.TempDir()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	var wg sync.WaitGroup
	var done atomic.Int32
	errs := make(chan error, agents)
	for i := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plan := fmt.Sprintf("01-%02d", i+1)
			spec := Spec{Plan: plan, Attempt: 1, Dir: dir, LogPath: filepath.Join(dir, plan+".log"), LogLimit: limit, Env: []string{"HIVE_TEST_CHILD=flood", "HIVE_TEST_BYTES=" + strconv.Itoa(each)}}
			var finished atomic.Bool
			s, err := Start(context.Background(), []string{os.Args[0]}, spec, Dialect{Line: textOutputs, Input: "none"}, func(o Output) {
				if o.Kind == OutText && o.Text == "flood done" {
					finished.Store(true)
				}
			})
			if err != nil {
				errs <- err
				return
			}
			select {
			case <-s.Done():
			case <-time.After(3 * time.Minute):
				s.Kill()
				errs <- fmt.Errorf("%s did not end", plan)
				return
			}
			if finished.Load() {
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if done.Load() != agents {
		t.Errorf("%d of %d agents had their last line read", done.Load(), agents)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("64 agents × 20 MiB: peak HeapInuse %d MiB, after GC %d MiB", peak.Load()>>20, ms.HeapInuse>>20)
	// 64 × 20 MiB went through; holding even a tenth of it would show.
	if p := peak.Load(); p > 256<<20 {
		t.Errorf("peak HeapInuse %d MiB, want under 256 MiB", p>>20)
	}
	if ms.HeapInuse > 64<<20 {
		t.Errorf("HeapInuse after GC %d MiB, want under 64 MiB", ms.HeapInuse>>20)
	}
	for i := range agents {
		st, err := os.Stat(filepath.Join(dir, fmt.Sprintf("01-%02d.log", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > limit+200 {
			t.Errorf("log %d is %d bytes, over the cap", i+1, st.Size())
		}
	}
}

// recordLauncher records the Spec it is asked to start.
type recordLauncher struct{ spec *Spec }

func (recordLauncher) Name() string       { return "rec" }
func (recordLauncher) LiveSessions() bool { return false }
func (r recordLauncher) Start(_ context.Context, spec Spec, sink func(Output)) (Session, error) {
	*r.spec = spec
	if sink != nil {
		sink(Output{Kind: OutText, Text: "the key is abcdefgh", Err: "failed with abcdefgh"})
	}
	return nil, nil
}

func TestWithSecrets(t *testing.T) {
	var got Spec
	red := redact.New("abcdefgh")
	l := WithSecrets(recordLauncher{&got}, []string{"MY_SECRET"}, red)
	if l.Name() != "rec" || l.LiveSessions() {
		t.Error("the wrapped launcher's identity is lost")
	}
	var seen Output
	l.Start(context.Background(), Spec{Plan: "01-01", AllowEnv: []string{"OTHER"}}, func(o Output) { seen = o })
	if strings.Contains(seen.Text+seen.Err, "abcdefgh") || !strings.Contains(seen.Text, redact.Mask) {
		t.Errorf("the agent's output reached the sink unmasked: %+v", seen)
	}
	if got.Plan != "01-01" || !slices.Equal(got.AllowEnv, []string{"OTHER", "MY_SECRET"}) || got.Redactor != red {
		t.Errorf("spec %+v", got)
	}
}
