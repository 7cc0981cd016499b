// Package protocol reads the messages that executors write to hive and
// renders hive's replies: PROGRESS, PLAN COMPLETE and PLAN FAILED (seed 000's
// appendix), in any assistant text block, anywhere in the block. Text that
// matches no message is returned as-is for the log; parsing never fails and
// never panics. It knows nothing about processes or the engine.
package protocol
