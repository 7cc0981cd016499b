package jsonfile

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// Every key path is found at the line of its key, array elements by index.
func TestKeyLines(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      {\"d\": true}\n    ]\n  }\n}\n")
	want := map[string]int{"a": 2, "b": 3, "b.c": 4, "b.c[0].d": 5}
	if got := KeyLines(data); !reflect.DeepEqual(got, want) {
		t.Errorf("KeyLines = %v, want %v", got, want)
	}
}

// A Report places its errors and notes at their keys' lines, the notes in
// line order.
func TestReport(t *testing.T) {
	data := []byte("{\n  \"x\": 1,\n  \"y\": \"no\"\n}")
	r := &Report{File: "f.json", Lines: KeyLines(data)}
	r.Note("y", "second")
	r.Note("x", "first")
	r.Fail("y", json.RawMessage(`"no"`), "a number")
	if got, want := r.Notes(), []string{"f.json:2: x: first", "f.json:3: y: second"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Notes = %q, want %q", got, want)
	}
	var e *Error
	if err := r.Err(); !errors.As(err, &e) || err.Error() != `f.json:3: y: "no" is not allowed; use a number` || e.Line != 3 || e.Key != "y" {
		t.Errorf("Err = %v", err)
	}
	if err := (&Report{}).Err(); err != nil {
		t.Errorf("Err with nothing recorded = %v", err)
	}
	bad := []byte("{\n  \"a\": 1,\n}")
	err := r.SyntaxError(bad, json.Unmarshal(bad, new(any)))
	if !strings.HasPrefix(err.Error(), "f.json:3: invalid JSON") || !strings.Contains(err.Error(), "trailing commas") {
		t.Errorf("SyntaxError = %v", err)
	}
}

// Values are read as people write them and written back short.
func TestValues(t *testing.T) {
	for raw, want := range map[string]int{"3": 3, "3.0": 3, "-1": -1} {
		if n, ok := WholeNumber(json.RawMessage(raw)); !ok || n != want {
			t.Errorf("WholeNumber(%s) = %d, %v", raw, n, ok)
		}
	}
	for _, raw := range []string{"3.5", `"3"`, "1e10", ""} {
		if _, ok := WholeNumber(json.RawMessage(raw)); ok {
			t.Errorf("WholeNumber(%s) accepted", raw)
		}
	}
	for raw, want := range map[string]time.Duration{`"5m"`: 5 * time.Minute, "90": 90 * time.Second, "0.5": time.Second / 2} {
		if d, ok := Duration(json.RawMessage(raw)); !ok || d != want {
			t.Errorf("Duration(%s) = %v, %v", raw, d, ok)
		}
	}
	if _, ok := Duration(json.RawMessage("1e300")); ok {
		t.Error("Duration(1e300) accepted")
	}
	for d, want := range map[time.Duration]string{5 * time.Minute: "5m", 2 * time.Hour: "2h", 90 * time.Second: "1m30s"} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%v) = %q, want %q", d, got, want)
		}
	}
	if got := Show(json.RawMessage(`{ "a" :  1 }`)); got != `{"a":1}` {
		t.Errorf("Show = %q", got)
	}
	if long := Show(json.RawMessage(`"` + strings.Repeat("é", 40) + `"`)); len(long) > 64 || !strings.HasSuffix(long, "…") {
		t.Errorf("Show of a long value = %q", long)
	}
}
