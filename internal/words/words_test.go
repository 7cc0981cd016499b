package words

import "testing"

func TestFirst(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"", "  \n", "\tsecond  ", "third"}, "second"},
		{[]string{"  "}, ""},
	} {
		if got := First(c.in...); got != c.want {
			t.Errorf("First(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("  a\n\tb   c \r\n"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
}
