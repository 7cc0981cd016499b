package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Row statuses.
const (
	Pass    = "pass"
	Miss    = "miss"
	Info    = "info"    // a figure without a target of its own
	Skipped = "skipped" // could not be measured here; Note says why
	Failed  = "error"   // the measurement itself failed; Note says why
)

// Row is one measured figure.
type Row struct {
	Group  string  `json:"group"` // makespan, overhead, checkpoint, tokens, budget, resume, memory
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Figure string  `json:"figure"` // Value for humans, with its context
	Target string  `json:"target,omitempty"`
	Status string  `json:"status"`
	Note   string  `json:"note,omitempty"`
}

// Report is the outcome of a bench run.
type Report struct {
	Seed  uint64 `json:"seed"`
	Quick bool   `json:"quick"`
	CPUs  int    `json:"cpus"`
	Rows  []Row  `json:"rows"`
}

// Misses counts the rows that missed their target or failed to measure.
func (r Report) Misses() int {
	n := 0
	for _, row := range r.Rows {
		if row.Status == Miss || row.Status == Failed {
			n++
		}
	}
	return n
}

// WriteTable prints the report as an aligned table.
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tMEASURE\tFIGURE\tTARGET\tRESULT")
	for _, row := range r.Rows {
		result := row.Status
		if row.Note != "" {
			result += ": " + row.Note
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.Group, row.Name, row.Figure, orDash(row.Target), result)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	mode := "full"
	if r.Quick {
		mode = "quick"
	}
	_, err := fmt.Fprintf(w, "\n%s run, seed %d, %d CPUs; %d of %d rows missed or failed\n", mode, r.Seed, r.CPUs, r.Misses(), len(r.Rows))
	return err
}

// WriteJSON prints the report as one indented JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// Judge is Pass when ok, else Miss.
func Judge(ok bool) string {
	if ok {
		return Pass
	}
	return Miss
}
