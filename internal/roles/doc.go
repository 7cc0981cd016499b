// Package roles holds the prompts of the pipeline's roles and finds the one
// a run uses: the project's (.hive/agents/ROLE.md), then the user's
// (~/.hive/global/agents/ROLE.md), then the one built into hive. Every
// built-in prompt but the architect's begins its work with seed 003's
// Phase 0, the challenge of the handoff, and ends with the HIVE_REPORT
// contract that the pipeline routes on.
package roles
