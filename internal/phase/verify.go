package phase

import (
	"time"

	"github.com/hivectl/hive/internal/work"
)

// VerifyStage is where the phase verification stands.
type VerifyStage string

// Verification stages.
const (
	VerifyNotAsked VerifyStage = ""         // not (yet) asked for
	VerifyChecking VerifyStage = "checking" // the must_haves are checked mechanically
	VerifyAgent    VerifyStage = "agent"    // the verifier agent works
	VerifyHeld     VerifyStage = "held"     // it waits for the budget to be raised
	VerifyReading  VerifyStage = "reading"  // its report is read
	VerifyWaiting  VerifyStage = "waiting"  // a human is asked
	VerifyDone     VerifyStage = "done"     // the result is known
)

// SessionCosts remembers each attempt's session cost already counted: the
// CLIs report a session's running total, so only what is new is added.
type SessionCosts map[int]float64

// VerifyJob is the phase verification's record.
type VerifyJob struct {
	Stage   VerifyStage
	Attempt int // the verifier agent's current (or last) attempt; 0 before the first
	PID     int
	Started time.Time // when the current attempt started
	work.Spend
	// Report is the verifier's last HIVE_REPORT, if it wrote one.
	Report *work.Report
}

// MechanicalOnly is the details of a verification that found every
// must_have by its mechanical checks.
const MechanicalOnly = "every must_have checked mechanically"
