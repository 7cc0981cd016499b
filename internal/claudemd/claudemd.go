package claudemd

import (
	"bytes"
	"fmt"
	"strings"
)

// The marker lines around hive's section.
const (
	Start = "<!-- hive:learnings:start -->"
	End   = "<!-- hive:learnings:end -->"
)

// MaxLines caps the learnings the section holds.
const MaxLines = 20

// Section is hive's section with learnings (at most MaxLines), markers
// included, ending in a newline.
func Section(learnings []string) string {
	var b strings.Builder
	b.WriteString(Start + "\n## Hive Learnings\n\n")
	b.WriteString("_What hive's runs on this project got wrong and then fixed, most recurrent first. hive rewrites this section after each run; write your own notes outside it._\n\n")
	for i, l := range learnings {
		if i == MaxLines {
			break
		}
		b.WriteString("- " + strings.Join(strings.Fields(l), " ") + "\n")
	}
	b.WriteString(End + "\n")
	return b.String()
}

// Splice puts section into content in place of hive's section, or after
// content when it has none. Every byte outside the markers is kept; a
// content whose markers are missing one half, repeated or out of order
// is an error, and nothing is changed.
func Splice(content []byte, section string) ([]byte, error) {
	starts, ends := lineIndexes(content, Start), lineIndexes(content, End)
	switch {
	case len(starts) == 0 && len(ends) == 0:
		out := bytes.Clone(content)
		if len(out) > 0 {
			if out[len(out)-1] != '\n' {
				out = append(out, '\n')
			}
			out = append(out, '\n')
		}
		return append(out, section...), nil
	case len(starts) != 1 || len(ends) != 1:
		return nil, fmt.Errorf("CLAUDE.md has %d %q and %d %q lines; hive keeps its section between one of each: remove the extra ones, or both, and hive writes the section again", len(starts), Start, len(ends), End)
	case ends[0] < starts[0]:
		return nil, fmt.Errorf("CLAUDE.md has %q before %q: put them in order, or remove both, and hive writes the section again", End, Start)
	}
	// From the start marker's line to the end of the end marker's line.
	endLine := ends[0] + len(End)
	if endLine < len(content) && content[endLine] == '\r' {
		endLine++
	}
	if endLine < len(content) && content[endLine] == '\n' {
		endLine++
	}
	out := append(bytes.Clone(content[:starts[0]]), section...)
	if endLine == len(content) && !bytes.HasSuffix(content, []byte("\n")) {
		out = bytes.TrimSuffix(out, []byte("\n")) // the file ended on the marker
	}
	return append(out, content[endLine:]...), nil
}

// lineIndexes are the offsets of the lines that are marker alone (spaces
// around it aside).
func lineIndexes(content []byte, marker string) []int {
	var out []int
	off := 0
	for _, line := range bytes.SplitAfter(content, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == marker {
			out = append(out, off+bytes.Index(line, []byte(marker)))
		}
		off += len(line)
	}
	return out
}
