package executor

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/sim/repo"
)

// extTags names the stack for the SUMMARY's tags.
var extTags = map[string]string{
	".go": "go", ".ts": "typescript", ".tsx": "react", ".js": "javascript", ".jsx": "react",
	".py": "python", ".md": "docs", ".json": "config", ".sql": "sql", ".css": "css", ".sh": "shell",
}

// summary renders the plan's SUMMARY.md in GSD's format, from the plan and
// the commits git holds, so that a rerun writes the same facts.
func (a *Agent) summary(selfCheck string) (string, error) {
	r := a.pr
	p := r.p
	created, modified, err := a.changedFiles()
	if err != nil {
		return "", err
	}
	phaseNum, planNum := p.ID, p.PlanNumber
	if i := strings.LastIndex(p.ID, "-"); i > 0 {
		phaseNum, planNum = p.ID[:i], p.ID[i+1:]
	}
	phase := orElse(p.Phase, path.Base(path.Dir(p.Path)))
	subsystem := path.Base(path.Dir(p.Path))
	if _, slug, ok := strings.Cut(subsystem, "-"); ok {
		subsystem = slug
	}

	tags := []string{"sim"}
	for _, f := range append(append([]string{}, created...), modified...) {
		if t := extTags[strings.ToLower(path.Ext(f))]; t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	var provides []string
	for _, art := range p.MustHaves.Artifacts {
		provides = append(provides, orElse(art.Provides, art.Path))
	}
	if len(provides) == 0 {
		provides = []string{p.Name}
	}
	var decisions []string
	prefix := fmt.Sprintf("chore(%s): decision ", p.ID)
	for _, c := range r.commits {
		if choice, ok := strings.CutPrefix(c.Subject, prefix); ok {
			decisions = append(decisions, fmt.Sprintf("Task %d: chose %s", c.Task, choice))
		}
	}
	if len(decisions) == 0 {
		decisions = []string{"Followed the plan as written"}
	}
	now := time.Now()
	duration := now.Sub(r.started).Round(time.Second)

	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "phase: %s\nplan: %s\nsubsystem: %s\ntags: %s\n", q(phase), q(planNum), q(subsystem), flow(tags))
	if len(p.DependsOn) == 0 {
		b.WriteString("requires: []\n")
	} else {
		b.WriteString("requires:\n")
		for _, d := range p.DependsOn {
			fmt.Fprintf(&b, "  - phase: %s\n    provides: %s\n", q(phase), q("plan "+d))
		}
	}
	fmt.Fprintf(&b, "provides: %s\naffects: []\n", flow(provides))
	fmt.Fprintf(&b, "tech-stack:\n  added: []\n  patterns: %s\n", flow([]string{"one atomic commit per task"}))
	fmt.Fprintf(&b, "key-files:\n  created: %s\n  modified: %s\n", flow(created), flow(modified))
	fmt.Fprintf(&b, "key-decisions: %s\n", flow(decisions))
	fmt.Fprintf(&b, "patterns-established: %s\n", flow([]string{"Hive-Plan/Hive-Task commit trailers identify task commits"}))
	fmt.Fprintf(&b, "duration: %s\ncompleted: %s\n---\n\n", minutes(duration), now.Format("2006-01-02"))

	fmt.Fprintf(&b, "# Phase %s Plan %s: %s Summary\n\n", phaseNum, planNum, p.Name)
	fmt.Fprintf(&b, "**%s: %d tasks carried out by the hive sim agent, one atomic commit each**\n\n", repo.OneLine(p.Name, 120), len(p.Tasks))
	fmt.Fprintf(&b, "## Performance\n\n- **Duration:** %s\n- **Started:** %s\n- **Completed:** %s\n- **Tasks:** %d\n- **Files modified:** %d\n\n",
		minutes(duration), r.started.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), len(p.Tasks), len(created)+len(modified))
	b.WriteString("## Accomplishments\n\n")
	for _, t := range p.Tasks {
		fmt.Fprintf(&b, "- %s\n", taskName(t))
	}
	b.WriteString("\n## Task Commits\n\nEach task was committed atomically:\n\n")
	for _, t := range p.Tasks {
		if c, ok := r.taskCommit(t.Number); ok {
			kind, _, _ := strings.Cut(c.Subject, "(")
			fmt.Fprintf(&b, "%d. **Task %d: %s** - `%s` (%s)\n", t.Number, t.Number, taskName(t), c.Short, kind)
		} else {
			fmt.Fprintf(&b, "%d. **Task %d: %s** - MISSING\n", t.Number, t.Number, taskName(t))
		}
	}
	b.WriteString("\n## Files Created/Modified\n\n")
	for _, f := range created {
		fmt.Fprintf(&b, "- `%s` - created\n", f)
	}
	for _, f := range modified {
		fmt.Fprintf(&b, "- `%s` - modified\n", f)
	}
	if len(created)+len(modified) == 0 {
		b.WriteString("None\n")
	}
	b.WriteString("\n## Decisions Made\n\n")
	for _, d := range decisions {
		fmt.Fprintf(&b, "- %s\n", d)
	}
	b.WriteString("\n## Deviations from Plan\n\n")
	if len(r.skipped) == 0 {
		b.WriteString("None - plan executed exactly as written.\n")
	} else {
		b.WriteString("Paths the plan named but the sim refused to write:\n\n")
		for _, s := range r.skipped {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	b.WriteString("\n## Issues Encountered\n\nNone\n\n## Next Phase Readiness\n\nReady for the plans that depend on this one.\n\n")
	fmt.Fprintf(&b, "## Self-Check: %s\n", selfCheck)
	return b.String(), nil
}

// changedFiles lists the files this plan's commits added and modified, from
// git, leaving out deleted ones and the SUMMARY itself.
func (a *Agent) changedFiles() (created, modified []string, err error) {
	var hashes []string
	for _, c := range a.pr.commits {
		hashes = append(hashes, c.Hash)
	}
	if len(hashes) == 0 {
		return nil, nil, nil
	}
	out, err := a.Git.Run(append([]string{"show", "--no-renames", "--name-status", "--format="}, hashes...)...)
	if err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(out, "\n") {
		status, file, ok := strings.Cut(line, "\t")
		if !ok || file == a.pr.p.SummaryPath() {
			continue
		}
		switch status {
		case "A":
			if !slices.Contains(created, file) {
				created = append(created, file)
			}
		case "M":
			if !slices.Contains(modified, file) {
				modified = append(modified, file)
			}
		}
	}
	modified = slices.DeleteFunc(modified, func(f string) bool { return slices.Contains(created, f) })
	created = slices.DeleteFunc(created, func(f string) bool {
		_, err := os.Lstat(filepath.Join(a.Dir, filepath.FromSlash(f)))
		return err != nil
	})
	return created, modified, nil
}

// q quotes a YAML scalar (JSON strings are YAML), so ids like 02 stay strings.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// flow renders a YAML flow sequence of strings.
func flow(items []string) string {
	if len(items) == 0 {
		return "[]"
	}
	qs := make([]string, len(items))
	for i, s := range items {
		qs[i] = q(s)
	}
	return "[" + strings.Join(qs, ", ") + "]"
}

// minutes formats a duration the way GSD summaries do ("3min"), rounding up
// so that a fast sim run still reads as plausible.
func minutes(d time.Duration) string {
	return fmt.Sprintf("%dmin", max(1, int((d+time.Minute-1)/time.Minute)))
}
