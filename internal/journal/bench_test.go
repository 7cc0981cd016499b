package journal

import (
	"fmt"
	"testing"
)

// benchPayload is about the size of a typical agent-message event.
var benchPayload = []byte(`{"plan":"03-02","agent":"claude","text":"PROGRESS: task 2/5 complete, running go test ./... now"}`)

func BenchmarkAppend(b *testing.B) {
	j, _ := openTemp(b)
	r := mustCreate(b, j, "bench")
	for b.Loop() {
		if _, err := j.Append(r.ID, "agent.message", t0, benchPayload); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendAll appends batches of 8 events in one transaction, as the
// runner does when 8 agents report at once: compare events/s with
// BenchmarkAppend.
func BenchmarkAppendAll(b *testing.B) {
	j, _ := openTemp(b)
	r := mustCreate(b, j, "bench")
	batch := make([]Entry, 8)
	for i := range batch {
		batch[i] = Entry{Type: "agent.message", At: t0, Payload: benchPayload}
	}
	for b.Loop() {
		if _, err := j.AppendAll(r.ID, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkEach(b *testing.B) {
	const n = 100_000
	j, _ := openTemp(b)
	r := mustCreate(b, j, "bench")
	bulkLoad(b, j, r.ID, n)
	for b.Loop() {
		count := 0
		if err := j.Each(r.ID, func(Record) error { count++; return nil }); err != nil {
			b.Fatal(err)
		}
		if count != n {
			b.Fatalf("replayed %d events, want %d", count, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}

// bulkLoad writes n events in one transaction: 100,000 separate fsynced
// Appends would make the setup, not the replay, dominate the benchmark.
func bulkLoad(b *testing.B, j *SQLite, run int64, n int) {
	tx, err := j.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := tx.Prepare(`INSERT INTO events(run_id, seq, time, type, payload) VALUES(?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := stmt.Exec(run, i, formatTime(at(i)), "agent.message", string(benchPayload)); err != nil {
			b.Fatal(fmt.Errorf("seq %d: %w", i, err))
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
