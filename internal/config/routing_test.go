package config

import (
	"strings"
	"testing"
)

// The routing section: read, its defaults, a value out of range named
// with what it accepts, and written back only when set.
func TestRouting(t *testing.T) {
	c := mustParse(t, `{"routing": {"evaluate": true, "confidence_floor": 70, "skip_proven": true, "proven_runs": 4}}`)
	if r := c.Routing; !r.Evaluate || r.Floor() != 70 || !r.SkipProven || r.ProvenRuns != 4 {
		t.Errorf("routing %+v", r)
	}
	if f := mustParse(t, `{}`).Routing.Floor(); f != 60 {
		t.Errorf("default floor %d", f)
	}
	if f := mustParse(t, `{"routing": {"confidence_floor": -1}}`).Routing.Floor(); f != 0 {
		t.Errorf("floor -1 gives %d; want none", f)
	}
	_, err := Parse([]byte(`{"routing": {"confidence_floor": 101}}`))
	if err == nil || !strings.Contains(err.Error(), "routing.confidence_floor") {
		t.Errorf("floor 101: %v", err)
	}
	out, err := mustParse(t, `{"mode": "yolo"}`).Marshal()
	if err != nil || strings.Contains(string(out), "routing") {
		t.Errorf("an unset routing is written: %s %v", out, err)
	}
}
