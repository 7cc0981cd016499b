package index

import (
	"fmt"
	"strings"
)

// MaxRendered is the most bytes Render writes: the caps on every list keep
// an index well under it, and Render cuts what would still go over, so an
// agent's prompt never carries more.
const MaxRendered = 4096

// Render writes ix as compact text for an agent's prompt and for people.
func Render(ix Index) string {
	var b strings.Builder
	state := "tree " + short(ix.Tree)
	switch {
	case ix.Dirty:
		state = "work tree with uncommitted changes"
	case ix.Tree == "":
		state = "no commit yet"
	}
	fmt.Fprintf(&b, "Codebase index: %s (%s)\n", plural(ix.Files, "file"), state)

	var langs []string
	for _, l := range ix.Languages {
		langs = append(langs, fmt.Sprintf("%s %d", l.Name, l.Files))
	}
	line(&b, "Languages", list(langs, ix.MoreLanguages))

	if len(ix.Dirs) > 0 || ix.RootFiles > 0 {
		b.WriteString("Tree:\n")
		for _, d := range ix.Dirs {
			fmt.Fprintf(&b, "  %s/ %d", d.Path, d.Files)
			if len(d.Sub) > 0 {
				var subs []string
				for _, s := range d.Sub {
					subs = append(subs, fmt.Sprintf("%s %d", s.Name, s.Files))
				}
				b.WriteString(": " + list(subs, d.MoreSubs))
			}
			b.WriteString("\n")
		}
		if ix.MoreDirs > 0 {
			fmt.Fprintf(&b, "  … %d more folders\n", ix.MoreDirs)
		}
		if ix.RootFiles > 0 {
			fmt.Fprintf(&b, "  (%s at the top)\n", plural(ix.RootFiles, "file"))
		}
	}

	line(&b, "Build", ix.BuildCommand)
	line(&b, "Test", ix.TestCommand)
	line(&b, "Package manager", ix.PackageManager)

	// Frameworks by manifest: "go.mod: chi, cobra; web/package.json: vue".
	var groups []string
	for i := 0; i < len(ix.Frameworks); {
		j, names := i, []string{}
		for ; j < len(ix.Frameworks) && ix.Frameworks[j].Manifest == ix.Frameworks[i].Manifest; j++ {
			names = append(names, ix.Frameworks[j].Name)
		}
		groups = append(groups, ix.Frameworks[i].Manifest+": "+strings.Join(names, ", "))
		i = j
	}
	frameworks := strings.Join(groups, "; ")
	if ix.MoreFrameworks > 0 {
		frameworks += fmt.Sprintf("; … %d more", ix.MoreFrameworks)
	}
	line(&b, "Frameworks", frameworks)

	var entries []string
	for _, e := range ix.EntryPoints {
		entries = append(entries, fmt.Sprintf("%s (%s)", e.Path, e.Kind))
	}
	line(&b, "Entry points", list(entries, ix.MoreEntries))

	fmt.Fprintf(&b, "Frontend: %s\n", fact(ix.HasFrontend, ix.FrontendReason))
	fmt.Fprintf(&b, "Tests: %s\n", fact(ix.HasTests, ix.TestsReason))
	for _, n := range ix.Notes {
		line(&b, "Note", n)
	}
	return cut(b.String(), MaxRendered)
}

func line(b *strings.Builder, label, value string) {
	if value != "" {
		fmt.Fprintf(b, "%s: %s\n", label, value)
	}
}

func list(items []string, more int) string {
	s := strings.Join(items, ", ")
	if more > 0 {
		s += fmt.Sprintf(", … %d more", more)
	}
	return s
}

func fact(yes bool, reason string) string {
	if !yes {
		return "no"
	}
	if reason == "" {
		return "yes"
	}
	return "yes (" + reason + ")"
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// cut keeps s within n bytes, at a line's end, and says it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "… (index cut)\n"
	s = s[:n-len(mark)]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return s + mark
}
