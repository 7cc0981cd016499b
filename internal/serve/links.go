package serve

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Link actions.
const (
	LinkOpen   = "open"   // open the checkpoint's page (and only it)
	LinkAnswer = "answer" // give the answer the link carries
)

// Link is what a signed link grants: one action on one checkpoint, once,
// until it expires.
type Link struct {
	Action string `json:"a"`
	// Phase names the phase whose unfinished run holds the checkpoint (a
	// notification knows the phase, not the run); Run the run itself.
	Phase      string `json:"ph,omitempty"`
	Run        string `json:"r,omitempty"`
	Plan       string `json:"p"`
	Checkpoint int    `json:"c"`
	Answer     string `json:"t,omitempty"` // LinkAnswer's answer
	Nonce      string `json:"n"`
	Expires    int64  `json:"e"` // Unix seconds
}

// Errors of a link that is not (or no longer) good.
var (
	errLinkForged  = errors.New("this link is not one hive signed: ask for a new one")
	errLinkExpired = errors.New("this link has expired: open the checkpoint from the dashboard, or wait for the next notification")
	errLinkUsed    = errors.New("this link was used already: each link works once")
)

// KeyFile is where the signing key lives, in the repository's .hive/: the
// hive process that notifies signs with it, hive serve verifies.
const KeyFile = "serve.key"

// LoadKey reads the repository's signing key, creating it (random, 32
// bytes, readable by its owner only) on first use.
func LoadKey(root string) ([]byte, error) {
	dir := filepath.Join(root, ".hive")
	path := filepath.Join(dir, KeyFile)
	if b, err := os.ReadFile(path); err == nil {
		return decodeKey(path, b)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	key := make([]byte, 32)
	rand.Read(key)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		// Another process made it meanwhile: use that one. It may not be
		// written yet: wait for it briefly.
		for range 50 {
			if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
				return decodeKey(path, b)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return nil, fmt.Errorf("signing key %s is empty: remove it and start again", path)
	}
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return key, nil
}

func decodeKey(path string, b []byte) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < 32 {
		return nil, fmt.Errorf("signing key %s is damaged: remove it (links signed with it stop working) and start again", path)
	}
	return key, nil
}

// SignLink returns the path (/l/TOKEN) of a link granting l, signed with
// key. A fresh nonce makes each link single-use on its own.
func SignLink(key []byte, l Link) string {
	if l.Nonce == "" {
		l.Nonce = randomToken(12)
	}
	payload, _ := json.Marshal(l) // plain data: cannot fail
	p := base64.RawURLEncoding.EncodeToString(payload)
	return "/l/" + p + "." + base64.RawURLEncoding.EncodeToString(sign(key, p))
}

func sign(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("hive-link-v1\x00" + payload))
	return m.Sum(nil)
}

// verifyLink checks token's signature and expiry; it does not consume it.
func verifyLink(key []byte, token string, now time.Time) (Link, error) {
	p, s, ok := strings.Cut(token, ".")
	if !ok || len(token) > 4096 {
		return Link{}, errLinkForged
	}
	sig, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !hmac.Equal(sig, sign(key, p)) {
		return Link{}, errLinkForged
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	var l Link
	if err != nil || json.Unmarshal(payload, &l) != nil || l.Nonce == "" || (l.Action != LinkOpen && l.Action != LinkAnswer) {
		return Link{}, errLinkForged
	}
	if now.Unix() >= l.Expires {
		return Link{}, errLinkExpired
	}
	return l, nil
}

// usedLinks remembers the nonces of the links used, until they expire,
// in a file so that a restarted hive serve still refuses them.
type usedLinks struct {
	mu   sync.Mutex
	path string
	used map[string]int64 // nonce → expiry
}

const usedFile = "serve-links.used"

func loadUsedLinks(root string, now time.Time) (*usedLinks, error) {
	u := &usedLinks{path: filepath.Join(root, ".hive", usedFile), used: map[string]int64{}}
	f, err := os.Open(u.path)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return nil, fmt.Errorf("used links: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		nonce, exp, ok := strings.Cut(sc.Text(), " ")
		e, err := strconv.ParseInt(exp, 10, 64)
		if ok && err == nil && e > now.Unix() {
			u.used[nonce] = e
		}
	}
	return u, sc.Err()
}

// seen reports whether the link was used.
func (u *usedLinks) seen(l Link) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.used[l.Nonce]
	return ok
}

// use marks the link used; errLinkUsed when it was already. The mark is
// durable before use returns.
func (u *usedLinks) use(l Link) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.used[l.Nonce]; ok {
		return errLinkUsed
	}
	f, err := os.OpenFile(u.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("used links: %w", err)
	}
	_, err = fmt.Fprintf(f, "%s %d\n", l.Nonce, l.Expires)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("used links: %w", err)
	}
	u.used[l.Nonce] = l.Expires
	return nil
}

// randomToken returns n random bytes, base64url-encoded.
func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather)
	return base64.RawURLEncoding.EncodeToString(b)
}
