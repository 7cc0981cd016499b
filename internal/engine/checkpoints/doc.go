// Package checkpoints is the engine's record of what a run asks humans:
// the queue of open checkpoints (first in first out, each with its id),
// the answers counted, the tools a human allowed for the rest of the run;
// and the reading of what agents ask (a checkpoint, a deviation, a
// permission request, a HIVE_REPORT) and of what humans answer, with the
// answers an unattended run (--yes) may give itself. The engine decides
// what an answer does to its plan.
package checkpoints
