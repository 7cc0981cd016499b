// Package jobs holds the pipeline machine's jobs: each role's work in a run
// with what the machine keeps of it beside what callers see
// (roleplan.Job), and the Board of them: what each waits for, the agenda
// they run in, who fixes what a check found, who a challenge names, and
// the reordering a fix or a challenge makes. It decides no course of the
// run; the machine (internal/pipeline) does, through it.
package jobs
