// Package planning writes the planning files of a phase run: views of the
// journal for humans and for GSD's tools, which hive never reads back as
// truth. They are an open checkpoint's .pending-checkpoint file (seed 000
// §5.2), STATE.md and ROADMAP.md with the phase's and the project's
// progress (WriteTracking), and the handoff file of a paused team (seed
// 001). A view is written through .hive/tmp and renamed into place, so a
// kill leaves the old file or the new one, never half of one; what a
// killed hive left is removed when the next one starts (RemoveLeftovers),
// and hive's own files never count as the user's changes (IsOwnFile).
// Files is the run loop's executor of the checkpoint and tracking files as
// the engine's commands come.
package planning
