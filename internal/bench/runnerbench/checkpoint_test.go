package runnerbench

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(ds, 50); p != 50*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := percentile(ds, 99); p != 99*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := percentile(ds[:1], 99); p != 100*time.Millisecond {
		t.Errorf("p99 of one = %v", p)
	}
}

func TestReadTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace")
	data := "sent 01-0001 1000000\nsent 01-0002 5000000\ngot 01-0001 3000000\ngarbage line\ngot 01-0002 9000000\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := readTrace(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if percentile(ds, 50) != 2*time.Millisecond || percentile(ds, 99) != 4*time.Millisecond {
		t.Errorf("round trips %v", ds)
	}
	if _, err := readTrace(path, 3); err == nil {
		t.Error("a missing round trip was not reported")
	}
}
