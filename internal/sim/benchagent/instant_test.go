package benchagent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func benchPrompt(text string) string {
	return `{"type":"user","message":{"role":"user","content":` + quoteJSON(text) + `}}` + "\n"
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func runBench(t *testing.T, env map[string]string, input string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code, ok := Main(func(k string) string { return env[k] }, strings.NewReader(input), &out, &errb)
	if !ok {
		t.Fatal("bench mode not taken")
	}
	return code, out.String() + errb.String()
}

func TestBenchModeInstant(t *testing.T) {
	code, out := runBench(t, map[string]string{EnvMode: ModeInstant},
		benchPrompt("<team_protocol>\n- Plan: .planning/phases/01-bench/01-0007-PLAN.md"))
	if code != 0 || !strings.Contains(out, `PLAN COMPLETE\n\n**Plan:** 01-0007`) || !strings.Contains(out, "01-0007-SUMMARY.md") || !strings.Contains(out, `"type":"result"`) {
		t.Fatalf("code %d, output:\n%s", code, out)
	}
}

func TestBenchModeCheckpoint(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	env := map[string]string{EnvMode: ModeCheckpoint, EnvTrace: trace}
	plan := "- Plan: .planning/phases/01-bench/01-0002-PLAN.md"

	// Team: the live agent waits for CHECKPOINT_RESPONSE, then completes.
	code, out := runBench(t, env, benchPrompt("<team_protocol>\n"+plan)+benchPrompt("CHECKPOINT_RESPONSE: approved"))
	if code != 0 || !strings.Contains(out, "CHECKPOINT: human-verify") || strings.Contains(out, "CHECKPOINT REACHED") || !strings.Contains(out, "PLAN COMPLETE") {
		t.Fatalf("team: code %d, output:\n%s", code, out)
	}
	// Standalone: the agent returns CHECKPOINT REACHED and ends ...
	code, out = runBench(t, env, benchPrompt("<standalone_protocol>\n"+plan))
	if code != 0 || !strings.Contains(out, "## CHECKPOINT REACHED") || strings.Contains(out, "PLAN COMPLETE") {
		t.Fatalf("standalone: code %d, output:\n%s", code, out)
	}
	// ... and a continuation agent gets the answer in its prompt.
	code, out = runBench(t, env, benchPrompt("<continuation>\n"+plan+"\n<resume_from>\nTask 2</resume_from>"))
	if code != 0 || !strings.Contains(out, "PLAN COMPLETE") {
		t.Fatalf("continuation: code %d, output:\n%s", code, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "sent 01-0002 "); got != 2 {
		t.Errorf("%d sent lines, want 2:\n%s", got, data)
	}
	if got := strings.Count(string(data), "got 01-0002 "); got != 2 {
		t.Errorf("%d got lines, want 2:\n%s", got, data)
	}
}

func TestBenchModeOff(t *testing.T) {
	if _, ok := Main(func(string) string { return "" }, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); ok {
		t.Fatal("bench mode taken without HIVE_SIM_MODE")
	}
	var errb bytes.Buffer
	if code, ok := Main(func(k string) string { return map[string]string{EnvMode: "fast"}[k] }, strings.NewReader(""), &bytes.Buffer{}, &errb); !ok || code != 2 {
		t.Fatalf("unknown mode: code %d ok %t", code, ok)
	}
}
