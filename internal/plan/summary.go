package plan

import (
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// selfCheckRE matches the verdict line executors end a SUMMARY with:
// "## Self-Check: PASSED", "## Self-check: failed — 2 files missing".
var selfCheckRE = regexp.MustCompile(`(?i)^\s{0,3}(?:#{1,6}\s*)?(?:\*\*)?self[- ]?check\s*:?\s*(?:\*\*)?\s*(passed|failed)\b`)

// quietSummaryKeys are frequent keys of GSD summaries that hive stores without a note.
var quietSummaryKeys = map[string]bool{"requirements-completed": true, "started": true, "issues-created": true}

// ParseSummary reads one NN-MM-SUMMARY.md. It always returns a Summary, even
// when the frontmatter is broken, because the Self-Check verdict in the body is
// what resume and spot-checks need most. It never panics.
func ParseSummary(p string, data []byte) (*Summary, []Diagnostic) {
	if p == "" {
		p = "SUMMARY.md"
	}
	ds := &diags{file: p}
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	s := &Summary{Path: p, PlanID: strings.TrimSuffix(base, "-SUMMARY.md"), Lines: map[string]int{}}
	if s.PlanID == base {
		s.PlanID = strings.TrimSuffix(base, path.Ext(base))
	}
	// A frontmatter nobody can read costs only its details: the plan is done
	// when the Self-Check in the body passed, so that is a warning here.
	broken := &diags{file: p}
	doc, ok := splitDocument(data, broken)
	if !ok {
		// Without a closing fence the whole file is still worth a look for the verdict.
		doc.body, doc.bodyOff = doc.text, 0
	} else if doc.hasFM {
		if m, ok := doc.parseFrontmatter(broken); ok {
			readSummaryFrontmatter(s, doc, m, ds)
			doc.checkBudget(ds)
		}
	}
	readSummaryBody(s, doc.body)
	for _, d := range broken.list {
		if d.Severity == SeverityError {
			d.Severity = SeverityWarning
			d.Message += "; hive ignores the frontmatter, and the plan counts as done when the Self-Check passed"
		}
		ds.list = append(ds.list, d)
	}
	sortDiagnostics(ds.list)
	return s, ds.list
}

func readSummaryFrontmatter(s *Summary, doc *document, m *yaml.Node, ds *diags) {
	str := func(k fmKey) string {
		v, ok := scalar(k.value)
		if !ok {
			v = doc.flatten(k.value, 0)
		}
		return v
	}
	for _, k := range doc.keys(m) {
		switch k.name {
		case "phase":
			s.Phase = str(k)
		case "plan":
			s.Plan = str(k)
		case "subsystem":
			s.Subsystem = str(k)
		case "tags":
			s.Tags = doc.texts(k.value)
		case "requires":
			s.Requires = doc.value(k.value, 0)
		case "provides":
			s.Provides = doc.value(k.value, 0)
		case "affects":
			s.Affects = doc.value(k.value, 0)
		case "tech-stack", "tech_stack":
			if v, ok := doc.value(k.value, 0).(map[string]any); ok {
				s.TechStack = v
			} else if !isNull(k.value) {
				ds.warnf(k.line, "write tech-stack: {added: [...], patterns: [...]}", "tech-stack is %s, not a mapping; ignored", describe(k.value))
			}
		case "key-files", "key_files":
			if isNull(k.value) {
				continue
			}
			if k.value.Kind != yaml.MappingNode {
				ds.warnf(k.line, "write key-files: {created: [...], modified: [...]}", "key-files is %s, not a mapping; ignored", describe(k.value))
				continue
			}
			s.Lines["key-files"] = k.line
			for _, kf := range doc.keys(k.value) {
				var files *[]string
				switch kf.name {
				case "created":
					files = &s.KeyFilesCreated
				case "modified":
					files = &s.KeyFilesModified
				default:
					continue
				}
				*files = cleanFiles(doc.texts(kf.value))
				for _, f := range *files {
					if _, err := SafeRelPath(f); err != nil {
						// What a finished plan says it touched: hive never
						// reads or writes it from here (a new SUMMARY's
						// spot-check refuses such a key file).
						ds.warnf(firstLine(kf.line, k.line, 1), "list only files inside the repository, relative to its root, such as src/app.ts", "key-files.%s: %v; hive never reads it", kf.name, err)
					}
				}
			}
		case "key-decisions", "key_decisions":
			s.KeyDecisions = doc.texts(k.value)
		case "patterns-established", "patterns_established":
			s.PatternsEstablished = doc.texts(k.value)
		case "duration":
			s.Duration = str(k)
		case "completed":
			s.Completed = str(k)
		default:
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[k.name] = doc.value(k.value, 0)
			if !quietSummaryKeys[k.name] && k.name != "" {
				ds.notef(k.line, "", "frontmatter key %q is not one hive uses; kept and ignored", k.name)
			}
		}
	}
}

// cleanFiles strips the annotations people add to file lists ("`a.ts` — store").
func cleanFiles(in []string) []string {
	var out []string
	for _, f := range in {
		if c := cleanFile(f); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// readSummaryBody finds the one-liner and the Self-Check verdict. The last
// verdict wins: a re-run appends a new one below the old.
func readSummaryBody(s *Summary, body string) {
	hs := headings(body)
	start, end := 0, len(body)
	for i, h := range hs {
		if h.level == 1 {
			start = h.body
			for _, n := range hs[i+1:] {
				if n.level <= 2 {
					end = n.off
					break
				}
			}
			break
		}
	}
	if start == 0 && len(hs) > 0 {
		end = hs[0].off
	}
	s.OneLiner = oneLiner(body[start:end])
	for off := 0; off < len(body); {
		line, next := lineAt(body, off)
		if m := selfCheckRE.FindStringSubmatch(line); m != nil {
			s.SelfCheck = strings.ToUpper(m[1])
		}
		off = next
	}
}

// metaLineRE is a line of bold-labelled metadata ("**Status:** Complete",
// "**Wave:** 1"): what a summary records, not what was built.
var metaLineRE = regexp.MustCompile(`^\*\*(?:[\w-]+ ?){1,3}:\*\*\s*[^*]{0,40}$`)

// oneLiner returns the first line written wholly in bold, else the first
// paragraph, leaving out lines of metadata.
func oneLiner(text string) string {
	var para []string
	first := ""
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if metaLineRE.MatchString(t) && !strings.HasPrefix(strings.ToLower(t), "**one-liner") {
			continue
		}
		if len(t) > 4 && strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**") && !strings.Contains(t[2:len(t)-2], "**") {
			return strings.TrimSpace(t[2 : len(t)-2])
		}
		switch {
		case t == "" && len(para) > 0 && first == "":
			first = strings.Join(para, " ")
		case t != "" && first == "":
			para = append(para, t)
		}
	}
	if first == "" {
		first = strings.Join(para, " ")
	}
	// GSD's template labels the line: "**One-liner:** what was built".
	for _, label := range []string{"**One-liner:**", "**One-liner**:", "One-liner:"} {
		if rest, ok := strings.CutPrefix(first, label); ok {
			first = strings.TrimSpace(rest)
			break
		}
	}
	return truncate(first, 300)
}
