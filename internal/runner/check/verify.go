package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/planpath"
)

// MustHaves checks every plan's must_haves against the files under
// root: each artifact exists and contains its text, each key link's pattern
// is found in its file. It returns the gaps, one line each.
func MustHaves(root string, plans []*plan.Plan) []string {
	var gaps []string
	read := func(p *plan.Plan, rel, what string) (string, bool) {
		clean, err := planpath.SafeRelPath(rel)
		if err != nil {
			gaps = append(gaps, fmt.Sprintf("%s: %s %q: %v", p.ID, what, rel, err))
			return "", false
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(clean)))
		if err != nil {
			gaps = append(gaps, fmt.Sprintf("%s: %s %s is missing", p.ID, what, clean))
			return "", false
		}
		return string(data), true
	}
	for _, p := range plans {
		for _, a := range p.MustHaves.Artifacts {
			if strings.TrimSpace(a.Path) == "" {
				continue
			}
			text, ok := read(p, a.Path, "artifact")
			if ok && a.Contains != "" && !strings.Contains(text, a.Contains) {
				gaps = append(gaps, fmt.Sprintf("%s: artifact %s does not contain %q", p.ID, a.Path, a.Contains))
			}
		}
		for _, k := range p.MustHaves.KeyLinks {
			from, _ := planpath.SplitKeyLinkRef(k.From) // "src/app.js (handleSubmit)" names src/app.js; prose names no file
			if from == "" || k.Pattern == "" {
				continue
			}
			text, ok := read(p, from, "key link source")
			if !ok {
				continue
			}
			found := strings.Contains(text, k.Pattern)
			if re, err := regexp.Compile(k.Pattern); err == nil {
				found = found || re.MatchString(text)
			}
			if !found {
				gaps = append(gaps, fmt.Sprintf("%s: key link %s → %s: pattern %q not found in %s", p.ID, k.From, k.To, k.Pattern, from))
			}
		}
	}
	return gaps
}

// VerificationPath is the phase's report: NN-VERIFICATION.md.
func VerificationPath(ph *plan.Phase) string {
	return filepath.ToSlash(filepath.Join(ph.Dir, ph.Number+"-VERIFICATION.md"))
}

// GapsCommand is the command that plans the fixes of a phase's gaps.
func GapsCommand(ph *plan.Phase) string {
	return fmt.Sprintf("Plan the fixes with: /gsd:plan-phase %s --gaps", ph.Number)
}

var statusLine = regexp.MustCompile(`(?m)^status:\s*"?([a-z_]+)"?\s*$`)

// ReportStatus reads a VERIFICATION.md's status and a short body.
func ReportStatus(text string) (status, body string) {
	if m := statusLine.FindStringSubmatch(text); m != nil {
		status = m[1]
	}
	body = text
	if strings.HasPrefix(body, "---\n") {
		if end := strings.Index(body[4:], "\n---\n"); end >= 0 {
			body = body[4+end+5:]
		}
	}
	return status, clipLines(strings.TrimSpace(body), 40)
}

// Gate runs the post-merge gate command in dir. The command is the
// user's own configuration, never text from a plan or an agent.
func Gate(ctx context.Context, dir, command string) (bool, string) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		return true, ""
	}
	text := clipLines(string(out), 60)
	return false, fmt.Sprintf("$ %s\n%s\n(%v)", command, text, err)
}

// clipLines keeps the last n lines of s: a failing command's end says most.
func clipLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
