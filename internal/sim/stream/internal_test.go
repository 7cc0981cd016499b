package stream

import "testing"

func TestParseContextCurve(t *testing.T) {
	c, err := ParseContextCurve(" base=12000, request=3000,task=2000 ,window=1000000")
	if err != nil || c != (ContextCurve{Base: 12000, Request: 3000, Task: 2000, Window: 1000000}) {
		t.Fatalf("got %+v, %v", c, err)
	}
	if c, err := ParseContextCurve(""); err != nil || c.On() || c.window() != 200000 {
		t.Errorf("empty spec: %+v, %v", c, err)
	}
	for _, bad := range []string{"base", "base=x", "size=3", "request=-1", "base=190000", "base=9000,window=9000"} {
		if _, err := ParseContextCurve(bad); err == nil {
			t.Errorf("ParseContextCurve(%q) accepted", bad)
		}
	}
}

func TestUserText(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"user","message":{"role":"user","content":"hello"}}`:                                                                  "hello",
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}`: "a\nb",
	} {
		if got, err := UserText([]byte(in)); err != nil || got != want {
			t.Errorf("UserText(%s) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{`not json`, `{"type":"control_request"}`, `{"type":"user","message":{"content":5}}`} {
		if _, err := UserText([]byte(bad)); err == nil {
			t.Errorf("UserText(%s) accepted", bad)
		}
	}
}
