// Package journaltest is the journal of other packages' tests: Memory, an
// in-memory journal.Journal that keeps the contract the durable SQLite
// journal keeps (journal's own tests hold it to that contract), but
// nothing across processes. The hive binary never links it.
package journaltest
