// Package phase is the vocabulary of a phase's run, which the engine
// (internal/engine) speaks: the run's spec, the events it takes, the
// commands it gives, the checkpoints a human answers, the states its plans
// go through, the snapshot it shows and the state it exports. Callers, the
// journal and the Temporal backend speak it too, as raft's callers speak
// raftpb beside raft. It is plain data, and may import only the standard
// library and internal/work; a test enforces that.
package phase
