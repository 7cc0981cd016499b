// Package load reads a repository's .planning/ folder from disk into a
// plan.Project. Project reads every phase folder under .planning/phases
// (NN-name, or with GSD's project code before the number when
// .planning/config.json sets one) and notes the entries that are not, with
// how to have them read; Phase reads one folder: its plans and SUMMARYs
// (parse), every depends_on re-spelled as the id of the plan it names, each
// SUMMARY paired with its plan whatever GSD naming it follows, waves
// numbered from 0 read one higher, the waves computed, and the paths the
// plans name checked against the repository on disk (CheckRepoPaths).
// LookupPlan finds a plan by its full id in the phase of its number or in an
// archived milestone. It reads files under .planning/ and, for the paths
// plans name, what the repository holds there; it never writes and never
// executes anything. Cross-plan checks are validate's.
package load
