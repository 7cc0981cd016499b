package load

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/planpath"
)

// CheckRepoPaths checks the paths a phase's plans name (files_modified, task
// <files>, must_haves artifacts and key links) and its summaries' key files
// against the repository at root (see planpath.ResolveInRepo). Paths that
// planpath.SafeRelPath refuses are left to validate.Phase and parse.Summary,
// which report them; this adds what only the disk can tell: links that
// escape, and key links of finished plans that point at nothing.
func CheckRepoPaths(root string, ph *plan.Phase) []plan.Diagnostic {
	var out []plan.Diagnostic
	// check says of a path through a symbolic link out of the repository
	// what validate.Phase says of one that leaves it by its name: an error
	// for a plan still to run, else a warning (see validate's doneAdd).
	check := func(file string, line int, what, f, done string) {
		if _, err := planpath.SafeRelPath(f); err != nil {
			return
		}
		if _, err := planpath.ResolveInRepo(root, f); err != nil {
			d := plan.Diagnostic{Severity: plan.SeverityError, File: file, Line: max(line, 1), Message: what + ": " + err.Error(),
				Fix: "list only files inside the repository; replace the symbolic link with a real file or folder, or remove the entry"}
			if done != "" {
				d.Severity, d.Message = plan.SeverityWarning, d.Message+done
			}
			out = append(out, d)
		}
	}
	for _, p := range ph.Plans {
		done := ""
		if s := ph.Summaries[p.ID]; s != nil && s.SelfCheck != "FAILED" {
			done = fmt.Sprintf("; this plan is done (%s), so hive never runs it", path.Base(s.Path))
		}
		for i, f := range p.FilesModified {
			check(p.Path, plan.FirstLine(p.Lines[fmt.Sprintf("files_modified[%d]", i)], p.Lines["files_modified"], 1), "files_modified", f, done)
		}
		for _, t := range p.Tasks {
			for _, f := range t.Files {
				check(p.Path, t.Line, fmt.Sprintf("task %d <files>", t.Number), f, done)
			}
		}
		for i, a := range p.MustHaves.Artifacts {
			if strings.TrimSpace(a.Path) != "" {
				check(p.Path, plan.FirstLine(p.Lines[fmt.Sprintf("must_haves.artifacts[%d]", i)], p.Lines["must_haves"]), "must_haves.artifacts", a.Path, done)
			}
		}
		for i, k := range p.MustHaves.KeyLinks {
			for _, ref := range []string{k.From, k.To} {
				if file, _ := planpath.SplitKeyLinkRef(ref); file != "" {
					check(p.Path, plan.FirstLine(p.Lines[fmt.Sprintf("must_haves.key_links[%d]", i)], p.Lines["must_haves"]), "must_haves.key_links", file, done)
				}
			}
		}
	}
	out = append(out, checkDoneKeyLinks(root, ph)...)
	for _, id := range slices.Sorted(maps.Keys(ph.Summaries)) {
		s := ph.Summaries[id]
		for _, f := range s.KeyFilesCreated {
			check(s.Path, s.Lines["key-files"], "key-files.created", f, "; hive never reads it")
		}
		for _, f := range s.KeyFilesModified {
			check(s.Path, s.Lines["key-files"], "key-files.modified", f, "; hive never reads it")
		}
	}
	return out
}

// maxKeyLinkFile bounds how much of a key link's file is read to look for
// its symbol.
const maxKeyLinkFile = 4 << 20

// checkDoneKeyLinks looks at the key links of the plans a passing SUMMARY
// marks done: the file each one names should exist and hold the symbol it
// names. Later phases move and rename code, so a miss is a note, never more.
func checkDoneKeyLinks(root string, ph *plan.Phase) []plan.Diagnostic {
	var out []plan.Diagnostic
	for _, p := range ph.Plans {
		if s := ph.Summaries[p.ID]; s == nil || s.SelfCheck == "FAILED" {
			continue
		}
		for i, k := range p.MustHaves.KeyLinks {
			line := plan.FirstLine(p.Lines[fmt.Sprintf("must_haves.key_links[%d]", i)], p.Lines["must_haves"])
			for _, side := range []struct{ name, ref string }{{"from", k.From}, {"to", k.To}} {
				file, sym := planpath.SplitKeyLinkRef(side.ref)
				if file == "" {
					continue
				}
				abs, err := planpath.ResolveInRepo(root, file)
				if err != nil {
					continue // reported by validate.Phase or by the link check above
				}
				note := func(format string, args ...any) {
					out = append(out, plan.Diagnostic{Severity: plan.SeverityNote, File: p.Path, Line: line, Message: fmt.Sprintf(format, args...)})
				}
				f, err := os.Open(abs)
				if err != nil {
					if strings.ContainsAny(file, `/\`) { // a bare "api.ts" may live in any folder
						note("key link %s %q: %s does not exist, although the plan is done", side.name, side.ref, file)
					}
					continue
				}
				data, err := io.ReadAll(io.LimitReader(f, maxKeyLinkFile))
				f.Close()
				if err == nil && sym != "" && !containsSymbol(string(data), sym) {
					note("key link %s %q: %s does not mention %s, although the plan is done", side.name, side.ref, file, sym)
				}
			}
		}
	}
	return out
}

// containsSymbol reports whether text holds sym, or for a dotted name
// (useCart.addItem) its last part, as method definitions spell it.
func containsSymbol(text, sym string) bool {
	if strings.Contains(text, sym) {
		return true
	}
	if i := strings.LastIndexByte(sym, '.'); i >= 0 {
		return strings.Contains(text, sym[i+1:])
	}
	return false
}
