package fakeanthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// continued begins the user message with which Claude Code 2.1.330 starts
// the conversation again after a compaction.
const continued = "This session is being continued from a previous conversation that ran out of context."

// The real CLI, its reported context grown near the 1,000,000-token window
// by ContextGrowth, compacts in the middle of a turn: it asks for a
// summary, which DefaultCompact gives, prints the status and
// compact_boundary lines, and goes on from the summary.
func TestClaudeCompacts(t *testing.T) {
	repo := gitRepo(t)
	s := New(t, Script{
		// Request k reports k×245,000 tokens more than its ~4,400: the
		// fifth (984,000) passes the CLI's threshold (≈967,000).
		ContextGrowth: 245000,
		Rules: []Rule{
			{Name: "after", Match: func(c *Conversation) bool {
				return len(c.Messages) > 0 && strings.Contains(c.Messages[0].Text(), continued)
			}, Reply: Static(Text("done after the compaction"))},
			{Name: "loop", Times: 6, Reply: Static(Bash("echo step"))},
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := claudeCmd(ctx, t, s, repo, "-p", "Run the loop until told otherwise", "--output-format", "stream-json", "--verbose",
		"--permission-mode", "acceptEdits", "--allowedTools", "Bash")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	defer func() {
		if t.Failed() {
			t.Logf("stdout:\n%s", out)
			logRequests(t, s)
		}
	}()

	// The lines from the compaction on, in order.
	var seen []string
	var meta struct {
		Trigger string `json:"trigger"`
		Pre     int    `json:"pre_tokens"`
		Post    int    `json:"post_tokens"`
	}
	for _, l := range parseLines(t, out) {
		var m struct {
			Status        *string         `json:"status"`
			CompactResult string          `json:"compact_result"`
			Meta          json.RawMessage `json:"compact_metadata"`
		}
		_ = json.Unmarshal([]byte(l.raw), &m)
		switch {
		case l.Type == "system" && l.Subtype == "status" && m.Status != nil && *m.Status == "compacting":
			seen = append(seen, "compacting")
		case l.Type == "system" && l.Subtype == "status" && m.CompactResult != "":
			seen = append(seen, "compact_result:"+m.CompactResult)
		case l.Type == "system" && l.Subtype == "compact_boundary":
			seen = append(seen, "compact_boundary")
			if err := json.Unmarshal(m.Meta, &meta); err != nil {
				t.Errorf("compact_metadata: %v", err)
			}
		case l.Type == "user" && len(seen) > 0 && strings.Contains(l.raw, continued):
			seen = append(seen, "continued")
		case l.Type == "result" && len(seen) > 0:
			seen = append(seen, "result:"+l.Result)
		}
	}
	want := "compacting compact_result:success compact_boundary continued result:done after the compaction"
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("lines from the compaction on: %q\nwant %q", got, want)
	}
	t.Logf("compact_metadata: %+v", meta)
	if meta.Trigger != "auto" || meta.Pre < 967000 || meta.Pre > 1000000 || meta.Post <= 0 || meta.Post > 10000 {
		t.Errorf("compact_metadata = %+v, want trigger auto, pre_tokens in [967000, 1000000], post_tokens a few thousand", meta)
	}
	comp := s.Compactions()
	if len(comp) != 1 {
		t.Fatalf("compaction requests = %d, want 1", len(comp))
	}
	if last := comp[0].Conv.LastUserText(); !strings.HasSuffix(strings.TrimSpace(last), "Tool calls will be rejected and you will fail the task.") {
		t.Errorf("the compaction request ends %q", last[max(0, len(last)-200):])
	}
	// The request after the compaction starts from the summary, which
	// quotes the prompt, and reports a small context again.
	main := s.MainRequests()
	after := main[len(main)-1]
	if after.Rule != "after" || !strings.Contains(after.Conv.Messages[0].Text(), "Run the loop until told otherwise") ||
		after.Usage.AllInput() > 300000 {
		t.Errorf("the request after the compaction: rule %q, usage %+v, first message %q", after.Rule, after.Usage, after.Conv.Messages[0].Text())
	}
}
