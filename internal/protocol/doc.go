// Package protocol reads the messages that executors write to hive and
// renders hive's replies (seed 000's appendix): PROGRESS, CHECKPOINT,
// DEVIATION, PLAN COMPLETE and PLAN FAILED, in any assistant text block,
// anywhere in the block, several to a block. It also reads the standalone
// returns of seed 002/004 (## CHECKPOINT REACHED, ## Checkpoint: {type}) and
// the variants real GSD-style executors write, and, per seed 000 §5.6, a
// checkpoint whose header was forgotten but whose Checkpoint Details and
// Awaiting sections are there. It reads the v4 <!--HIVE_REPORT {json}
// HIVE_REPORT--> blocks of seed 003 as HiveReport messages, their JSON read
// by package hivereport; a block that is not readable JSON is still a
// message, with Report.Err set. A text with no such block may give its
// report as the shell Hive's agents do: in a ```hive_report fence, between
// two HIVE_REPORT lines, or as a JSON object with a "status" on its own
// lines (bare or in a ```json fence; hivereport.Loose finds it); FindReport
// is the report a whole output ends with. Hive answers with
// CheckpointResponse and DeviationResponse.
//
// Parsing never fails and never panics: text that matches no message yields
// none, and the caller keeps it for the log. The package knows nothing
// about processes or the engine.
package protocol
