// Package testrun runs a project's test command for the pipeline's tester
// and reads what it can from the output: how many tests passed and failed,
// and which failed, for go test, pytest, jest and vitest, and cargo test.
// It also finds the project's build command, for the pipeline's mechanical
// build step, which runs it the same way. The commands are the project's
// own (detected from its files, or configured), never text from an agent.
package testrun
