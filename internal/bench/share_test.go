package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestHiveShareRow measures hive's own share of a hive run with the real
// Claude Code (HIVE_TOOLS): the row is measured, judged against its
// target, and its share is a share. It does not judge the timing: the
// machine running the test decides that.
func TestHiveShareRow(t *testing.T) {
	if _, err := findClaude(os.Getenv("HIVE_TOOLS")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the claude CLI is not installed: make test installs it (make tools) and sets HIVE_TOOLS: %v", err)
		}
		t.Skip("the claude CLI is not installed (make tools, then HIVE_TOOLS=.tools/node_modules/.bin); skipped outside CI")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := hiveShareRow(ctx, Options{Tools: os.Getenv("HIVE_TOOLS")})
	t.Logf("%s: %s (%s, target %s) %s", r.Name, r.Figure, r.Status, r.Target, r.Note)
	if r.Status != Pass && r.Status != Miss {
		t.Fatalf("the row was not measured: %s: %s", r.Status, r.Note)
	}
	if r.Value <= 0 || r.Value >= 100 || r.Unit != "%" || r.Target == "" || !strings.Contains(r.Figure, "agents ") {
		t.Errorf("row %+v", r)
	}
}
