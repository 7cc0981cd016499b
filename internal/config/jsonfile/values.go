package jsonfile

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// WholeNumber accepts a JSON number with no fractional part (3 or 3.0)
// within the range any int field could accept.
func WholeNumber(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// Duration accepts a Go duration string ("5m", "90s") or a number of seconds.
func Duration(raw json.RawMessage) (time.Duration, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		v, err := time.ParseDuration(s)
		return v, err == nil
	}
	var secs float64
	if json.Unmarshal(raw, &secs) != nil {
		return 0, false
	}
	ns := secs * float64(time.Second)
	if math.IsNaN(ns) || ns >= math.MaxInt64 || ns <= math.MinInt64 {
		return 0, false
	}
	return time.Duration(ns), true
}

// Encode writes a leaf value without escaping <, > and &, which JSON does
// not require and which would make URLs and commands unreadable.
func Encode(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode ends with a newline
	return nil
}

// ShortDuration writes 5*time.Minute as "5m", not Go's "5m0s".
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
