package tracking

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// State rewrites STATE.md (old may be empty: a minimal one is made). It sets
// the frontmatter keys hive owns, the "Current Position" fields and the
// "Session Continuity" fields Stopped at and Last session; every other line,
// frontmatter keys included, is kept byte for byte.
func State(old string, p Phase) string {
	ls := splitLines(old)
	eol := newline(ls)
	fmEnd := frontmatterEnd(ls)
	body := ls[fmEnd+1:]
	if strings.TrimSpace(joinLines(body)) == "" {
		body = insertLines(nil, 0, eol, "# Project State", "", "## Current Position", "", "## Session Continuity")
	} else {
		body = append([]line{}, body...)
	}
	body = setPosition(body, p, eol)

	var front []line
	if fmEnd < 0 {
		front = newFrontmatter(p, eol)
	} else {
		front = setFrontmatter(ls[:fmEnd+1], p, eol)
	}
	return joinLines(append(front, body...))
}

// frontmatterEnd is the index of the line closing the YAML frontmatter that
// opens the file, -1 if there is none.
func frontmatterEnd(ls []line) int {
	if len(ls) == 0 || ls[0].text != "---" {
		return -1
	}
	for i := 1; i < len(ls); i++ {
		if ls[i].text == "---" || ls[i].text == "..." {
			return i
		}
	}
	return -1
}

// stateStatus is the frontmatter status hive writes.
func (p Phase) stateStatus() string {
	if p.Complete {
		return "phase_complete"
	}
	return "executing"
}

// frontmatterKey is a key hive owns in STATE.md's frontmatter.
type frontmatterKey struct {
	name, value string
	quoted      bool
}

func (k frontmatterKey) text() string {
	if k.quoted {
		return strconv.Quote(k.value)
	}
	return k.value
}

// ownedKeys are the top-level keys hive sets, in the order it writes them.
func (p Phase) ownedKeys() []frontmatterKey {
	keys := []frontmatterKey{
		{name: "status", value: p.stateStatus()},
		{name: "current_phase", value: p.Number, quoted: true},
		{name: "stopped_at", value: p.Activity, quoted: true},
	}
	if !p.Now.IsZero() {
		keys = append(keys, frontmatterKey{name: "last_updated", value: p.Now.UTC().Format(time.RFC3339), quoted: true})
	}
	return keys
}

// progressKeys are the keys hive sets under "progress:".
func (p Phase) progressKeys() []frontmatterKey {
	total, done := p.plans()
	return []frontmatterKey{
		{name: "total_plans", value: strconv.Itoa(total)},
		{name: "completed_plans", value: strconv.Itoa(done)},
		{name: "percent", value: strconv.Itoa(p.percent())},
	}
}

func newFrontmatter(p Phase, eol string) []line {
	text := []string{"---", "gsd_state_version: 1.0"}
	for _, k := range p.ownedKeys() {
		text = append(text, k.name+": "+k.text())
	}
	text = append(text, "progress:")
	for _, k := range p.progressKeys() {
		text = append(text, "  "+k.name+": "+k.text())
	}
	return insertLines(nil, 0, eol, append(text, "---")...)
}

var yamlKeyRE = regexp.MustCompile(`^(\s*)([A-Za-z_][A-Za-z0-9_.-]*)\s*:(.*)$`)

// setFrontmatter sets hive's keys in the frontmatter fm (its "---" lines
// included) and keeps every other line: GSD's milestone, milestone_name,
// last_activity, progress.total_phases and keys hive has never heard of.
// A key whose value does not change keeps its bytes (its quoting too).
func setFrontmatter(fm []line, p Phase, eol string) []line {
	fm = append([]line{}, fm...)
	owned := map[string]frontmatterKey{}
	for _, k := range p.ownedKeys() {
		owned[k.name] = k
	}
	children := map[string]frontmatterKey{}
	for _, k := range p.progressKeys() {
		children[k.name] = k
	}
	seen := map[string]bool{}
	progress, progressEnd, childIndent := -1, -1, "  "
	parent := ""
	for i := 1; i < len(fm)-1; i++ {
		m := yamlKeyRE.FindStringSubmatch(fm[i].text)
		if m == nil {
			continue
		}
		indent, name, rest := m[1], m[2], m[3]
		if indent == "" {
			parent = name
			if name == "progress" && progress < 0 {
				progress, progressEnd = i, i
				if strings.TrimSpace(rest) != "" {
					// A flow mapping ("progress: {…}"): hive does not
					// rewrite a form it would have to reformat.
					progress = -2
				}
				continue
			}
			if k, ok := owned[name]; ok && !seen[name] {
				seen[name] = true
				fm[i].text = setYAMLValue(fm[i].text, len(fm[i].text)-len(rest), k)
			}
			continue
		}
		if parent != "progress" || progress < 0 {
			continue
		}
		progressEnd, childIndent = i, indent
		if k, ok := children[name]; ok && !seen["progress."+name] {
			seen["progress."+name] = true
			fm[i].text = setYAMLValue(fm[i].text, len(fm[i].text)-len(rest), k)
		}
	}
	// Keys the file lacks: progress keys at the end of the progress block,
	// top-level keys before it (or before the closing "---").
	var addChildren []string
	for _, k := range p.progressKeys() {
		if !seen["progress."+k.name] {
			addChildren = append(addChildren, childIndent+k.name+": "+k.text())
		}
	}
	var addTop []string
	for _, k := range p.ownedKeys() {
		if !seen[k.name] {
			addTop = append(addTop, k.name+": "+k.text())
		}
	}
	switch {
	case progress >= 0:
		fm = insertLines(fm, progressEnd+1, eol, addChildren...)
		fm = insertLines(fm, progress, eol, addTop...)
	case progress == -1:
		addTop = append(addTop, "progress:")
		for _, k := range p.progressKeys() {
			addTop = append(addTop, "  "+k.name+": "+k.text())
		}
		fm = insertLines(fm, len(fm)-1, eol, addTop...)
	default:
		fm = insertLines(fm, len(fm)-1, eol, addTop...)
	}
	return fm
}

// setYAMLValue gives the key on line s (its value starting at byte at) k's
// value, unless the value it has already says the same.
func setYAMLValue(s string, at int, k frontmatterKey) string {
	if yamlScalar(s[at:]) == k.value {
		return s
	}
	return s[:at] + " " + k.text()
}

// yamlScalar is the value of a plain, single- or double-quoted YAML scalar.
func yamlScalar(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, `"`):
		if v, err := strconv.Unquote(s); err == nil {
			return v
		}
		return strings.Trim(s, `"`)
	case strings.HasPrefix(s, "'"):
		return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(s, "'"), "'"), "''", "'")
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i]) // a comment
	}
	return s
}

// stateField matches a "Key: value" line of STATE.md, bold or not
// ("**Phase:** 2 of 5"). Groups: the prefix up to the value, the key.
var stateFieldRE = regexp.MustCompile(`^((?:\*\*|__)?([A-Za-z][A-Za-z ]*?)(?::\*\*|\*\*:|:__|__:|:)\s*)(.*)$`)

var (
	positionKeys = []string{"Phase", "Plan", "Status", "Last activity", "Progress"}
	sessionKeys  = []string{"Stopped at", "Last session"}
	phaseOfRE    = regexp.MustCompile(`^\S+\s+of\s+(\S+)`)
	// activityDateRE is the date that opens a Last activity value, with
	// its separator: "2026-01-12 — ".
	activityDateRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[ T][0-9:]+)?\s*(?:—|–|--|-)\s*`)
)

// setPosition sets the Current Position and Session Continuity fields of the
// body; Current Position fields the file lacks are added.
func setPosition(body []line, p Phase, eol string) []line {
	code := codeLines(body)
	pos, hasPos := section(body, code, "current position")
	fields := findFields(body, code, pos, positionKeys)
	values := positionValues(body, fields, p)
	for _, k := range positionKeys {
		if i, ok := fields[k]; ok {
			body[i].text = setField(body[i].text, values[k])
		}
	}
	sess, _ := section(body, code, "session continuity")
	sessionValues := map[string]string{"Stopped at": p.Activity, "Last session": p.date()}
	for k, i := range findFields(body, code, sess, sessionKeys) {
		if v := sessionValues[k]; v != "" || k == "Stopped at" {
			body[i].text = setField(body[i].text, v)
		}
	}

	// Fields GSD expects that the file lacks.
	var missing []string
	for _, k := range positionKeys[:4] {
		if _, ok := fields[k]; !ok {
			missing = append(missing, k+": "+values[k])
		}
	}
	if _, ok := fields["Progress"]; !ok {
		missing = append(missing, "", "Progress: "+values["Progress"])
	}
	if len(fields) == 0 {
		// No field at all: the block goes under the heading (made if need be).
		if !hasPos {
			if n := len(body); n > 0 && body[n-1].eol == "" {
				body[n-1].eol = eol
			}
			body = insertLines(body, len(body), eol, "", "## Current Position", "")
			pos = [2]int{len(body), len(body)}
		}
		at := pos[0]
		if at < len(body) && strings.TrimSpace(body[at].text) == "" {
			at++
		}
		if at < len(body) && strings.TrimSpace(body[at].text) != "" {
			missing = append(missing, "") // keep the next section apart
		}
		return insertLines(body, at, eol, missing...)
	}
	if len(missing) == 0 {
		return body
	}
	last := 0
	for _, i := range fields {
		last = max(last, i)
	}
	if n := len(body); last == n-1 && body[last].eol == "" {
		body[last].eol = eol
	}
	return insertLines(body, last+1, eol, missing...)
}

// section finds the lines under the heading whose text contains name (case
// aside), down to the next heading of the same or a higher level: [first,
// end). Without such a heading the whole body is the section (ok false).
func section(body []line, code []bool, name string) ([2]int, bool) {
	for i, l := range body {
		level, text := heading(l.text)
		if code[i] || level == 0 || !strings.Contains(strings.ToLower(text), name) {
			continue
		}
		end := len(body)
		for j := i + 1; j < len(body); j++ {
			if lv, _ := heading(body[j].text); lv > 0 && lv <= level && !code[j] {
				end = j
				break
			}
		}
		return [2]int{i + 1, end}, true
	}
	return [2]int{0, len(body)}, false
}

// findFields finds the first line of each key in the section.
func findFields(body []line, code []bool, sec [2]int, keys []string) map[string]int {
	found := map[string]int{}
	for i := sec[0]; i < sec[1]; i++ {
		if code[i] {
			continue
		}
		m := stateFieldRE.FindStringSubmatch(body[i].text)
		if m == nil {
			continue
		}
		for _, k := range keys {
			if _, seen := found[k]; !seen && strings.EqualFold(m[2], k) {
				found[k] = i
			}
		}
	}
	return found
}

// positionValues are the new values of the Current Position fields.
func positionValues(body []line, fields map[string]int, p Phase) map[string]string {
	num := phaseNum(p.Number)
	phase := fmt.Sprintf("%s (%s)", num, p.Name)
	activity := p.Activity
	if i, ok := fields["Phase"]; ok {
		// Keep the phase count the file states ("1 of 2").
		if m := phaseOfRE.FindStringSubmatch(fieldValue(body[i].text)); m != nil {
			phase = fmt.Sprintf("%s of %s (%s)", num, m[1], p.Name)
		}
	}
	if d := p.date(); d != "" {
		activity = d + " — " + p.Activity
	} else if i, ok := fields["Last activity"]; ok {
		// No date known: the activity changes, the file's date stays.
		activity = activityDateRE.FindString(fieldValue(body[i].text)) + p.Activity
	}
	return map[string]string{
		"Phase":         phase,
		"Plan":          fmt.Sprintf("%d of %d in current phase", p.done(), len(p.Plans)),
		"Status":        p.Status,
		"Last activity": activity,
		"Progress":      Bar(p.percent()),
	}
}

func fieldValue(s string) string {
	m := stateFieldRE.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[3]
}

// setField gives a field line its value, keeping its key as written; a value
// that does not change keeps its bytes.
func setField(s, value string) string {
	m := stateFieldRE.FindStringSubmatchIndex(s)
	if m == nil || strings.TrimSpace(s[m[6]:m[7]]) == value {
		return s
	}
	prefix := s[:m[3]]
	if !strings.HasSuffix(prefix, " ") && !strings.HasSuffix(prefix, "\t") {
		prefix += " "
	}
	return prefix + value
}
