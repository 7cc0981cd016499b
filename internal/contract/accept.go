package contract

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// Accept reads a report as its model meant it where the words differ from
// the contract's but the meaning is clear, before Validate judges it: a
// value written another way ("Approved", "changes-requested"), or in a word
// of the same meaning ("lgtm", "approved_with_comments", "critical"); a
// number or a boolean written as a string; a tester's "passed": true, whose
// counts are read from the report's text. It rewrites r's keys that hive
// does not type (those in Extra) in place, and returns one sentence a
// reading (notes, for the run's output) and the contradictions it found
// (errs, worded as Validate's errors are). What is ambiguous otherwise is
// left as it was, for Validate to refuse with the field and the values it
// takes. text is what the agent wrote around its report, where counts may
// be found; the report's own strings are searched first.
func Accept(c Contract, r *work.Report, text string) (notes, errs []string) {
	if len(r.Extra) == 0 {
		return nil, nil
	}
	obj := reportMap(*r)
	for _, f := range c.Fields {
		if _, untyped := r.Extra[f.Name]; !untyped {
			continue // hive's typed fields were read by the protocol already
		}
		if v, ok := obj[f.Name]; ok {
			obj[f.Name] = acceptValue(f, v, f.Name, &notes)
		}
	}
	changed := acceptCounts(c, obj, text, &notes, &errs)
	if len(notes) == 0 && !changed {
		return nil, errs
	}
	bare := *r
	bare.Extra = nil
	typed := reportMap(bare)
	extra := map[string]json.RawMessage{} // a new map: the protocol's report shares the old one
	for k, v := range obj {
		if _, ok := typed[k]; ok {
			continue
		}
		if raw, err := json.Marshal(v); err == nil {
			extra[k] = raw
		}
	}
	r.Extra = extra
	return notes, errs
}

// acceptValue reads v as f asks for it, when it means one thing.
func acceptValue(f Field, v any, path string, notes *[]string) any {
	switch x := v.(type) {
	case string:
		switch f.Type {
		case TypeInteger, TypeNumber:
			if n, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				*notes = append(*notes, fmt.Sprintf("%s: the string %q read as the number %s", path, x, num(n)))
				return n
			}
		case TypeBoolean:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "yes":
				*notes = append(*notes, fmt.Sprintf("%s: %q read as true", path, x))
				return true
			case "false", "no":
				*notes = append(*notes, fmt.Sprintf("%s: %q read as false", path, x))
				return false
			}
		}
		if len(f.Values) == 0 || slices.Contains(f.Values, x) {
			return v
		}
		if to := sameValue(x, f.Values); to != "" {
			*notes = append(*notes, fmt.Sprintf("%s: %q read as %q", path, x, to))
			return to
		}
	case []any:
		if f.Items == nil {
			return v
		}
		out := slices.Clone(x)
		for i, it := range out {
			out[i] = acceptValue(*f.Items, it, fmt.Sprintf("%s[%d]", path, i), notes)
		}
		return out
	case map[string]any:
		if len(f.Fields) == 0 {
			return v
		}
		out := maps.Clone(x)
		for _, sub := range f.Fields {
			if sv, ok := out[sub.Name]; ok {
				out[sub.Name] = acceptValue(sub, sv, path+"."+sub.Name, notes)
			}
		}
		return out
	}
	return v
}

// synonyms are the words models write for a contract's values, each read
// as the value only where a field takes it. An approval "with comments"
// (or suggestions, nits) is an approval: its comments are findings like
// any issue (pipeline reads them). Words of two meanings are left out:
// "comment" (a review that neither approves nor asks for changes),
// "approved_with_changes" (approved once changed?), "conditional".
var synonyms = map[string]string{
	"approve": "approved", "accepted": "approved", "lgtm": "approved",
	"approved_with_comments": "approved", "approved_with_suggestions": "approved", "approved_with_nits": "approved",
	"approved_with_minor_comments": "approved", "approved_with_minor_suggestions": "approved",
	"request_changes": "changes_requested", "changes_required": "changes_requested", "changes_needed": "changes_requested",
	"needs_changes": "changes_requested", "rejected": "changes_requested",
	"critical": "blocker", "major": "high", "minor": "low", "nit": "low", "trivial": "low",
}

// sameValue is the value of values that s means, or "".
func sameValue(s string, values []string) string {
	w := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(values, w) {
		return w
	}
	if to := synonyms[w]; to != "" && slices.Contains(values, to) {
		return to
	}
	return ""
}

// The count fields of a tester's report.
const (
	countRun    = "tests_run"
	countPassed = "passed"
	countFailed = "failed"
)

// acceptCounts reads a boolean passed (or failed) of a contract whose
// passed and failed are counts: passed: true says that the tests passed,
// and the counts are taken from tests_run, else from the report's text
// ("12 passed", "all 5 tests pass", go test -v's lines). Without counts
// found the boolean goes (hive runs the tests itself). Booleans that
// contradict each other or the counts found go too, with an error: which
// is right is not clear. It says whether it changed obj.
func acceptCounts(c Contract, obj map[string]any, text string, notes, errs *[]string) bool {
	if !isCount(c, countPassed) || !isCount(c, countFailed) {
		return false
	}
	passed, pBool := obj[countPassed].(bool)
	failedB, fBool := obj[countFailed].(bool)
	if !pBool && !fBool {
		return false
	}
	said := "passed: " + strconv.FormatBool(passed)
	if !pBool {
		said = "failed: " + strconv.FormatBool(failedB)
	}
	refuse := func(why string) bool {
		if pBool {
			delete(obj, countPassed)
		}
		if fBool {
			delete(obj, countFailed)
		}
		*errs = append(*errs, fmt.Sprintf("%s: %s; give passed and failed as the numbers of tests that passed and failed (whole numbers, 0 or more)", said, why))
		return true
	}
	ok := passed // what the booleans say: the tests passed
	if fBool {
		if pBool && passed == failedB {
			return refuse(fmt.Sprintf("and failed: %t say opposite things", failedB))
		}
		ok = !failedB
	}
	run, hasRun := obj[countRun].(float64)
	failedN, hasFailed := obj[countFailed].(float64)
	var p, f int
	var found bool
	switch {
	case hasRun && hasFailed:
		p, f, found = int(run-failedN), int(failedN), true
	case hasRun && ok:
		p, f, found = int(run), 0, true
	default:
		p, f, found = countsIn(append(reportStrings(obj), text)...)
	}
	if found && ok != (f == 0) {
		return refuse(fmt.Sprintf("but the report counts %d passed and %d failed", p, f))
	}
	if !found {
		delete(obj, countPassed)
		if fBool {
			delete(obj, countFailed)
		}
		what := "the tests passed"
		if !ok {
			what = "some tests failed"
		}
		*notes = append(*notes, fmt.Sprintf("%s read as %s; no counts found in the report (hive runs the tests itself)", said, what))
		return true
	}
	obj[countPassed], obj[countFailed] = float64(p), float64(f)
	if !hasRun {
		obj[countRun] = float64(p + f)
	}
	*notes = append(*notes, fmt.Sprintf("%s read with the counts in the report: %d passed, %d failed", said, p, f))
	return true
}

func isCount(c Contract, name string) bool {
	f, ok := c.Field(name)
	return ok && (f.Type == TypeInteger || f.Type == TypeNumber)
}

// reportStrings are the report's string values, its lists' included, in
// a stable order: where a model puts the output it read.
func reportStrings(obj map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, it := range x {
				walk(it)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(obj)
	return out
}

var (
	// "12 passed", "3 tests passing", "1 test failed", "0 failures": a
	// count before its word.
	countBefore = regexp.MustCompile(`(?i)\b(\d+)\s+(?:(?:unit|go|e2e)\s+)?(?:tests?\s+)?(passed|passing|pass|succeeded|failed|failing|failures?|fail)\b`)
	// "all 5 tests pass", "all 5 passed"
	allPass = regexp.MustCompile(`(?i)\ball\s+(\d+)\s+(?:(?:unit|go|e2e)\s+)?(?:tests?\s+)?(?:pass|passed|passing|succeeded)\b`)
	// "5/5 tests pass", "4 of 5 passed"
	ofPass = regexp.MustCompile(`(?i)\b(\d+)\s*(?:/|of)\s*(\d+)\s+(?:(?:unit|go|e2e)\s+)?(?:tests?\s+)?(?:pass|passed|passing|succeeded)\b`)
	// go test -v: "--- PASS: TestX", "--- FAIL: TestX"
	goVerbose = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL): \S+`)
)

// countsIn reads how many tests passed and failed from the first of texts
// that says it: counts beside their words, "all N pass", "N/M pass", or
// go test -v's lines.
func countsIn(texts ...string) (passed, failed int, found bool) {
	for _, t := range texts {
		if m := ofPass.FindStringSubmatch(t); m != nil {
			p, _ := strconv.Atoi(m[1])
			all, _ := strconv.Atoi(m[2])
			if p <= all {
				return p, all - p, true
			}
		}
		if m := allPass.FindStringSubmatch(t); m != nil {
			p, _ := strconv.Atoi(m[1])
			return p, 0, true
		}
		var sawPass, sawFail bool
		for _, m := range countBefore.FindAllStringSubmatch(t, -1) {
			n, _ := strconv.Atoi(m[1])
			switch w := strings.ToLower(m[2]); {
			case strings.HasPrefix(w, "fail"):
				failed += n
				sawFail = true
			default:
				passed += n
				sawPass = true
			}
		}
		if sawPass || sawFail {
			return passed, failed, true
		}
		if ms := goVerbose.FindAllStringSubmatch(t, -1); len(ms) > 0 {
			for _, m := range ms {
				if m[1] == "PASS" {
					passed++
				} else {
					failed++
				}
			}
			return passed, failed, true
		}
	}
	return 0, 0, false
}
