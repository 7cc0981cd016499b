package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hivectl/hive/internal/sim/stream"
)

func TestParseFaults(t *testing.T) {
	got, err := ParseFaults(" 01-02=crash@2, 01-03=hang@1#1,01-04=garbage,01-02=slow ")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Fault{
		"01-02": {{Kind: "crash", Task: 2}, {Kind: "slow"}},
		"01-03": {{Kind: "hang", Task: 1, Attempt: 1}},
		"01-04": {{Kind: "garbage"}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"01-02", "=crash", "01-02=boom", "01-02=crash@x", "01-02=crash@0", "01-02=garbage@2", "01-02=crash#-1"} {
		if _, err := ParseFaults(bad); err == nil {
			t.Errorf("ParseFaults(%q) accepted", bad)
		}
	}
	s := Settings{Attempt: 2, Faults: got}
	if fs := s.ForPlan("01-03"); len(fs) != 0 {
		t.Errorf("attempt-1 fault active in attempt 2: %v", fs)
	}
	if fs := s.ForPlan("01-02"); !fs.At(FaultCrash, 2) || fs.At(FaultCrash, 1) || !fs.At(FaultSlow, 3) {
		t.Errorf("forPlan(01-02) = %v", fs)
	}
}

func TestRoleFaultSpecs(t *testing.T) {
	if fs, err := ParseFaults("reviewer=blocker#1,security=badreport"); err != nil || fs["reviewer"][0].Kind != FaultBlocker || fs["security"][0].Kind != FaultBadReport {
		t.Errorf("%v %v", fs, err)
	}
	if _, err := ParseFaults("reviewer=blocker@2"); err == nil {
		t.Error("blocker@2 accepted")
	}
}

// The context curve comes from the sim's file, and the environment's wins
// over the file's.
func TestLoadSettingsContext(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sim.json")
	if err := os.WriteFile(file, []byte(`{"context":{"base":1000,"request":500}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvFile: file}
	s, err := LoadSettings(func(k string) string { return env[k] })
	if err != nil || s.Context != (stream.ContextCurve{Base: 1000, Request: 500}) {
		t.Errorf("from the file: %+v, %v", s.Context, err)
	}
	env[stream.EnvContext] = "base=2000,window=50000"
	s, err = LoadSettings(func(k string) string { return env[k] })
	if err != nil || s.Context != (stream.ContextCurve{Base: 2000, Window: 50000}) {
		t.Errorf("the environment over the file: %+v, %v", s.Context, err)
	}
}
