package pages

import (
	"testing"
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
