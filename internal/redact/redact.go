package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask replaces a secret.
const Mask = "[REDACTED]"

// MinSecretLen is the shortest configured value that is masked: shorter
// values ("1", "on") would mask ordinary text and protect nothing.
const MinSecretLen = 4

// pattern is a credential shape; group 1, when the expression has it, is
// kept (the "Authorization: Bearer " before the token).
type pattern struct {
	re   *regexp.Regexp
	keep bool
	// hints are lower-case strings one of which any match contains: a
	// text without them skips the regular expression, which keeps
	// masking cheap on the bulk of agent output.
	hints []string
}

// patterns are the credential shapes masked whatever the config says. They
// are deliberately narrow: a log that loses ordinary words is a log nobody
// can read.
var patterns = []pattern{
	{re: regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{8,}`), hints: []string{"sk-ant-"}},                                 // Anthropic
	{re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}`), hints: []string{"sk-"}},            // OpenAI
	{re: regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`), hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}}, // GitHub tokens
	{re: regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`), hints: []string{"github_pat_"}},                        // GitHub fine-grained tokens
	{re: regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), hints: []string{"akia", "asia"}},                        // AWS access key ids
	{re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`), hints: []string{"xox"}},                              // Slack
	// Authorization: Bearer x / Basic x / token x / a bare value.
	{re: regexp.MustCompile(`(?i)(\bauthorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?)[^\s"',;]+`), keep: true, hints: []string{"authorization"}},
	{re: regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/\-]{8,}=*`), keep: true, hints: []string{"bearer"}},
	{re: regexp.MustCompile(`(?i)(\bx-api-key["']?\s*[:=]\s*["']?)[^\s"',;]+`), keep: true, hints: []string{"x-api-key"}},
	// NAME_KEY=value, "NAME_TOKEN": "value", export NAME_SECRET='value'.
	{re: regexp.MustCompile(`(\b[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PAT)["']?\s*[=:]\s*["']?)[^\s"'` + "`" + `,;]+`), keep: true,
		hints: []string{"_key", "_token", "_secret", "_password", "_passwd", "_pat"}},
}

// hinted reports whether lower (a text in lower case) holds one of p's hints.
func (p pattern) hinted(lower string) bool {
	for _, h := range p.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// secretName is a key whose value is a secret: {"GITHUB_TOKEN": "..."}.
var secretName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PAT)$`)

// Redactor masks secrets; the zero value and nil mask the patterns only.
// It is safe for concurrent use.
type Redactor struct {
	values []string // longest first, so a secret containing another is masked whole
}

// New returns a Redactor for the given secret values (and the built-in
// patterns). Values shorter than MinSecretLen are ignored. A value is also
// masked in its JSON-escaped form, as it appears inside stream-json lines.
func New(values ...string) *Redactor {
	seen := map[string]bool{}
	var vs []string
	add := func(v string) {
		if len(v) >= MinSecretLen && !seen[v] {
			seen[v] = true
			vs = append(vs, v)
		}
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		add(v)
		if b, err := json.Marshal(v); err == nil {
			add(string(b[1 : len(b)-1]))
		}
	}
	slices.SortFunc(vs, func(a, b string) int { return len(b) - len(a) })
	return &Redactor{values: vs}
}

// With returns a Redactor that masks r's values and values too; r may be nil.
func (r *Redactor) With(values ...string) *Redactor {
	if r != nil {
		values = append(values, r.values...)
	}
	return New(values...)
}

// FromEnv returns a Redactor for the values of the named environment
// variables, read with lookup (os.LookupEnv); unset names are skipped.
func FromEnv(names []string, lookup func(string) (string, bool)) *Redactor {
	var vs []string
	for _, n := range names {
		if v, ok := lookup(n); ok {
			vs = append(vs, v)
		}
	}
	return New(vs...)
}

// String returns s with every secret masked.
func (r *Redactor) String(s string) string {
	if r != nil {
		for _, v := range r.values {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, Mask)
			}
		}
	}
	lower := strings.ToLower(s)
	for _, p := range patterns {
		if !p.hinted(lower) || !p.re.MatchString(s) {
			continue
		}
		if p.keep {
			s = p.re.ReplaceAllString(s, "${1}"+Mask)
		} else {
			s = p.re.ReplaceAllLiteralString(s, Mask)
		}
	}
	return s
}

// Bytes returns b with every secret masked; b itself is not changed.
func (r *Redactor) Bytes(b []byte) []byte {
	if r != nil {
		for _, v := range r.values {
			if bytes.Contains(b, []byte(v)) {
				b = bytes.ReplaceAll(b, []byte(v), []byte(Mask))
			}
		}
	}
	lower := strings.ToLower(string(b))
	for _, p := range patterns {
		if !p.hinted(lower) || !p.re.Match(b) {
			continue
		}
		if p.keep {
			b = p.re.ReplaceAll(b, []byte("${1}"+Mask))
		} else {
			b = p.re.ReplaceAllLiteral(b, []byte(Mask))
		}
	}
	return b
}

// JSON masks the secrets in every string of a JSON document (keys are
// kept). It returns doc unchanged when nothing was masked, so the stored
// bytes stay as the caller wrote them; otherwise it re-encodes, which may
// reorder object keys. Invalid JSON is returned unchanged.
func (r *Redactor) JSON(doc []byte) []byte {
	if !bytes.Equal(r.Bytes(doc), doc) {
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return doc
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(r.value(v)) != nil {
			return doc
		}
		return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	return doc
}

func (r *Redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.String(v)
	case []any:
		for i := range v {
			v[i] = r.value(v[i])
		}
	case map[string]any:
		for k := range v {
			if s, ok := v[k].(string); ok && secretName.MatchString(k) && s != "" {
				v[k] = Mask
				continue
			}
			v[k] = r.value(v[k])
		}
	}
	return v
}

// Writer masks secrets in what is written through it, a line at a time: a
// partial line is held until its newline arrives (or Flush), so a secret
// split across writes is still masked. A line longer than MaxLine is
// written in pieces cut at a space or quote where one is near, so memory
// stays bounded; only a secret spanning such a cut could escape. Safe for
// concurrent use; each Write should be whole lines when writers share one
// destination.
type Writer struct {
	r  *Redactor
	w  io.Writer
	mu sync.Mutex
	// MaxLine bounds the held partial line; 0 means DefaultMaxLine.
	MaxLine int
	buf     []byte
}

// DefaultMaxLine is the longest partial line a Writer holds.
const DefaultMaxLine = 1 << 20

// NewWriter returns a Writer that writes to w with r's secrets masked.
func NewWriter(r *Redactor, w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write implements io.Writer. It reports len(p) written unless w fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	max := w.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	w.buf = append(w.buf, p...)
	if i := bytes.LastIndexByte(w.buf, '\n'); i >= 0 {
		if err := w.emit(w.buf[:i+1]); err != nil {
			return 0, err
		}
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
	}
	for len(w.buf) > max {
		cut := cutPoint(w.buf, max)
		if err := w.emit(w.buf[:cut]); err != nil {
			return 0, err
		}
		w.buf = append(w.buf[:0], w.buf[cut:]...)
	}
	if cap(w.buf) > 4*max && len(w.buf) < max { // give back a grown buffer
		w.buf = append([]byte(nil), w.buf...)
	}
	return len(p), nil
}

// cutPoint picks where to split an over-long line: after the last space or
// quote in the second half of its first max bytes, else at max.
func cutPoint(b []byte, max int) int {
	for i := max - 1; i >= max/2; i-- {
		switch b[i] {
		case ' ', '\t', '"', ',':
			return i + 1
		}
	}
	return max
}

func (w *Writer) emit(b []byte) error {
	_, err := w.w.Write(w.r.Bytes(b))
	return err
}

// Flush writes the held partial line.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	err := w.emit(w.buf)
	w.buf = w.buf[:0]
	return err
}
