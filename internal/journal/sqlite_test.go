package journal

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

func openTemp(t testing.TB) (*SQLite, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, path
}

func TestSQLiteContract(t *testing.T) {
	testContract(t, func(t *testing.T) Journal { j, _ := openTemp(t); return j })
}

// TestPragmas checks the pragmas on several simultaneously open pooled
// connections, since a pragma run once with db.Exec would reach only one.
func TestPragmas(t *testing.T) {
	j, _ := openTemp(t)
	ctx := context.Background()
	for i := range 3 {
		c, err := j.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for pragma, want := range map[string]string{
			"journal_mode": "wal",
			"synchronous":  "2", // FULL
			"busy_timeout": "5000",
			"foreign_keys": "1",
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, pragma, got, want)
			}
		}
	}
}

func TestSchemaVersion(t *testing.T) {
	j, path := openTemp(t)
	var v string
	if err := j.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != "1" {
		t.Fatalf("schema_version = %q, %v; want 1", v, err)
	}
	if _, err := j.db.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	j.Close()
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a version 99 journal = %v, want a 'newer' error", err)
	}
}

func TestReopen(t *testing.T) {
	j, path := openTemp(t)
	r := mustCreate(t, j, "02.1")
	mustAppend(t, j, r.ID, "a", `{"k":"v"}`)
	mustAppend(t, j, r.ID, "b", `[1,2]`)
	if err := j.FinishRun(r.ID, at(5), "failed"); err != nil {
		t.Fatal(err)
	}
	open := mustCreate(t, j, "02.1")
	mustAppend(t, j, open.ID, "c", `{}`)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	runs, err := j.Runs()
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs after reopen = %+v, %v", runs, err)
	}
	if f := runs[1]; f.ID != r.ID || f.Outcome != "failed" || !f.Finished.Equal(at(5)) || f.Events != 2 || !f.Started.Equal(t0) {
		t.Errorf("finished run after reopen = %+v", f)
	}
	recs, err := j.Events(r.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, recs, []Record{
		{Run: r.ID, Seq: 1, Time: t0, Type: "a", Payload: json.RawMessage(`{"k":"v"}`)},
		{Run: r.ID, Seq: 2, Time: t0, Type: "b", Payload: json.RawMessage(`[1,2]`)},
	})
	if s := mustAppend(t, j, open.ID, "d", `{}`); s != 2 {
		t.Errorf("append to reopened run: seq %d, want 2", s)
	}
}

func TestOpenCreatesDirsAndEscapesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a b", "we?ird#%20dir", ".hive", "journal.db")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, j, "01")
	j.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("journal not at the given path: %v", err)
	}
}

// TestTwoHandles stands in for two processes: separate *SQLite values share
// no mutex or pool, only the file and its locks.
func TestTwoHandles(t *testing.T) {
	a, path := openTemp(t)
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r := mustCreate(t, a, "01")
	seqs := appendConcurrently(t, []Journal{a, b}, r.ID, 3, 40)
	checkConsecutive(t, b, r.ID, seqs, 2*3*40)
}

func TestDiskFull(t *testing.T) {
	// max_page_count makes SQLite report SQLITE_FULL exactly as a full disk would.
	j, err := open(filepath.Join(t.TempDir(), "j.db"), "max_page_count(16)")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r := mustCreate(t, j, "01")
	payload := []byte(`"` + strings.Repeat("x", 1000) + `"`)
	var last int64
	for i := range 1000 {
		seq, err := j.Append(r.ID, "x", t0, payload)
		if err != nil {
			var se *sqlite.Error
			if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_FULL {
				t.Fatalf("append %d: %v, want SQLITE_FULL", i, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("journal append run %d", r.ID)) {
				t.Errorf("error lacks context: %v", err)
			}
			break
		}
		last = seq
	}
	if last == 0 || last == 1000 {
		t.Fatalf("appended %d events; want the journal to fill up part way", last)
	}
	recs, err := j.Events(r.ID, 1)
	if err != nil || int64(len(recs)) != last {
		t.Fatalf("after SQLITE_FULL: %d events, %v; want the %d acknowledged", len(recs), err, last)
	}
}

const crashEnv = "HIVE_JOURNAL_CRASH_CHILD"

// TestCrashSafety SIGKILLs a process mid-append and checks that the journal
// holds a gap-free prefix containing at least every acknowledged event.
func TestCrashSafety(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path)
		return
	}
	j, path := openTemp(t)
	r := mustCreate(t, j, "01")
	j.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked int64
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if n, err := strconv.ParseInt(lines.Text(), 10, 64); err == nil {
			acked = n
		}
		if acked == 300 {
			cmd.Process.Kill() // SIGKILL: no deferred code, no Close
		}
	}
	cmd.Wait()
	if acked < 300 {
		t.Fatalf("child acknowledged only %d events before exiting; stderr:\n%s", acked, stderr.String())
	}

	j, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var k int64
	err = j.Each(r.ID, func(rec Record) error {
		k++
		var p struct{ I int64 }
		if rec.Seq != k {
			return fmt.Errorf("gap: seq %d at position %d", rec.Seq, k)
		}
		if err := json.Unmarshal(rec.Payload, &p); err != nil || p.I != rec.Seq {
			return fmt.Errorf("seq %d: bad payload %s (%v)", rec.Seq, rec.Payload, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if k < acked {
		t.Fatalf("journal holds %d events, but %d were acknowledged", k, acked)
	}
	t.Logf("killed after %d acknowledged appends; journal holds 1..%d", acked, k)
	if s := mustAppend(t, j, r.ID, "after-crash", `{}`); s != k+1 {
		t.Fatalf("append after crash got seq %d, want %d", s, k+1)
	}
}

// crashChild appends to run 1 until killed, printing each acknowledged seq.
func crashChild(path string) {
	j, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pad := strings.Repeat("p", 200)
	deadline := time.Now().Add(time.Minute) // never outlive a parent that died
	for i := int64(1); time.Now().Before(deadline); i++ {
		seq, err := j.Append(1, "tick", time.Now(), fmt.Appendf(nil, `{"i":%d,"pad":%q}`, i, pad))
		if err != nil || seq != i {
			fmt.Fprintf(os.Stderr, "append %d: seq %d, %v\n", i, seq, err)
			os.Exit(1)
		}
		fmt.Println(seq)
	}
	os.Exit(1)
}

// Several processes' worth of openers on a new journal at once: each
// opens it (the WAL switch of one does not fail another with SQLITE_BUSY).
func TestOpenNewJournalConcurrently(t *testing.T) {
	for round := range 20 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("j%d.db", round))
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, err := Open(path)
				if err != nil {
					errs <- err
					return
				}
				j.Close()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// TestAdoptRun: a run taken up from elsewhere keeps its number and its
// records' seqs; a number the journal has is refused.
func TestAdoptRun(t *testing.T) {
	j, err := Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	if err := j.AdoptRun(Run{ID: 7, Phase: "run", Started: at}); err != nil {
		t.Fatal(err)
	}
	if seq, err := j.Append(7, "ev", at, []byte(`1`)); err != nil || seq != 1 {
		t.Fatalf("append to the adopted run: seq %d, %v", seq, err)
	}
	r, ok, err := j.LatestRun("run")
	if err != nil || !ok || r.ID != 7 || !r.Started.Equal(at) || r.Events != 1 {
		t.Fatalf("the adopted run: %+v %v %v", r, ok, err)
	}
	if err := j.AdoptRun(Run{ID: 7, Phase: "run", Started: at}); err == nil {
		t.Error("a run adopted twice")
	}
	if next, err := j.CreateRun("run", at); err != nil || next.ID != 8 {
		t.Errorf("a run created after: %+v %v", next, err)
	}
}

// A reader opens an up-to-date journal and reads its runs while a writer
// holds the write lock (as a busy hive does in turns, for each batch of
// events): opening takes no write lock of its own, so it neither waits
// for the writer nor fails with "database is locked".
func TestReaderOpensBesideAWriterHoldingTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.CreateRun("pipeline", time.Now()); err != nil {
		t.Fatal(err)
	}
	tx, err := w.db.Begin() // BEGIN IMMEDIATE: the write lock, held
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO runs(phase, started) VALUES('pipeline', ?)`, formatTime(time.Now())); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatalf("a reader beside a writer holding the lock: %v", err)
	}
	defer r.Close()
	run, ok, err := r.LatestRun("pipeline")
	if err != nil || !ok || run.ID != 1 {
		t.Fatalf("the reader sees %+v, %v, %v; want run 1 (the writer's second is not committed)", run, ok, err)
	}
}
