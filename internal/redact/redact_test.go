package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	r := New("hunter2-very-secret", "s\"q\\x", "ab") // "ab" is too short to mask
	tests := []struct{ in, want string }{
		{"password is hunter2-very-secret.", "password is [REDACTED]."},
		{`{"text":"s\"q\\x"}`, `{"text":"[REDACTED]"}`}, // JSON-escaped form
		{"ab abc", "ab abc"},
		{"key sk-ant-api03-AbCdEf0123456789_xyz-QQ end", "key [REDACTED] end"},
		{"OPENAI sk-proj-abcdefghijklmnop1234 and sk-abcdefghijklmnopqrst", "OPENAI [REDACTED] and [REDACTED]"},
		{"gh ghp_0123456789abcdefghijABCDEFGHIJ", "gh [REDACTED]"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"aws AKIAIOSFODNN7EXAMPLE x", "aws [REDACTED] x"},
		{"slack xoxb-1234567890-abcdefghij", "slack [REDACTED]"},
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", "Authorization: Bearer [REDACTED]"},
		{"authorization=Basic dXNlcjpwYXNz", "authorization=Basic [REDACTED]"},
		{`curl -H "Authorization: token abc123456"`, `curl -H "Authorization: token [REDACTED]"`},
		{"x-api-key: abcdef123", "x-api-key: [REDACTED]"},
		{"export STRIPE_SECRET=sk_live_xyz; echo", "export STRIPE_SECRET=[REDACTED]; echo"},
		{`MY_API_KEY="quoted value" rest`, `MY_API_KEY="[REDACTED] value" rest`},
		{`{"GITHUB_TOKEN": "abc"}`, `{"GITHUB_TOKEN": "[REDACTED]"}`},
		{"DB_PASSWORD: pw123", "DB_PASSWORD: [REDACTED]"},
		// Ordinary text stays.
		{`{"usage":{"input_tokens":120,"output_tokens":7}}`, `{"usage":{"input_tokens":120,"output_tokens":7}}`},
		{"primary_key = id; sort-key: x; task-1", "primary_key = id; sort-key: x; task-1"},
		{"the bearer of bad news", "the bearer of bad news"},
		{"PROGRESS: Task 1/2 complete: feat(01-01): add risk-free skeleton", "PROGRESS: Task 1/2 complete: feat(01-01): add risk-free skeleton"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if got := string(r.Bytes([]byte(tt.in))); got != tt.want {
			t.Errorf("Bytes(%q) = %q", tt.in, got)
		}
	}
	var nilR *Redactor
	if got := nilR.String("sk-ant-api03-0123456789"); got != Mask {
		t.Errorf("nil Redactor: %q", got)
	}
}

func TestLongestValueFirst(t *testing.T) {
	r := New("abcd", "abcdefgh")
	if got := r.String("abcdefgh"); got != Mask {
		t.Errorf("got %q", got)
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{"A_THING": "value-of-a", "EMPTY": ""}
	r := FromEnv([]string{"A_THING", "EMPTY", "UNSET"}, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if got := r.String("x value-of-a y"); got != "x [REDACTED] y" {
		t.Errorf("got %q", got)
	}
}

func TestJSON(t *testing.T) {
	r := New("s3cr3t-value")
	in := []byte(`{"b":1,"a":"s3cr3t-value","n":[{"t":"say s3cr3t-value"}],"API_KEY":"short","big":12345678901234567890}`)
	got := r.JSON(in)
	if bytes.Contains(got, []byte("s3cr3t")) || bytes.Contains(got, []byte("short")) || !json.Valid(got) {
		t.Fatalf("JSON = %s", got)
	}
	if !bytes.Contains(got, []byte("12345678901234567890")) {
		t.Errorf("a large number lost precision: %s", got)
	}
	clean := []byte(`{"z":1,  "a":"<b>"}`)
	if got := r.JSON(clean); !bytes.Equal(got, clean) {
		t.Errorf("untouched JSON rewritten: %s", got)
	}
	if got := r.JSON([]byte(`{bad s3cr3t-value`)); string(got) != `{bad s3cr3t-value` {
		t.Errorf("invalid JSON changed: %s", got)
	}
}

// TestWriterSplitSecret writes a secret split across two writes, and byte by
// byte: it never reaches the destination.
func TestWriterSplitSecret(t *testing.T) {
	const secret = "zq-PRIVATE-0123456789"
	r := New(secret)
	text := "line one\nthe secret is " + secret + " ok\nand sk-ant-api03-abcdefghijkl too\ntail " + secret
	for _, step := range []int{1, 3, 7, 17, len(text)} {
		var out bytes.Buffer
		w := NewWriter(r, &out)
		for i := 0; i < len(text); i += step {
			if _, err := w.Write([]byte(text[i:min(i+step, len(text))])); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		want := "line one\nthe secret is [REDACTED] ok\nand [REDACTED] too\ntail [REDACTED]"
		if out.String() != want {
			t.Errorf("step %d:\n got %q\nwant %q", step, out.String(), want)
		}
	}
}

// TestWriterLongLine: a line without a newline is written in bounded pieces,
// cut between words, so a secret in it is still masked.
func TestWriterLongLine(t *testing.T) {
	const secret = "zq-PRIVATE-0123456789"
	r := New(secret)
	var out bytes.Buffer
	w := NewWriter(r, &out)
	w.MaxLine = 1000
	word := "word " + secret + " "
	for range 2000 {
		w.Write([]byte(word))
		if len(w.buf) > w.MaxLine {
			t.Fatalf("held %d bytes", len(w.buf))
		}
	}
	w.Flush()
	if strings.Contains(out.String(), "PRIVATE") || strings.Count(out.String(), Mask) != 2000 {
		t.Errorf("%d masks; secret leaked: %v", strings.Count(out.String(), Mask), strings.Contains(out.String(), "PRIVATE"))
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("Authorization: Bearer abcdefghijk", "abcd")
	f.Add("X_TOKEN=[REDACTED]", "[REDACTED]")
	f.Add(`{"A_KEY":"v"}`, `"`)
	f.Fuzz(func(t *testing.T, text, secret string) {
		r := New(secret)
		got := r.String(text)
		// The secret never survives, unless it is made of the mask's own
		// characters, which a mask can form anew.
		if s := strings.TrimSpace(secret); len(s) >= MinSecretLen && strings.Contains(got, s) && !strings.ContainsAny(s, "[]REDACT") {
			t.Fatalf("secret %q survives in %q", s, got)
		}
		if json.Valid([]byte(text)) && !json.Valid(r.JSON([]byte(text))) {
			t.Fatalf("JSON(%q) is not JSON: %q", text, r.JSON([]byte(text)))
		}
		var out bytes.Buffer
		w := NewWriter(r, &out)
		w.MaxLine = 64
		half := len(text) / 2
		w.Write([]byte(text[:half]))
		w.Write([]byte(text[half:]))
		w.Flush()
	})
}

func TestWith(t *testing.T) {
	var nilR *Redactor
	r := nilR.With("first-secret").With("second-secret")
	if got := r.String("first-secret second-secret"); got != Mask+" "+Mask {
		t.Errorf("got %q", got)
	}
}
