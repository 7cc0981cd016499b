package parse

import (
	"path"
	"regexp"
	"strings"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/frontmatter"
	"github.com/hivectl/hive/internal/plan/markup"
	"github.com/hivectl/hive/internal/plan/planpath"
	"gopkg.in/yaml.v3"
)

// selfCheckRE matches the verdict line executors end a SUMMARY with:
// "## Self-Check: PASSED", "## Self-check: failed — 2 files missing".
var selfCheckRE = regexp.MustCompile(`(?i)^\s{0,3}(?:#{1,6}\s*)?(?:\*\*)?self[- ]?check\s*:?\s*(?:\*\*)?\s*(passed|failed)\b`)

// quietSummaryKeys are frequent keys of GSD summaries that hive stores without a note.
var quietSummaryKeys = map[string]bool{"requirements-completed": true, "started": true, "issues-created": true}

// Summary reads one NN-MM-SUMMARY.md. It always returns a plan.Summary, even
// when the frontmatter is broken, because the Self-Check verdict in the body is
// what resume and spot-checks need most. It never panics.
func Summary(p string, data []byte) (*plan.Summary, []plan.Diagnostic) {
	if p == "" {
		p = "SUMMARY.md"
	}
	ds := &plan.Diags{File: p}
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	s := &plan.Summary{Path: p, PlanID: strings.TrimSuffix(base, "-SUMMARY.md"), Lines: map[string]int{}}
	if s.PlanID == base {
		s.PlanID = strings.TrimSuffix(base, path.Ext(base))
	}
	// A frontmatter nobody can read costs only its details: the plan is done
	// when the Self-Check in the body passed, so that is a warning here.
	broken := &plan.Diags{File: p}
	doc, ok := frontmatter.Split(data, broken)
	if !ok {
		// Without a closing fence the whole file is still worth a look for the verdict.
		doc.Body, doc.BodyOff = doc.Text, 0
	} else if doc.HasFM {
		if m, ok := doc.Parse(broken); ok {
			readSummaryFrontmatter(s, doc, m, ds)
			doc.CheckBudget(ds)
		}
	}
	readSummaryBody(s, doc.Body)
	for _, d := range broken.List {
		if d.Severity == plan.SeverityError {
			d.Severity = plan.SeverityWarning
			d.Message += "; hive ignores the frontmatter, and the plan counts as done when the Self-Check passed"
		}
		ds.List = append(ds.List, d)
	}
	plan.SortDiagnostics(ds.List)
	return s, ds.List
}

func readSummaryFrontmatter(s *plan.Summary, doc *frontmatter.Document, m *yaml.Node, ds *plan.Diags) {
	str := func(k frontmatter.Key) string {
		v, ok := frontmatter.Scalar(k.Value)
		if !ok {
			v = doc.Flatten(k.Value, 0)
		}
		return v
	}
	for _, k := range doc.Keys(m) {
		switch k.Name {
		case "phase":
			s.Phase = str(k)
		case "plan":
			s.Plan = str(k)
		case "subsystem":
			s.Subsystem = str(k)
		case "tags":
			s.Tags = doc.Texts(k.Value)
		case "requires":
			s.Requires = doc.Value(k.Value, 0)
		case "provides":
			s.Provides = doc.Value(k.Value, 0)
		case "affects":
			s.Affects = doc.Value(k.Value, 0)
		case "tech-stack", "tech_stack":
			if v, ok := doc.Value(k.Value, 0).(map[string]any); ok {
				s.TechStack = v
			} else if !frontmatter.IsNull(k.Value) {
				ds.Warnf(k.Line, "write tech-stack: {added: [...], patterns: [...]}", "tech-stack is %s, not a mapping; ignored", describe(k.Value))
			}
		case "key-files", "key_files":
			if frontmatter.IsNull(k.Value) {
				continue
			}
			if k.Value.Kind != yaml.MappingNode {
				ds.Warnf(k.Line, "write key-files: {created: [...], modified: [...]}", "key-files is %s, not a mapping; ignored", describe(k.Value))
				continue
			}
			s.Lines["key-files"] = k.Line
			for _, kf := range doc.Keys(k.Value) {
				var files *[]string
				switch kf.Name {
				case "created":
					files = &s.KeyFilesCreated
				case "modified":
					files = &s.KeyFilesModified
				default:
					continue
				}
				*files = cleanFiles(doc.Texts(kf.Value))
				for _, f := range *files {
					if _, err := planpath.SafeRelPath(f); err != nil {
						// What a finished plan says it touched: hive never
						// reads or writes it from here (a new SUMMARY's
						// spot-check refuses such a key file).
						ds.Warnf(plan.FirstLine(kf.Line, k.Line, 1), "list only files inside the repository, relative to its root, such as src/app.ts", "key-files.%s: %v; hive never reads it", kf.Name, err)
					}
				}
			}
		case "key-decisions", "key_decisions":
			s.KeyDecisions = doc.Texts(k.Value)
		case "patterns-established", "patterns_established":
			s.PatternsEstablished = doc.Texts(k.Value)
		case "duration":
			s.Duration = str(k)
		case "completed":
			s.Completed = str(k)
		default:
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[k.Name] = doc.Value(k.Value, 0)
			if !quietSummaryKeys[k.Name] && k.Name != "" {
				ds.Notef(k.Line, "", "frontmatter key %q is not one hive uses; kept and ignored", k.Name)
			}
		}
	}
}

// cleanFiles strips the annotations people add to file lists ("`a.ts` — store").
func cleanFiles(in []string) []string {
	var out []string
	for _, f := range in {
		if c := markup.CleanFile(f); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// readSummaryBody finds the one-liner and the Self-Check verdict. The last
// verdict wins: a re-run appends a new one below the old.
func readSummaryBody(s *plan.Summary, body string) {
	hs := markup.Headings(body)
	start, end := 0, len(body)
	for i, h := range hs {
		if h.Level == 1 {
			start = h.Body
			for _, n := range hs[i+1:] {
				if n.Level <= 2 {
					end = n.Off
					break
				}
			}
			break
		}
	}
	if start == 0 && len(hs) > 0 {
		end = hs[0].Off
	}
	s.OneLiner = oneLiner(body[start:end])
	for off := 0; off < len(body); {
		line, next := markup.LineAt(body, off)
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
	return plan.Truncate(first, 300)
}
