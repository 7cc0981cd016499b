package devbench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/bench"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// TestTokensGroup measures the tokens group with the real Claude Code
// (HIVE_TOOLS), as cmd/hive-dev's bench does: team against standalone,
// the prompt cache's share, and hive's own share of a hive run. Every row
// is measured, judged against its target where it has one, and its share
// is a share. It does not judge timings: the machine running the test
// decides those.
func TestTokensGroup(t *testing.T) {
	if _, err := findClaude(os.Getenv("HIVE_TOOLS")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the claude CLI is not installed: make test installs it (make tools) and sets HIVE_TOOLS: %v", err)
		}
		t.Skip("the claude CLI is not installed (make tools, then HIVE_TOOLS=.tools/node_modules/.bin); skipped outside CI")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	rep, err := bench.Run(ctx, report.Options{Quick: true, Only: []string{"tokens"}, Tools: os.Getenv("HIVE_TOOLS")}, bench.With(Groups()...))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, r := range rep.Rows {
		t.Logf("%s: %s (%s, target %s) %s", r.Name, r.Figure, r.Status, r.Target, r.Note)
		names[r.Name] = true
		if r.Group != "tokens" || r.Figure == "" || r.Unit == "" || r.Value <= 0 {
			t.Errorf("row %+v", r)
		}
		switch r.Status {
		case report.Pass, report.Miss:
			if r.Target == "" {
				t.Errorf("%s is judged without a target", r.Name)
			}
		case report.Info:
		default:
			t.Errorf("%s was not measured: %s: %s", r.Name, r.Status, r.Note)
		}
		if r.Unit == "%" && r.Value >= 100 {
			t.Errorf("%s: a share of %v %%", r.Name, r.Value)
		}
		if r.Name == hiveShareName && !strings.Contains(r.Figure, "agents ") {
			t.Errorf("%s: figure %q", r.Name, r.Figure)
		}
	}
	for _, want := range []string{"standalone / team input tokens", hiveShareName} {
		if !names[want] {
			t.Errorf("no row %q", want)
		}
	}
	if len(rep.Rows) < 6 {
		t.Errorf("%d rows, want the token counts, the ratio, the cache's two shares and hive's share", len(rep.Rows))
	}
}
