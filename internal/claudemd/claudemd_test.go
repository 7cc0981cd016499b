package claudemd

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	s1, s2 := Section([]string{"one"}), Section([]string{"one", "two"})
	for _, tc := range []struct{ name, in, want string }{
		{"no file", "", s1},
		{"appended after a blank line", "# Project\n\nRules.\n", "# Project\n\nRules.\n\n" + s1},
		{"no final newline", "# Project", "# Project\n\n" + s1},
		{"replaced in place", "# P\n\n" + s2 + "\n## After\n", "# P\n\n" + s1 + "\n## After\n"},
		{"CRLF around it kept", "# P\r\n" + strings.ReplaceAll(s2, "\n", "\r\n") + "tail\r\n", "# P\r\n" + s1 + "tail\r\n"},
		{"ends on the marker", "# P\n" + strings.TrimSuffix(s2, "\n"), "# P\n" + strings.TrimSuffix(s1, "\n")},
	} {
		got, err := Splice([]byte(tc.in), s1)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %q, %v\nwant %q", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []string{Start + "\n", End + "\n", End + "\n" + Start + "\n", s1 + s1} {
		if _, err := Splice([]byte("x\n"+bad), s1); err == nil {
			t.Errorf("broken markers accepted: %q", bad)
		}
	}
}

// Whatever the file, the bytes outside hive's section are the same after
// any number of updates: the prefix before the start marker and the rest
// after the end marker's line.
func TestSpliceKeepsEveryByteOutside(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", "\n", "\r\n", "#", "<!--", "-->", "é", "\t", "- x\n"}
	text := func() string {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 2000 {
		before, after := text(), text()
		content := []byte(before)
		if i%2 == 1 {
			if !strings.HasSuffix(before, "\n") {
				before += "\n"
			}
			content = []byte(before + Section([]string{"old"}) + after)
		}
		for n := range 3 {
			out, err := Splice(content, Section([]string{strings.Repeat("l", n+1)}))
			if err != nil {
				t.Fatalf("%q: %v", content, err)
			}
			start := bytes.Index(out, []byte(Start))
			if !bytes.HasPrefix(out[:start], []byte(strings.TrimRight(before, "\n"))) {
				t.Fatalf("the text before changed: %q → %q", content, out)
			}
			if i%2 == 1 && !bytes.HasSuffix(out, []byte(after)) {
				t.Fatalf("the text after changed: %q → %q", content, out)
			}
			content = out
		}
	}
}

// The section holds at most MaxLines learnings, however many it is given.
func TestSectionCapped(t *testing.T) {
	var many []string
	for i := range 30 {
		many = append(many, strings.Repeat("x", i+1))
	}
	if n := strings.Count(Section(many), "\n- "); n != MaxLines {
		t.Errorf("%d lines; want %d", n, MaxLines)
	}
}
