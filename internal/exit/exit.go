package exit

import "fmt"

// Exit codes. Scripts can tell a failed plan from a bad invocation.
const (
	OK         = 0
	Failed     = 1 // a plan failed or was skipped; lint found errors
	Usage      = 2 // bad flags or arguments, invalid plans or config, no repository
	Internal   = 3 // hive itself could not go on: the journal, git, the file system
	Busy       = 4 // another hive process is running the phase
	NeedsHuman = 5 // an unattended run stopped at a checkpoint only a human may answer
	Paused     = 6 // hive pause paused the run, or --on-limit stop stopped it at a usage limit; the same command resumes it
	// Undelivered: hive run completed, but its work could not be merged
	// into your branch (or pushed) and is on the run's branch; the output
	// says why and how to take it.
	Undelivered = 7
	Interrupted = 130
)

// Error ends a command with Code; Err, when set, is what it says.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf is an Error with code and a formatted message.
func Errorf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// With is err ending the command with code.
func With(code int, err error) error { return &Error{Code: code, Err: err} }

// Silent ends the command with code after the command already said why.
func Silent(code int) error { return &Error{Code: code} }
