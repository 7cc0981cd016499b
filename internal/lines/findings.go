package lines

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/words"
)

func Place(f roleplan.Finding) string {
	switch {
	case f.File == "":
		return "-"
	case f.Line > 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

// CodeRef is where a run's code is read: its branch while it is there,
// else (merged and deleted) HEAD.
func CodeRef(ctx context.Context, repo *gitx.Repo, branch string) string {
	if branch != "" && repo.BranchExists(ctx, branch) {
		return branch
	}
	return "HEAD"
}

// FindingsWithCode shows each finding with its description, suggestion
// and the lines around the line it names, read from git at ref (never a
// path outside the repository: git refuses one).
func FindingsWithCode(ctx context.Context, repo *gitx.Repo, ref string, fs []roleplan.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n%s %s %s: %s (%s)\n", f.ID, f.Severity, Place(f), words.OneLine(f.Title), f.Status)
		if f.Description != "" {
			fmt.Fprintf(&b, "  %s\n", words.OneLine(f.Description))
		}
		if f.Suggestion != "" {
			fmt.Fprintf(&b, "  suggestion: %s\n", words.OneLine(f.Suggestion))
		}
		if f.File == "" || f.Line <= 0 || strings.HasPrefix(f.File, "-") {
			continue
		}
		text, err := repo.Git(ctx, "show", ref+":"+strings.TrimPrefix(f.File, "./"))
		if err != nil {
			fmt.Fprintf(&b, "  (%s is not in %s)\n", f.File, ref)
			continue
		}
		writeLines(&b, strings.Split(text, "\n"), f.Line, 3)
	}
	return b.String()
}

// writeLines writes the lines around line (1-based), numbered, the line
// itself marked.
func writeLines(w io.Writer, lines []string, line, around int) {
	for n := max(1, line-around); n <= min(len(lines), line+around); n++ {
		mark := " "
		if n == line {
			mark = ">"
		}
		fmt.Fprintf(w, "  %s %4d | %s\n", mark, n, lines[n-1])
	}
}
