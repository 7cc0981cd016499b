package journal

import (
	"strings"
	"testing"
	"time"
)

// AppendAll stores a batch in order with contiguous seqs, all or none.
func TestAppendAll(t *testing.T) {
	sq, _ := openTemp(t)
	for name, j := range map[string]Journal{
		"sqlite":    sq,
		"redacting": Redacting(sq, maskAll{}),
	} {
		t.Run(name, func(t *testing.T) { testAppendAll(t, j, "phase-"+name) })
	}
}

// testAppendAll holds j to AppendAll's contract, with a new run of phase.
func testAppendAll(t *testing.T, j Journal, phase string) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run, err := j.CreateRun(phase, at)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, run.ID, "first", `{}`)
	seqs, err := AppendAll(j, run.ID, []Entry{{"a", at, []byte(`{"n":1}`)}, {"b", at, []byte(`{"n":2}`)}, {"c", at, []byte(`{"n":3}`)}})
	if err != nil || len(seqs) != 3 || seqs[0] != 2 || seqs[2] != 4 {
		t.Fatalf("AppendAll = %v, %v", seqs, err)
	}
	recs, _ := j.Events(run.ID, 2)
	var types []string
	for _, r := range recs {
		types = append(types, r.Type)
	}
	if strings.Join(types, ",") != "a,b,c" {
		t.Errorf("stored %v", types)
	}
	if _, ok := j.(BatchAppender); ok {
		// One bad payload: nothing of the batch is stored.
		if _, err := AppendAll(j, run.ID, []Entry{{"d", at, []byte(`{}`)}, {"e", at, []byte(`not json`)}}); err == nil {
			t.Error("a batch with invalid JSON was accepted")
		}
		if recs, _ := j.Events(run.ID, 5); len(recs) != 0 {
			t.Errorf("a refused batch left %d events", len(recs))
		}
	}
	j.FinishRun(run.ID, at, "complete")
	if _, err := AppendAll(j, run.ID, []Entry{{"late", at, []byte(`{}`)}}); err == nil {
		t.Error("a finished run took a batch")
	}
}

type maskAll struct{}

func (maskAll) JSON(p []byte) []byte { return p }
