// Package contract holds the role contracts: for each role of a run, the
// HIVE_REPORT it must end with (the fields hive's routing reads, the values
// they may take, the shape of a reviewer's issues or an interviewer's
// questions) and how many times a role is asked again with the validation
// errors before a human is. Contracts are bundled with hive and may be
// overridden per repository (.hive/contracts/ROLE.json) or per user
// (~/.hive/contracts/ROLE.json); the shell Hive's contract files load too,
// as far as their format maps. Validate checks a report, its unknown keys
// included, and words each error as the field and its fix, so that the
// errors can go back to the agent as they are. The package does no I/O but
// reading contract files, and knows nothing of processes or runs.
package contract
