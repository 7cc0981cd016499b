package benchagent

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/stream"
)

// Bench modes, chosen with EnvMode. They measure hive, not the sim: the
// agent does no file or git work, so what a run costs is the orchestrator's.
// The plan's SUMMARY and commit must already exist for the spot-check to
// pass (`hive bench` prepares them).
const (
	EnvMode  = "HIVE_SIM_MODE"  // "instant" or "checkpoint"; unset: the full sim
	EnvHold  = "HIVE_SIM_HOLD"  // instant mode: Go duration to wait before PLAN COMPLETE
	EnvTrace = "HIVE_SIM_TRACE" // checkpoint mode: file that gets "sent|got PLAN UNIXNANO" lines

	ModeInstant    = "instant"    // print PLAN COMPLETE at once
	ModeCheckpoint = "checkpoint" // raise one human-verify checkpoint, then complete
)

// Main runs a bench-mode session when EnvMode asks for one; ok is false
// otherwise and the caller runs the full sim.
func Main(getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	mode := getenv(EnvMode)
	if mode == "" {
		return 0, false
	}
	if mode != ModeInstant && mode != ModeCheckpoint {
		fmt.Fprintf(stderr, "hive sim: %s=%q: want %s or %s\n", EnvMode, mode, ModeInstant, ModeCheckpoint)
		return 2, true
	}
	var hold time.Duration
	if v := getenv(EnvHold); v != "" {
		var err error
		if hold, err = faults.ParseDelay(v); err != nil {
			fmt.Fprintf(stderr, "hive sim: %s: %v\n", EnvHold, err)
			return 2, true
		}
	}
	b := &benchAgent{out: stream.NewEmitter(stdout, stream.NewUUID(), ".", stream.ContextCurve{}), in: bufio.NewReader(stdin), hold: hold, trace: getenv(EnvTrace)}
	return b.run(mode, stderr), true
}

// CommitsFile (in the project, relative to its root) lists the commit
// `hive bench` prepared for each plan: "PLAN HASH" lines.
const CommitsFile = ".hive/bench-commits"

// benchCommit is the prepared commit of plan id, or a made-up hash.
func benchCommit(id string) string {
	data, _ := os.ReadFile(CommitsFile)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == id {
			return f[1]
		}
	}
	return "0000000"
}

// planLine finds the plan in the executor prompt, as the full sim does
// (package executor): "- Plan: .planning/…-PLAN.md" or "Plan: @…-PLAN.md".
var planLine = regexp.MustCompile(`Plan:\s*@?(\S+PLAN\.md)`)

type benchAgent struct {
	out   *stream.Emitter
	in    *bufio.Reader
	hold  time.Duration
	trace string
}

// next returns the next user message; false once stdin closed.
func (b *benchAgent) next(stderr io.Writer) (string, bool) {
	for {
		line, err := b.in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			text, perr := stream.UserText(line)
			if perr == nil {
				return text, true
			}
			fmt.Fprintf(stderr, "hive sim: ignoring input line: %v\n", perr)
		}
		if err != nil {
			return "", false
		}
	}
}

func (b *benchAgent) run(mode string, stderr io.Writer) int {
	prompt, ok := b.next(stderr)
	if !ok {
		return 1
	}
	m := planLine.FindStringSubmatch(prompt)
	if m == nil {
		fmt.Fprintln(stderr, "hive sim: no plan in the prompt")
		return 2
	}
	rel := m[1]
	id := strings.TrimSuffix(path.Base(rel), "-PLAN.md")
	summary := path.Join(path.Dir(rel), id+"-SUMMARY.md")
	b.out.StartTurn(prompt)
	if mode == ModeCheckpoint {
		if strings.Contains(prompt, "<continuation>") {
			b.mark("got", id) // a continuation agent: the answer came in its prompt
		} else if !b.checkpoint(id, strings.Contains(prompt, "<team_protocol>"), stderr) {
			return 0 // standalone: the continuation agent takes over
		}
	}
	if b.hold > 0 {
		time.Sleep(b.hold)
	}
	b.out.Text(fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** 2/2\n**SUMMARY:** %s\n\n**Commits:**\n- %s docs(%s): complete plan", id, summary, benchCommit(id), id))
	b.out.EndTurn()
	for {
		if _, ok := b.next(stderr); !ok {
			return 0
		}
	}
}

// checkpoint raises a human-verify checkpoint at task 2. In team mode it
// waits for the answer and reports true; standalone, it returns the
// CHECKPOINT REACHED block and reports false (the process should end).
func (b *benchAgent) checkpoint(id string, team bool, stderr io.Writer) bool {
	msg := fmt.Sprintf("CHECKPOINT: human-verify\nPLAN: %s\nPROGRESS: 1/2\n\n", id)
	if !team {
		msg += fmt.Sprintf("## CHECKPOINT REACHED\n\n**Type:** human-verify\n**Plan:** %s\n**Progress:** 1/2 tasks complete\n\n", id)
	}
	msg += "### Checkpoint Details\nThe bench page renders.\n\n### Awaiting\nType \"approved\" or describe issues"
	b.mark("sent", id)
	b.out.Text(msg)
	b.out.EndTurn()
	if !team {
		return false
	}
	for {
		text, ok := b.next(stderr)
		if !ok {
			return false
		}
		if strings.HasPrefix(strings.TrimSpace(text), "CHECKPOINT_RESPONSE:") {
			b.mark("got", id)
			b.out.StartTurn(text)
			return true
		}
	}
}

// mark appends "what plan unixnano" to the trace file. One short write
// with O_APPEND is atomic, so concurrent agents can share the file.
func (b *benchAgent) mark(what, id string) {
	if b.trace == "" {
		return
	}
	line := fmt.Sprintf("%s %s %d\n", what, id, time.Now().UnixNano())
	f, err := os.OpenFile(b.trace, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line)
	_ = f.Close()
}
