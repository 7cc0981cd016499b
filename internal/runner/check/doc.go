// Package check is hive's own checking of what agents claim, against the
// disk and git rather than the agent's word: a plan's spot-check (its
// SUMMARY exists and does not say FAILED; for a claim made in a run, its
// first key files exist and a commit of that run names the plan), the
// phase's mechanical verification (every must_haves artifact and key link
// is there), the status of the verifier agent's report, and the
// post-merge gate command. It reads and runs; it never writes, and the
// engine decides what a result means.
package check
