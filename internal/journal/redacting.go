package journal

import "time"

// Masker masks secrets in a JSON payload and returns valid JSON;
// *redact.Redactor is one. Kept as an interface so that the journal imports
// no other hive package.
type Masker interface {
	JSON(payload []byte) []byte
}

// Redacting returns a Journal that masks the strings of every event payload
// with m before it reaches j, so no secret is ever stored. Reads go to j
// unchanged. A payload m leaves invalid is refused as any invalid payload is.
func Redacting(j Journal, m Masker) Journal {
	return redacting{Journal: j, m: m}
}

type redacting struct {
	Journal
	m Masker
}

// Append implements Journal.
func (r redacting) Append(run int64, typ string, at time.Time, payload []byte) (int64, error) {
	if err := CheckAppend(typ, payload); err != nil {
		return r.Journal.Append(run, typ, at, payload) // the same error, from j
	}
	return r.Journal.Append(run, typ, at, r.m.JSON(payload))
}
