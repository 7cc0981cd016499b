package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Options says what to measure and how big.
type Options struct {
	Quick bool     // smaller sizes, for tests and a first look
	Seed  uint64   // of the random DAGs
	Only  []string // groups to run; empty means all
	// HiveBin is the hive binary that plays the sim agents (hive __sim);
	// empty means this process's own binary.
	HiveBin string
	// Tools is the folder holding the claude CLI (HIVE_TOOLS); empty means
	// look it up in PATH.
	Tools string
	// Temporal is the temporal CLI whose dev server the temporal group
	// runs on; empty means $HIVE_TEMPORAL, else .tools/temporal/temporal
	// here or in a folder above, else temporal in PATH.
	Temporal string
	// Log gets a line as each group starts; nil means quiet.
	Log io.Writer
}

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

// ErrorRow reports a group that could not be measured.
func ErrorRow(group, name string, err error) Row {
	return Row{Group: group, Name: name, Figure: "-", Status: Failed, Note: err.Error()}
}
