// Package views is what hive serve shows of the repository's runs: each
// run's view (its plans or roles with their state and spend, its open
// checkpoints with the form each asks for, a provider limit's wait), kept
// by a Store that follows the journals other hive processes write
// (.hive/journal.db, .hive/runs.db), replaying each run once and then
// stepping only its new events, with the runs of a remote backend (the
// Temporal workflows of the repository's phases) beside them; and the
// events a live page is sent as the views change, kept for a client that
// reconnects. It only reads: it never creates a journal, and an answer
// goes through package answer or the remote backend, not through it.
package views
