package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/redact"
)

// TestRedactingNeverStoresSecret appends events whose payloads carry a
// configured secret and credential-shaped strings to a durable journal,
// then reads the database file itself: the secret is nowhere in it.
func TestRedactingNeverStoresSecret(t *testing.T) {
	const secret = "cfg-secret-Zx81QwErTy"
	path := filepath.Join(t.TempDir(), "j.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	j := Redacting(db, redact.New(secret))
	r := mustCreate(t, j, "01")
	for _, p := range []string{
		`{"plan":"01-01","text":"the key is ` + secret + `"}`,
		`{"lines":["a","Authorization: Bearer ` + secret + `"],"n":1}`,
		`{"answer":"use sk-ant-api03-aaaaaaaaaaaaaaaaaaaa please"}`,
		`"` + secret + `"`,
	} {
		mustAppend(t, j, r.ID, "agent.text", p)
	}
	recs, err := j.Events(r.ID, 0)
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d events, %v", len(recs), err)
	}
	for _, rec := range recs {
		if bytes.Contains(rec.Payload, []byte(secret)) || bytes.Contains(rec.Payload, []byte("sk-ant-")) || !bytes.Contains(rec.Payload, []byte(redact.Mask)) {
			t.Errorf("stored payload %s", rec.Payload)
		}
	}
	if !strings.Contains(string(recs[0].Payload), `"plan":"01-01"`) {
		t.Errorf("the rest of the payload is lost: %s", recs[0].Payload)
	}
	if _, err := j.Append(r.ID, "x", t0, []byte(`{bad`)); err == nil {
		t.Error("invalid JSON accepted")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		if b, err := readIfExists(f); err != nil {
			t.Fatal(err)
		} else if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
}

func readIfExists(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return b, err
}
