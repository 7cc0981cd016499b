// Package runworker is what a `hive worker --backend temporal` process
// (and `hive run --backend temporal`'s own local worker) serves for hive
// run: the activities of a run's workflow (objective.Workflow),
// each command carried out with piperun's Worker in the run's worktree,
// or, for a run whose work goes through a git remote, in a worktree of
// this clone made from the run's branch there and pushed back with a
// lease; the journal view and delivery in the run's folder; the stages of
// the implementers' phase, a child workflow of the run's (ready it, say
// what its stop or end means to the pipeline, bring its work home); and
// the phases' plans, which the workers of any clone run. It also names the queues and workflow ids
// those runs use, which the CLI's client side shares.
package runworker
