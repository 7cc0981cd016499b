package cli

import (
	"encoding/json"
	"io"
)

// printJSON writes v as indented JSON: what every --json of a command
// that prints one value prints.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
