package protocol

import (
	"regexp"
	"strconv"
	"strings"
)

// DeviationData is a DEVIATION message: a Rule 4 architectural decision the
// executor will not take alone (seed 000 §3.1 "Deviation Rule 4 in Team
// Mode").
type DeviationData struct {
	Rule    string // "rule-4"; never ""
	Plan    string
	Task    string
	Details string // everything after the header lines, verbatim
	Raw     string // the whole message as written, for display
}

var ruleRe = regexp.MustCompile(`(?i)^rule[\s_-]*(\d+)\b`)

// parseDeviation reads "DEVIATION: rule-4\nPLAN: {id}\nTASK: {task}\n\n…".
// A DEVIATION: line that names no rule and has no PLAN/TASK lines is prose
// ("DEVIATION: none"), not a message.
func parseDeviation(block []string) (*DeviationData, bool) {
	d := &DeviationData{Raw: strings.Trim(strings.Join(block, "\n"), " \t\n")}
	k := 1
	for ; k < len(block); k++ {
		t := strings.TrimSpace(block[k])
		if t == "" {
			continue
		}
		var key, val string
		if m := plainFieldRe.FindStringSubmatch(t); m != nil {
			key, val = m[1], m[2]
		} else if m := fieldRe.FindStringSubmatch(stripBullet(t)); m != nil {
			key, val = m[1], m[2]
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "plan":
			d.Plan = planID(val)
			continue
		case "task":
			d.Task = strings.TrimSpace(val)
			continue
		}
		break
	}
	d.Details = trimBlank(block[k:])

	arg := classify(block[0]).arg
	switch m := ruleRe.FindStringSubmatch(arg); {
	case m != nil:
		d.Rule = "rule-" + strconv.Itoa(num(m[1]))
	case d.Plan == "" && d.Task == "":
		return nil, false
	default:
		d.Rule = normType(arg) // a slug of whatever the agent wrote
		if d.Rule == "" {
			d.Rule = TypeUnknown
		}
	}
	return d, true
}
