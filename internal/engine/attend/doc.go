// Package attend decides when a run stops for a human: when nothing can go
// on without an answer to the open checkpoints, and the process that runs
// it is not attended, either at once (only a human may answer) or after
// waiting for `hive answer` as long as the process was told.
package attend
