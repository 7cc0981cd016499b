// Package pipelinebench is hive bench's pipeline group, which measures hive
// run's routing: the fixture objectives (package objectives, below this
// one), each run many times under three configurations (the implementer
// alone, the fixed full pipeline, and the planned pipeline with evaluators
// and computed confidence) by hive's real pipeline machine, the roles
// played by a seeded stochastic policy and the fixtures' real test results
// saying what the code they wrote passes. It reports each configuration's
// hidden-test pass rate, tokens and human checkpoints, and how well
// computed confidence, beside the agents' own, foretells the hidden tests
// (Brier score and a reliability table), then the goals again under a
// harsher policy.
package pipelinebench
