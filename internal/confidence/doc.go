// Package confidence computes how far hive trusts a role's work from
// checks it runs itself (seed 003 §3.3), never from the agent's own
// confidence: the architect's plans lint clean, name paths that exist,
// give every task a verify and a done, and avoid vague words; the
// implementer's work builds, passes the tests, covers the plans' files and
// adds no TODO; the tester's tests ran, pass, and touch the change; the
// reviewer's findings cite real files and lines. Each role's checks are
// worth MaxPoints (70; the evaluators' 30 come later). It is pure: the
// caller gathers the facts.
package confidence
