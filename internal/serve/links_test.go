package serve

import (
	"strings"
	"testing"
	"time"
)

func TestSignedLinks(t *testing.T) {
	dir := t.TempDir()
	key, err := LoadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadKey(dir)
	if err != nil || string(again) != string(key) {
		t.Fatalf("the key read back differs (%v)", err)
	}
	now := time.Unix(1_800_000_000, 0)
	l := Link{Action: LinkAnswer, Run: "phase-1", Plan: "01-02", Checkpoint: 3, Answer: "clerk", Expires: now.Add(time.Hour).Unix()}
	token := strings.TrimPrefix(SignLink(key, l), "/l/")
	got, err := verifyLink(key, token, now)
	if err != nil || got.Answer != "clerk" || got.Nonce == "" {
		t.Fatalf("verify: %+v, %v", got, err)
	}
	if _, err := verifyLink(key, token, now.Add(2*time.Hour)); err != errLinkExpired {
		t.Errorf("an expired link: %v", err)
	}
	payload, sig, _ := strings.Cut(token, ".")
	for name, bad := range map[string]string{
		"other key":       strings.TrimPrefix(SignLink([]byte(strings.Repeat("x", 32)), l), "/l/"),
		"changed payload": payload[:len(payload)-2] + "AA." + sig,
		"no signature":    payload,
		"garbage":         "%%%.@@@",
	} {
		if _, err := verifyLink(key, bad, now); err != errLinkForged {
			t.Errorf("%s: %v, want forged", name, err)
		}
	}
	used, err := loadUsedLinks(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := used.use(got); err != nil {
		t.Fatal(err)
	}
	if err := used.use(got); err != errLinkUsed {
		t.Errorf("used twice: %v", err)
	}
	// A restarted server still knows it, until it expires.
	if re, err := loadUsedLinks(dir, now); err != nil || !re.seen(got) {
		t.Errorf("after a restart the link is not known as used (%v)", err)
	}
	if re, err := loadUsedLinks(dir, now.Add(2*time.Hour)); err != nil || re.seen(got) {
		t.Errorf("an expired link is still remembered (%v)", err)
	}
}

func TestValidItem(t *testing.T) {
	for id, ok := range map[string]bool{"01-02": true, "verify": true, "tester": true, "..": false, "a/b": false, "../x": false, "x..y": false, "": false, ".hidden": false} {
		if validItem(id) != ok {
			t.Errorf("validItem(%q) = %v, want %v", id, !ok, ok)
		}
	}
}
