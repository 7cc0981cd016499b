// Package roleplan is the vocabulary of `hive run "objective"`: what the
// pipeline machine (internal/pipeline) is asked to do (Spec, with its
// workflow of roles, which is workflows', and its Budget), the events it
// steps and the commands it returns, the checkpoints it asks a human and
// their answers, what roles say to each other (Context, Challenge,
// Decision), the findings, evaluations and pull request it keeps, and the
// Snapshot of its state. It is plain data, as the journal and every host
// of the machine see it, with the rules that read a checkpoint's answer.
// It decides nothing of a run's course.
package roleplan
