// Package roleplay is the sim playing the roles of hive run, and the
// engine's resolver (comb) and verifier.
//
// A role prompt of hive run ("# Role: …") is played as HIVE_AGENT_ROLE
// names the role: the architect writes a phase of plans (in a Go project
// with the code for the executor to write), an implementer or debugger
// makes its change, a tester may add a failing test and runs the project's
// tests, the documenter documents, a reviewer, security auditor or browser
// validator approves or finds a blocker, the migrator writes a migration,
// and the interviewer, planner, evaluator and postmortem answer with their
// contract's fields. Each commits what it did and ends its turn with a
// HIVE_REPORT. The faults keyed by the role's job (HIVE_AGENT_PLAN) make it
// challenge, ask, block, crash, hang, hit the usage limit or break its
// report's contract. The resolver keeps both sides of every merge
// conflict and commits the merge; the verifier writes the phase's
// VERIFICATION.md with the status HIVE_SIM_VERIFY asks for.
package roleplay
