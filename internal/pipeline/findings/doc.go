// Package findings keeps the findings of a pipeline run's reviewing roles
// (reviewer, security, browser validator), read from their reports, with
// what became of each, and holds the run at open blockers: a fix loop, or
// a human's answer (fix, view, accept with a reason, defer, continue,
// quit). The machine (internal/pipeline) owns it and lends it its jobs.
package findings
