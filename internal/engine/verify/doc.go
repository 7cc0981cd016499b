// Package verify is the phase verification, a job of its own (seed 002)
// that the engine owns: once every plan is complete, the must_haves are
// checked mechanically (CmdVerify); when they hold and a verifier role is
// configured, a verifier agent reviews the phase and writes its report;
// the report's status is read (CmdVerify, After "report") and routed:
// passed and gaps_found end the run, human_needed asks a human. The
// verifier's agent is journaled, watched and resumed like a plan's: its
// events name the plan VerifyID.
package verify
