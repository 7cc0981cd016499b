package roleplay

import "github.com/hivectl/hive/internal/sim/session"

// agent is a session playing a role.
type agent struct {
	*session.Session
}

// PlayRole plays the role of hive run that prompt asks of session s (see
// playRole). It returns nil once the report ended the turn,
// session.ErrExited when the process is to exit, and any other error for
// the caller to report.
func PlayRole(s *session.Session, prompt string) error {
	return (&agent{s}).playRole(prompt)
}

// ResolveConflicts plays the resolver of a merge conflict (role comb) in
// session s (see resolveConflicts).
func ResolveConflicts(s *session.Session, prompt string) error {
	return (&agent{s}).resolveConflicts(prompt)
}

// VerifyPhase plays the verifier of a phase (role verifier) in session s
// (see verifyPhase).
func VerifyPhase(s *session.Session) error {
	return (&agent{s}).verifyPhase()
}
