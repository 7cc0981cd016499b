// Package tracking keeps the planning documents only hive may write,
// .planning/STATE.md and .planning/ROADMAP.md, in step with a run. The
// functions are pure text transforms: no I/O, no clock (the time arrives in
// Phase.Now).
//
// hive owns a few fields of each file and nothing else:
//
//   - STATE.md: the frontmatter keys it sets (status, current_phase,
//     stopped_at, last_updated, progress.total_plans, progress.completed_plans,
//     progress.percent: the whole project's, counted as GSD counts them),
//     the "Current Position" fields (Phase, Plan, Status,
//     Last activity, Progress) and the "Session Continuity" fields Stopped at
//     and Last session.
//   - ROADMAP.md: the checkboxes of the phase's plans and of the phase itself
//     in the current milestone, and the Plans Complete, Status and Completed
//     cells of the phase's row of the progress table.
//
// Every other byte of a file is kept as the user (or GSD) wrote it: line
// endings, table padding, unknown frontmatter keys, archived milestones. A
// field whose value does not change is not rewritten, so that a file hive has
// nothing new to say about comes back byte for byte, and a date hive does not
// know (a zero Phase.Now) never replaces one the file has.
package tracking
