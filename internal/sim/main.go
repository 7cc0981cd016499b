package sim

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hivectl/hive/internal/sim/benchagent"
	"github.com/hivectl/hive/internal/sim/executor"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/repo"
	"github.com/hivectl/hive/internal/sim/roleplay"
	"github.com/hivectl/hive/internal/sim/session"
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
	if code, ok := benchagent.Main(os.Getenv, stdin, stdout, stderr); ok { // HIVE_SIM_MODE: see package benchagent
		return code
	}
	set, err := faults.LoadSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "hive sim: %v\n", err)
		return 2
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "hive sim: working directory: %v\n", err)
		return 2
	}
	return session.Run(dir, set, args, stdin, stdout, stderr, converse)
}

// converse runs the session: the first message is the executor prompt (or
// a role's); later messages (after the plan ended) get a short answer
// each, keeping the session alive until stdin closes.
func converse(s *session.Session) {
	prompt, ok := s.Next()
	if !ok {
		return
	}
	s.Out.StartTurn(prompt)
	x := executor.New(s)
	var err error
	switch {
	case roleplay.IsPipelineRole(prompt):
		err = roleplay.PlayRole(s, prompt)
	case s.Set.Role == "comb":
		err = roleplay.ResolveConflicts(s, prompt)
	case s.Set.Role == "verifier":
		err = roleplay.VerifyPhase(s)
	default:
		err = x.Execute(prompt)
	}
	switch {
	case errors.Is(err, repo.ErrStopped), errors.Is(err, session.ErrExited):
		return
	case errors.Is(err, executor.ErrRolledOver): // the report ended the turn
	case err != nil:
		fmt.Fprintf(s.Log, "hive sim: %v\n", err)
		x.PlanFailed(err.Error())
	}
	for {
		msg, ok := s.Next()
		if !ok {
			return
		}
		s.Out.StartTurn(msg)
		x.Answer(msg)
	}
}
