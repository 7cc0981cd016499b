package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
)

// Checkpoint details are Markdown: the page shows them rendered, in the
// subset plans use, and escapes everything else.
func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"paragraphs", "one\ntwo\n\nthree", "<p>one<br>two</p><p>three</p>"},
		{"bold and code", "**Decision:** pick `json-file` or **sqlite**", "<p><strong>Decision:</strong> pick <code>json-file</code> or <strong>sqlite</strong></p>"},
		{"a numbered list with its indented lines", "Options:\n1. **json** - a file\n   Pros: simple\n2. **sqlite**\n",
			"<p>Options:</p><ol><li><strong>json</strong> - a file<br>Pros: simple</li><li><strong>sqlite</strong></li></ol>"},
		{"bullets then a heading", "- a\n- b\n### Awaiting\nSelect one", "<ul><li>a</li><li>b</li></ul><h4>Awaiting</h4><p>Select one</p>"},
		{"a code block keeps its text", "```go\nif a < b && c {\n\t**x**\n}\n```", "<pre><code>if a &lt; b &amp;&amp; c {\n\t**x**\n}</code></pre>"},
		{"html is text", `<script>alert(1)</script> <img src=x onerror="alert(2)"> [a](javascript:alert(3))`,
			"<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=&#34;alert(2)&#34;&gt; [a](javascript:alert(3))</p>"},
		{"html in code and bold", "`<b>` **<i>**", "<p><code>&lt;b&gt;</code> <strong>&lt;i&gt;</strong></p>"},
		{"an unclosed backtick", "a ` b", "<p>a ` b</p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(markdown(tc.in)); got != tc.want {
				t.Errorf("markdown(%q)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

// The run page names each plan, as hive plans does, and a finished plan's
// detail is not the subject of its last commit.
func TestPhaseViewNamesPlans(t *testing.T) {
	snap := engine.Snapshot{Phase: "01", Plans: []*engine.PlanStatus{
		{Spec: engine.PlanSpec{ID: "01-01", Name: "Book model with validation", Tasks: 2}, State: engine.Complete, TasksDone: 2, Progress: "feat(01-01): add Book.Validate"},
		{Spec: engine.PlanSpec{ID: "01-02", Name: "ISBN parsing", Tasks: 2}, State: engine.Running, TasksDone: 1, Progress: "feat(01-02): parse ISBN-10"},
	}}
	v := phaseView(KindPhase, journal.Run{ID: 1, Started: time.Now()}, snap, true)
	if len(v.Items) != 2 || v.Items[0].Name != "Book model with validation" || v.Items[1].Name != "ISBN parsing" {
		t.Fatalf("items = %+v, want the plans' names", v.Items)
	}
	if d := v.Items[0].Detail; strings.Contains(d, "feat(") {
		t.Errorf("a complete plan's detail is its last commit subject %q", d)
	}
	if d := v.Items[1].Detail; d != "feat(01-02): parse ISBN-10" {
		t.Errorf("a running plan's detail = %q, want what it does now", d)
	}
}
