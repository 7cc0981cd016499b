// Package costs sums what every run of a repository spent, by run, role
// and model, from its journals: the phase runs of execute-phase
// (executors, resolvers, the verifier) and the role agents of hive run,
// whose implementers' phase is counted once. Dollars are hive's prices of
// each turn, beside what the CLIs said. hive costs prints them.
package costs
