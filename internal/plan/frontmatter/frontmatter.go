package frontmatter

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/markup"
	"gopkg.in/yaml.v3"
)

// Document is one markdown file split into its YAML frontmatter and its body.
type Document struct {
	Text       string // the whole file, CRLF normalised to LF
	lineStarts []int  // byte offset of the start of each line of text
	HasFM      bool
	fm         string // frontmatter text without the --- fences
	FMLine     int    // file line of the first frontmatter line
	Body       string
	BodyOff    int // byte offset of body in text
	BodyLine   int // file line where body starts

	budget    int  // YAML nodes left to visit, see nodeBudget
	exhausted bool // the budget ran out: some values were dropped
}

// Split separates the frontmatter. It reports false, with an error in ds,
// when a frontmatter is opened but never closed: then nothing after the opening
// fence can be told apart as YAML or body.
func Split(data []byte, ds *plan.Diags) (*Document, bool) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	d := &Document{Text: text, lineStarts: lineStarts(text), BodyLine: 1, budget: nodeBudget}
	start := 0
	if strings.HasPrefix(text, "\uFEFF") {
		start = len("\uFEFF")
	}
	// Tolerate blank lines before the opening fence: editors and generators add them.
	open, fence := -1, 0
	for off := start; off < len(text); {
		line, next := markup.LineAt(text, off)
		if t := strings.TrimSpace(line); t != "" {
			if strings.TrimRight(line, " \t") == "---" {
				open, fence = next, off
			}
			break
		}
		off = next
	}
	if open < 0 {
		d.Body, d.BodyOff, d.BodyLine = text[start:], start, d.Line(start)
		return d, true
	}
	d.FMLine = d.Line(open)
	for off := open; off < len(text); {
		line, next := markup.LineAt(text, off)
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			d.HasFM = true
			d.fm = text[open:off]
			d.Body, d.BodyOff, d.BodyLine = text[next:], next, d.Line(next)
			return d, true
		}
		off = next
	}
	// Never closed: a frontmatter that ends at the plan's first tag, as
	// when a generator closed it with "</must_haves>", is read up to there.
	for off := open; off < len(text); {
		line, next := markup.LineAt(text, off)
		if strings.HasPrefix(line, "<") {
			body := off
			if strings.HasPrefix(line, "</") {
				body = next // the stray closing tag is no part of the body
			}
			ds.Warnf(d.Line(off), fmt.Sprintf("put a line containing only --- at line %d, where the frontmatter ends", d.Line(off)),
				"frontmatter is never closed with ---; hive reads it up to line %d (%s), the first line that is no YAML", d.Line(off), plan.Truncate(strings.TrimSpace(line), 40))
			d.HasFM = true
			d.fm = text[open:off]
			d.Body, d.BodyOff, d.BodyLine = text[body:], body, d.Line(body)
			return d, true
		}
		off = next
	}
	ds.Errorf(d.Line(fence), "add a line containing only --- after the last frontmatter key",
		"frontmatter opened here is never closed")
	return d, false
}

// Fenced takes as the frontmatter a ```yaml block that holds a
// plan's keys (wave, depends_on, ...) at its top level, for a plan whose
// author fenced it under a "Frontmatter" heading instead of starting the
// file with ---; it reports whether there was one. Plans without one stay
// without frontmatter: read as none, their dependencies would be lost and
// their plans run at once.
func (d *Document) Fenced() bool {
	text := d.Text
	for off := 0; off < len(text); {
		line, next := markup.LineAt(text, off)
		if t := strings.TrimSpace(line); t == "```yaml" || t == "```yml" {
			for end := next; end < len(text); {
				l, n := markup.LineAt(text, end)
				if strings.TrimSpace(l) == "```" {
					block := text[next:end]
					if planKeysRE.MatchString(block) {
						d.HasFM, d.fm, d.FMLine = true, block, d.Line(next)
						return true
					}
					break
				}
				end = n
			}
		}
		off = next
	}
	return false
}

// planKeysRE finds a plan's frontmatter keys at the top level of YAML.
var planKeysRE = regexp.MustCompile(`(?m)^(?:wave|depends_on|files_modified|autonomous):`)

func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// Line returns the 1-based line of byte offset off in the file.
func (d *Document) Line(off int) int {
	return sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off })
}

// lastLine is the number of the file's last line, the upper bound of any Line.
func (d *Document) lastLine() int { return len(d.lineStarts) }

var yamlLineRE = regexp.MustCompile(`line (\d+): `)

const yamlFix = "check the YAML at that line: quote values that contain \": \" or \" #\" or start with a backtick, @, *, &, !, %, { or [, and keep indentation consistent"

// Parse parses the frontmatter into its top-level mapping. It returns false when
// the YAML is unusable (syntax error, or not a mapping); an empty frontmatter is
// an empty mapping.
func (d *Document) Parse(ds *plan.Diags) (*yaml.Node, bool) {
	if strings.TrimSpace(d.fm) == "" {
		return &yaml.Node{Kind: yaml.MappingNode}, true
	}
	var root yaml.Node
	if err := safeUnmarshal(d.fm, &root); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		// yaml.v3 names no line for errors on the first line nor for bad bytes.
		bad := badByteLine(d.fm)
		line := d.FMLine + max(bad, 1) - 1
		if m := yamlLineRE.FindStringSubmatchIndex(msg); m != nil {
			n, convErr := strconv.Atoi(msg[m[2]:m[3]])
			msg = msg[:m[0]] + msg[m[1]:]
			if convErr == nil && n >= 1 {
				line = d.FMLine + n - 1
				if isParserProblem(msg) {
					// yaml.v3 counts lines from 0 for parser errors, from 1 for scanner errors.
					line++
				}
			}
		}
		msg = strings.TrimSpace(msg)
		if n := problemLine(d.fm, msg); n > 0 {
			line = d.FMLine + n - 1
		}
		line = clampLine(line, d.lastLine())
		// GSD reads frontmatter line by line and runs plans strict YAML
		// refuses; so does hive, unless the bytes themselves are broken.
		if bad == 0 {
			if m, badLine := gsdFrontmatter(d.fm); m != nil {
				ds.Notef(line, gsdFix, "frontmatter is not valid YAML (%s); hive read it line by line as GSD does, taking values as written", msg)
				return m, true
			} else if badLine > 0 {
				msg += fmt.Sprintf("; read line by line as GSD does, line %d cannot be read either", clampLine(d.FMLine+badLine-1, d.lastLine()))
			}
		}
		ds.Errorf(line, yamlFix, "invalid YAML frontmatter: %s", msg)
		return nil, false
	}
	n := &root
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return &yaml.Node{Kind: yaml.MappingNode}, true
		}
		n = n.Content[0]
	}
	n = Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		if n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return &yaml.Node{Kind: yaml.MappingNode}, true
		}
		ds.Errorf(d.FMLine, "write the frontmatter as one \"key: value\" per line",
			"frontmatter is not a key: value mapping")
		return nil, false
	}
	return n, true
}

// gsdFix tells how to make a frontmatter that only GSD's reader takes
// readable by every YAML tool too.
const gsdFix = `to make it YAML, put values holding ": " or " #" in single quotes ('a: b'), and write regular expressions in single quotes ('\s+'), or in double quotes with each backslash doubled: "\\s+"`

// badByteLine returns the 1-based line of the first byte YAML refuses (control
// characters, invalid UTF-8), or 0 when there is none.
func badByteLine(s string) int {
	line := 1
	for i, r := range s {
		switch {
		case r == '\n':
			line++
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"),
			r < 0x20 && r != '\t' && r != '\r',
			r >= 0x7f && r <= 0x9f && r != 0x85:
			return line
		}
	}
	return 0
}

// maxProblemSearch bounds problemLine's parses: a frontmatter longer than
// this keeps the line yaml.v3 names.
const maxProblemSearch = 400

// problemLine returns the 1-based line of fm at which the YAML error msg
// (without yaml.v3's "line N: ") arises, or 0 when it cannot tell. yaml.v3
// names the line where the enclosing block began for a parser error (a
// misindented key in must_haves is reported at its sequence's first item)
// and no line at all for an unknown alias: the line that makes the error is
// the last line of the shortest prefix of fm that fails with msg.
func problemLine(fm, msg string) int {
	lines := strings.SplitAfter(fm, "\n")
	if len(lines) > maxProblemSearch {
		return 0
	}
	prefix := ""
	for i, l := range lines {
		prefix += l
		if strings.TrimSpace(l) == "" {
			continue // a blank line adds nothing to fail at
		}
		var n yaml.Node
		err := safeUnmarshal(prefix, &n)
		if err == nil {
			continue
		}
		got := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineRE.FindStringIndex(got); m != nil {
			got = got[:m[0]] + got[m[1]:]
		}
		if strings.TrimSpace(got) == msg {
			return i + 1
		}
	}
	return 0
}

// isParserProblem tells the parser's messages from the scanner's, whose line
// numbers yaml.v3 reports differently.
func isParserProblem(msg string) bool {
	for _, p := range []string{"did not find expected <Document start>", "did not find expected node content",
		"did not find expected key", "did not find expected '-' indicator", "did not find expected ',' or",
		"found undefined tag handle", "found duplicate %", "found incompatible YAML Document"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func clampLine(line, last int) int {
	return max(0, min(line, last))
}

// safeUnmarshal shields callers from panics inside the YAML library: plans are
// arbitrary text and a parser bug must not take hive down.
func safeUnmarshal(src string, out any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	return yaml.Unmarshal([]byte(src), out)
}

// Resolve follows aliases so that "*anchor" values read like the anchored node.
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// Key is one key of a frontmatter mapping with its file line.
type Key struct {
	Name  string
	Line  int
	Value *yaml.Node
}

// Keys lists the pairs of a mapping in file order, mapping node lines to file lines.
func (d *Document) Keys(m *yaml.Node) []Key {
	var out []Key
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := Resolve(m.Content[i])
		name := ""
		if k != nil && k.Kind == yaml.ScalarNode {
			name = k.Value
		}
		out = append(out, Key{Name: name, Line: d.NodeLine(m.Content[i]), Value: Resolve(m.Content[i+1])})
	}
	return out
}

// NodeLine maps a frontmatter node to its file line.
func (d *Document) NodeLine(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return d.FMLine
	}
	return clampLine(d.FMLine+n.Line-1, d.lastLine())
}

// IsNull reports whether n is absent or YAML's null.
func IsNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// Scalar returns the text of a scalar node exactly as written (so "02" stays
// "02" and 14-01 stays "14-01"); null reads as "".
func Scalar(n *yaml.Node) (string, bool) {
	if IsNull(n) {
		return "", true
	}
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	return strings.TrimSpace(n.Value), true
}

// Item is one element of a frontmatter list.
type Item struct {
	Text string
	tag  string // YAML tag: "!!str", "!!int", ...
	Line int
}

// List reads a value written either as a YAML sequence of scalars or as a single
// scalar (a common hand-written shortcut). ok is false for other shapes; items
// that are not scalars are skipped with an error.
func (d *Document) List(key Key, ds *plan.Diags) (items []Item, ok bool) {
	n := key.Value
	switch {
	case IsNull(n):
		return nil, true
	case n.Kind == yaml.ScalarNode:
		if strings.TrimSpace(n.Value) == "" {
			return nil, true
		}
		return []Item{{Text: strings.TrimSpace(n.Value), tag: n.Tag, Line: d.NodeLine(n)}}, true
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			c = Resolve(c)
			if c == nil || c.Kind != yaml.ScalarNode {
				ds.Errorf(d.NodeLine(c), fmt.Sprintf("write each %s entry as plain text", key.Name),
					"%s: entry is not a plain value", key.Name)
				continue
			}
			items = append(items, Item{Text: strings.TrimSpace(c.Value), tag: c.Tag, Line: d.NodeLine(c)})
		}
		return items, true
	}
	return nil, false
}

// nodeBudget bounds how many YAML nodes one file's frontmatter may make hive
// visit. Aliases can make a small text a huge tree ("billion laughs"); real
// frontmatter stays far below this.
const nodeBudget = 100000

// spend takes one node from the file's budget; false once it is exhausted.
func (d *Document) spend() bool {
	if d.budget <= 0 {
		d.exhausted = true
		return false
	}
	d.budget--
	return true
}

// CheckBudget warns when the frontmatter expanded past nodeBudget and values
// were dropped.
func (d *Document) CheckBudget(ds *plan.Diags) {
	if d.exhausted {
		ds.Warnf(d.FMLine, "remove YAML anchors and aliases (&name, *name) from the frontmatter",
			"frontmatter expands to more than %d values; the rest was ignored", nodeBudget)
	}
}

// Texts reads a list of free text; nested mappings are flattened to "k: v" so that
// nothing a human wrote is lost.
func (d *Document) Texts(n *yaml.Node) []string {
	switch {
	case IsNull(n):
		return nil
	case n.Kind == yaml.ScalarNode:
		if s := strings.TrimSpace(n.Value); s != "" {
			return []string{s}
		}
		return nil
	case n.Kind == yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if s := d.Flatten(Resolve(c), 0); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if s := d.Flatten(n, 0); s != "" {
		return []string{s}
	}
	return nil
}

// Flatten renders any value as one line of text.
func (d *Document) Flatten(n *yaml.Node, depth int) string {
	if n == nil || depth > 16 || !d.spend() {
		return ""
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return ""
		}
		return strings.TrimSpace(n.Value)
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if s := d.Flatten(Resolve(c), depth+1); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, d.Flatten(Resolve(n.Content[i]), depth+1)+": "+d.Flatten(Resolve(n.Content[i+1]), depth+1))
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// Value converts a node to plain Go values (map[string]any, []any, string,
// int, float64, bool, nil) for fields hive keeps but does not interpret. It is
// written here rather than taken from yaml's Decode so that the node budget
// holds and no input can make it fail.
func (d *Document) Value(n *yaml.Node, depth int) any {
	if n = Resolve(n); n == nil || depth > 64 || !d.spend() {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, d.Value(c, depth+1))
		}
		return out
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[d.Flatten(Resolve(n.Content[i]), depth+1)] = d.Value(n.Content[i+1], depth+1)
		}
		return out
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil
		case "!!bool":
			if b, ok := Boolean(n); ok {
				return b
			}
		case "!!int":
			v := strings.ReplaceAll(n.Value, "_", "")
			if i, err := strconv.ParseInt(v, 10, 64); err == nil {
				return int(i)
			}
			if i, err := strconv.ParseInt(v, 0, 64); err == nil {
				return int(i)
			}
		case "!!float":
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
				return f
			}
		}
		return n.Value
	}
	return nil
}

// Boolean reads YAML booleans, also when quoted or written yes/no.
func Boolean(n *yaml.Node) (bool, bool) {
	s, ok := Scalar(n)
	if !ok {
		return false, false
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on", "y":
		return true, true
	case "false", "no", "off", "n":
		return false, true
	}
	return false, false
}

// Fields reads a mapping as text fields; a list value is joined with ", ".
func (d *Document) Fields(n *yaml.Node) map[string]string {
	out := map[string]string{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := Resolve(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode {
			out[k.Value] = d.Flatten(Resolve(n.Content[i+1]), 0)
		}
	}
	return out
}
