// Package journal is hive's durable source of truth: an append-only log of
// events grouped into runs, written before the commands those events cause
// are executed, and replayed through the engine on resume (like the WAL of
// etcd's raft). An Append that returns without error is on disk, so an event
// that was acted on can always be replayed. The journal knows nothing about
// what events mean: payloads are opaque JSON that callers marshal and
// unmarshal themselves, and this package imports no other hive package. It
// never rewrites or deletes an event; the only mutation besides appending is
// marking a run finished, after which the run takes no more events.
// Redacting wraps a Journal so that secrets in payloads are masked before
// they are stored.
package journal
