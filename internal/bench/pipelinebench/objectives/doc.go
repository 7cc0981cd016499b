// Package objectives is the pipeline bench's fixtures: ten small functions
// asked for in a Go, a Python and a JavaScript repository (thirty
// objectives), each in three variants an implementer may write (correct,
// subtly wrong, a stub), with the cases each must pass: the visible ones
// that ship in the repository, the tester's, and the hidden acceptance
// tests. Measure writes every language's repository in every variant and
// runs its real test command on every suite (go test, python3 -m
// unittest, node --test), so that the simulated runs (pipelinebench) know
// what the tests show of whatever code their roles wrote.
package objectives
