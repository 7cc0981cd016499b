package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// t0 is deliberately not UTC and has nanoseconds, to check normalisation.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))

func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }

func mustCreate(t testing.TB, j Journal, phase string) Run {
	t.Helper()
	r, err := j.CreateRun(phase, t0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustAppend(t testing.TB, j Journal, run int64, typ, payload string) int64 {
	t.Helper()
	seq, err := j.Append(run, typ, t0, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

// testContract is the behaviour every Journal must have; it runs against
// SQLite, and against the tests' in-memory journal (journaltest.Memory) so
// that it stays a faithful stand-in for SQLite.
func testContract(t *testing.T, open func(t *testing.T) Journal) {
	t.Run("AppendAndRead", func(t *testing.T) {
		j := open(t)
		r := mustCreate(t, j, "03")
		if r.ID == 0 || r.Phase != "03" || !r.Started.Equal(t0) || !r.Finished.IsZero() {
			t.Fatalf("CreateRun = %+v", r)
		}
		want := []Record{
			{Run: r.ID, Seq: 1, Time: at(1).UTC(), Type: "plan.started", Payload: json.RawMessage(`{"plan":"03-01"}`)},
			{Run: r.ID, Seq: 2, Time: at(2).UTC(), Type: "agent.message", Payload: json.RawMessage(`{"text":"PROGRESS: 1/3 ü"}`)},
			{Run: r.ID, Seq: 3, Time: at(3).UTC(), Type: "plan.done", Payload: json.RawMessage(`null`)},
		}
		for _, rec := range want {
			seq, err := j.Append(r.ID, rec.Type, rec.Time.In(t0.Location()), rec.Payload)
			if err != nil || seq != rec.Seq {
				t.Fatalf("Append = %d, %v; want %d", seq, err, rec.Seq)
			}
		}
		got, err := j.Events(r.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkRecords(t, got, want)
		if got[0].Time.Location() != time.UTC {
			t.Errorf("time location = %v, want UTC", got[0].Time.Location())
		}
		got, _ = j.Events(r.ID, 2)
		checkRecords(t, got, want[1:])
		if got, _ := j.Events(r.ID, 4); len(got) != 0 {
			t.Errorf("Events from 4 = %v, want none", got)
		}
		var each []Record
		if err := j.Each(r.ID, func(rec Record) error { each = append(each, rec); return nil }); err != nil {
			t.Fatal(err)
		}
		checkRecords(t, each, want)
	})

	t.Run("EachStopsOnError", func(t *testing.T) {
		j := open(t)
		r := mustCreate(t, j, "01")
		for range 5 {
			mustAppend(t, j, r.ID, "x", `{}`)
		}
		stop := errors.New("stop")
		n := 0
		err := j.Each(r.ID, func(Record) error {
			if n++; n == 2 {
				return stop
			}
			return nil
		})
		if err != stop || n != 2 {
			t.Fatalf("Each = %v after %d calls, want stop after 2", err, n)
		}
	})

	t.Run("EachMayAppend", func(t *testing.T) {
		// A runner replays one run and journals into another meanwhile.
		j := open(t)
		old, cur := mustCreate(t, j, "01"), mustCreate(t, j, "01")
		for range 3 {
			mustAppend(t, j, old.ID, "x", `{}`)
		}
		err := j.Each(old.ID, func(rec Record) error {
			_, err := j.Append(cur.ID, "replayed", t0, rec.Payload)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := j.Events(cur.ID, 1); len(got) != 3 {
			t.Fatalf("appended during Each: %d events, want 3", len(got))
		}
	})

	t.Run("SeqPerRun", func(t *testing.T) {
		j := open(t)
		a, b := mustCreate(t, j, "01"), mustCreate(t, j, "02")
		for i := 1; i <= 4; i++ {
			if s := mustAppend(t, j, a.ID, "x", `1`); s != int64(i) {
				t.Fatalf("run a seq %d, want %d", s, i)
			}
			if s := mustAppend(t, j, b.ID, "x", `2`); s != int64(i) {
				t.Fatalf("run b seq %d, want %d", s, i)
			}
		}
	})

	t.Run("ConcurrentAppend", func(t *testing.T) {
		j := open(t)
		r := mustCreate(t, j, "01")
		seqs := appendConcurrently(t, []Journal{j}, r.ID, 4, 25)
		checkConsecutive(t, j, r.ID, seqs, 100)
	})

	t.Run("Runs", func(t *testing.T) {
		j := open(t)
		if _, ok, err := j.LatestRun("01"); ok || err != nil {
			t.Fatalf("LatestRun on empty journal = %v, %v", ok, err)
		}
		if runs, err := j.Runs(); len(runs) != 0 || err != nil {
			t.Fatalf("Runs on empty journal = %v, %v", runs, err)
		}
		a1 := mustCreate(t, j, "01")
		b := mustCreate(t, j, "02")
		a2 := mustCreate(t, j, "01")
		mustAppend(t, j, a2.ID, "x", `{}`)
		mustAppend(t, j, a2.ID, "x", `{}`)
		latest, ok, err := j.LatestRun("01")
		if err != nil || !ok || latest.ID != a2.ID || latest.Events != 2 {
			t.Fatalf("LatestRun(01) = %+v, %v, %v; want run %d with 2 events", latest, ok, err, a2.ID)
		}
		runs, err := j.Runs()
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range runs {
			ids = append(ids, r.ID)
		}
		if want := []int64{a2.ID, b.ID, a1.ID}; !slices.Equal(ids, want) {
			t.Fatalf("Runs ids = %v, want %v (newest first)", ids, want)
		}
		if runs[0].Events != 2 || runs[1].Events != 0 || runs[1].Phase != "02" {
			t.Fatalf("Runs = %+v", runs)
		}
	})

	t.Run("Finish", func(t *testing.T) {
		j := open(t)
		r := mustCreate(t, j, "01")
		mustAppend(t, j, r.ID, "x", `{}`)
		if err := j.FinishRun(r.ID, time.Time{}, "done"); err == nil {
			t.Fatal("FinishRun with zero time succeeded")
		}
		if err := j.FinishRun(r.ID, at(9), "complete"); err != nil {
			t.Fatal(err)
		}
		got, ok, err := j.LatestRun("01")
		if err != nil || !ok || !got.Finished.Equal(at(9)) || got.Outcome != "complete" || got.Events != 1 {
			t.Fatalf("finished run = %+v, %v, %v", got, ok, err)
		}
		if _, err := j.Append(r.ID, "x", t0, []byte(`{}`)); !errors.Is(err, ErrRunFinished) {
			t.Fatalf("Append after finish = %v, want ErrRunFinished", err)
		}
		if err := j.FinishRun(r.ID, at(10), "again"); !errors.Is(err, ErrRunFinished) {
			t.Fatalf("second FinishRun = %v, want ErrRunFinished", err)
		}
		// A finished run is still readable: that is what replay is for.
		if recs, err := j.Events(r.ID, 1); err != nil || len(recs) != 1 {
			t.Fatalf("Events of finished run = %v, %v", recs, err)
		}
	})

	t.Run("UnknownRun", func(t *testing.T) {
		j := open(t)
		mustCreate(t, j, "01")
		const bad = 42
		if _, err := j.Append(bad, "x", t0, []byte(`{}`)); !errors.Is(err, ErrRunNotFound) {
			t.Errorf("Append = %v", err)
		}
		if _, err := j.Events(bad, 1); !errors.Is(err, ErrRunNotFound) {
			t.Errorf("Events = %v", err)
		}
		if err := j.Each(bad, func(Record) error { return nil }); !errors.Is(err, ErrRunNotFound) {
			t.Errorf("Each = %v", err)
		}
		if err := j.FinishRun(bad, t0, "x"); !errors.Is(err, ErrRunNotFound) {
			t.Errorf("FinishRun = %v", err)
		}
	})

	t.Run("BadInput", func(t *testing.T) {
		j := open(t)
		r := mustCreate(t, j, "01")
		for _, p := range []string{``, `{`, `{"a":}`, `nope`} {
			if _, err := j.Append(r.ID, "x", t0, []byte(p)); err == nil {
				t.Errorf("Append payload %q succeeded", p)
			}
		}
		if _, err := j.Append(r.ID, "", t0, []byte(`{}`)); err == nil {
			t.Error("Append with empty type succeeded")
		}
		if s := mustAppend(t, j, r.ID, "x", `{}`); s != 1 {
			t.Errorf("seq after refused appends = %d, want 1", s)
		}
	})

	t.Run("PayloadIsCopied", func(t *testing.T) {
		j := open(t)
		r := mustCreate(t, j, "01")
		buf := []byte(`{"n":1}`)
		mustAppend(t, j, r.ID, "x", string(buf))
		if _, err := j.Append(r.ID, "x", t0, buf); err != nil {
			t.Fatal(err)
		}
		buf[5] = '2'
		recs, _ := j.Events(r.ID, 1)
		recs[0].Payload[5] = '3'
		recs, _ = j.Events(r.ID, 1)
		for _, rec := range recs {
			if string(rec.Payload) != `{"n":1}` {
				t.Fatalf("stored payload changed to %s", rec.Payload)
			}
		}
	})
}

func checkRecords(t *testing.T, got, want []Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d: %+v", len(got), len(want), got)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Run != w.Run || g.Seq != w.Seq || !g.Time.Equal(w.Time) || g.Type != w.Type || string(g.Payload) != string(w.Payload) {
			t.Errorf("record %d = %+v (payload %s), want %+v (payload %s)", i, g, g.Payload, w, w.Payload)
		}
	}
}

// appendConcurrently appends per goroutines×n events through every journal
// at once, each payload naming its writer, and returns the seqs handed out.
func appendConcurrently(t *testing.T, js []Journal, run int64, per, n int) []int64 {
	t.Helper()
	var (
		mu   sync.Mutex
		seqs []int64
		wg   sync.WaitGroup
	)
	for ji, j := range js {
		for g := range per {
			wg.Go(func() {
				for i := range n {
					p := fmt.Sprintf(`{"j":%d,"g":%d,"i":%d}`, ji, g, i)
					seq, err := j.Append(run, "x", t0, []byte(p))
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					seqs = append(seqs, seq)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	return seqs
}

// checkConsecutive checks that seqs and the stored events are exactly
// 1..total, and that every written payload was stored exactly once.
func checkConsecutive(t *testing.T, j Journal, run int64, seqs []int64, total int) {
	t.Helper()
	slices.Sort(seqs)
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("seqs handed out are not 1..%d: position %d is %d", total, i, s)
		}
	}
	if len(seqs) != total {
		t.Fatalf("%d seqs, want %d", len(seqs), total)
	}
	recs, err := j.Events(run, 1)
	if err != nil {
		t.Fatal(err)
	}
	payloads := map[string]bool{}
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("stored event %d has seq %d", i, r.Seq)
		}
		if payloads[string(r.Payload)] {
			t.Fatalf("payload %s stored twice", r.Payload)
		}
		payloads[string(r.Payload)] = true
	}
	if len(recs) != total {
		t.Fatalf("%d events stored, want %d", len(recs), total)
	}
}
