package roleplay

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/repo"
)

// The roles of hive run beyond the first seven, as the sim plays them:
// enough of each that hive's routing, contracts and findings can be tested
// on a real repository without a model.

// findsIssues says whether a role's report lists issues (the run's
// findings), so that the blocker fault applies to it.
func findsIssues(role string) bool {
	return role == "reviewer" || role == "security" || role == "browser-validator"
}

// interview is the sim interviewer's questions: always three, each with
// options and a default, whatever the objective.
func interview(objective string) []map[string]any {
	o := repo.OneLine(objective, 60)
	return []map[string]any{
		{"question": fmt.Sprintf("How much of %q should this run build?", o),
			"options": []string{"the smallest version that works", "the complete feature, edge cases included"},
			"default": "the smallest version that works", "why": "decides how many plans the architect writes"},
		{"question": "What should happen when it fails at run time?",
			"options": []string{"return an error to the caller", "log it and go on"},
			"default": "return an error to the caller", "why": "decides the error handling and its tests"},
		{"question": "Where should the change be documented?",
			"options": []string{"in the README", "on a page under docs/"},
			"default": "in the README", "why": "decides what the documenter writes"},
	}
}

// debug plays the debugger: the implementer's change (or its fix of a
// failing test), with how the failure was reproduced and where it came
// from, at a real file and line.
func (a *agent) debug(prompt, objective string) ([]string, map[string]any, error) {
	reproduction := "follow the objective's steps: " + repo.OneLine(objective, 80)
	if a.isGo() {
		reproduction = "go test ./..."
	}
	_, err := os.Stat(filepath.Join(a.Dir, failingTest))
	fixesTest := err == nil && strings.Contains(prompt, "## Failing tests to fix")
	files, err := a.implement(prompt, objective)
	if err != nil {
		return nil, nil, err
	}
	var cause string
	switch {
	case fixesTest:
		// The line of t.Fatal in the test the sim tester added.
		cause = failingTest + ":6: the sim tester's test fails on purpose; removed"
	case len(files) > 0:
		cause = fmt.Sprintf("%s:%d: simulated: nothing did %q yet", files[0], lineCount(filepath.Join(a.Dir, files[0])), repo.OneLine(objective, 60))
	default:
		cause = "simulated: no file needed a change"
	}
	return files, map[string]any{"reproduction": reproduction, "root_cause": cause}, nil
}

// lineCount is the number of lines of a file, 1 at least.
func lineCount(abs string) int {
	data, _ := os.ReadFile(abs)
	return max(1, bytes.Count(data, []byte("\n")))
}

// review plays the reviewer and the security auditor: no issues and
// approval, or with the blocker fault one blocker and changes requested.
func (a *agent) review(fs faults.Active) (map[string]any, error) {
	if !fs.Has(faults.FaultBlocker) {
		return map[string]any{"issues": []any{}, "approval_status": "approved"}, nil
	}
	issue, err := a.blockerIssue()
	if err != nil {
		return nil, err
	}
	return map[string]any{"issues": []any{issue}, "approval_status": "changes_requested"}, nil
}

// blockerIssue is the blocker the fault finds: at line 1 of the first Go
// file the repository tracks, or of its first file when it has no Go.
func (a *agent) blockerIssue() (map[string]any, error) {
	out, err := a.Git.Run("ls-files", "-z")
	if err != nil {
		return nil, err
	}
	file := ""
	for _, f := range strings.Split(out, "\x00") {
		if f == "" {
			continue
		}
		if file == "" {
			file = f
		}
		if path.Ext(f) == ".go" {
			file = f
			break
		}
	}
	if file == "" {
		return nil, fmt.Errorf("the blocker fault needs a tracked file, and the repository has none")
	}
	first := firstLine(filepath.Join(a.Dir, filepath.FromSlash(file)))
	return map[string]any{"severity": "blocker", "category": "correctness", "file": file, "line": 1,
		"title":       "simulated: a blocker in " + file,
		"description": fmt.Sprintf("the sim's %s was told to find one here: %q", a.Set.Role, repo.OneLine(first, 80)),
		"suggestion":  "change " + file + " so that the sim finds nothing more"}, nil
}

// firstLine is a file's first line (of its first 512 bytes).
func firstLine(abs string) string {
	f, err := os.Open(abs)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return line
}

// validateInBrowser plays the browser validator: there is no browser in
// the sim, but its screenshot is a real PNG under .hive/screenshots/ in the
// worktree (not committed: hive keeps it with the run), and the blocker
// fault gives it one issue.
func (a *agent) validateInBrowser(job string, fs faults.Active) (map[string]any, error) {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := range 8 {
		for y := range 8 {
			img.Set(x, y, color.RGBA{R: 0xf5, G: 0xb7, B: 0x00, A: 0xff}) // hive yellow
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	name := fmt.Sprintf(".hive/screenshots/%s-%d.png", strings.ReplaceAll(cleanName(job, "browser-validator"), "_", "-"), a.Set.Attempt)
	if _, err := a.writeFile(name, b.String()); err != nil {
		return nil, err
	}
	issues := []any{}
	if fs.Has(faults.FaultBlocker) {
		issue, err := a.blockerIssue()
		if err != nil {
			return nil, err
		}
		issues = append(issues, issue)
	}
	return map[string]any{"screenshots": []string{name}, "issues": issues}, nil
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// cleanName is s as a file name's part: lowercase letters, digits and
// underscores, at most 40 bytes; def when nothing is left.
func cleanName(s, def string) string {
	s = strings.Trim(notSlug.ReplaceAllString(strings.ToLower(s), "_"), "_")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "_")
	}
	if s == "" {
		return def
	}
	return s
}

var migrationName = regexp.MustCompile(`^(\d+)_(.+)\.(?:up|down)\.sql$`)

// migrate plays the migrator: a plain SQL migration named after the
// objective, up and down, numbered after those in migrations/ (the same
// number again when a retry finds its own), committed.
func (a *agent) migrate(objective string) ([]string, map[string]any, error) {
	slug := cleanName(objective, "change")
	entries, err := os.ReadDir(filepath.Join(a.Dir, "migrations"))
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	num, next := 0, 1
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if m[2] == slug {
			num = n
		}
		next = max(next, n+1)
	}
	if num == 0 {
		num = next
	}
	base := fmt.Sprintf("migrations/%03d_%s", num, slug)
	table := "hive_sim_" + slug
	up := fmt.Sprintf("-- %s (written by the hive sim)\nCREATE TABLE %s (\n    id INTEGER PRIMARY KEY,\n    note TEXT NOT NULL\n);\n", repo.OneLine(objective, 100), table)
	down := fmt.Sprintf("-- Undoes %s.up.sql.\nDROP TABLE %s;\n", path.Base(base), table)
	var files []string
	for _, f := range []struct{ name, body string }{{base + ".up.sql", up}, {base + ".down.sql", down}} {
		w, err := a.writeFile(f.name, f.body)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, w...)
	}
	return files, map[string]any{"migration_files": files, "reversible": true}, nil
}

// badReport turns a report into one that breaks the role's contract: a
// role that lists issues leaves out its approval_status and gives an issue
// no severity; any other says it is "done", a status hive does not know,
// and gives no summary.
func badReport(r map[string]any) map[string]any {
	if _, ok := r["issues"]; ok {
		bad := map[string]any{}
		for k, v := range r {
			if k != "approval_status" {
				bad[k] = v
			}
		}
		bad["issues"] = []any{map[string]any{"category": "correctness", "file": "README.md", "line": 1,
			"title": "simulated: an issue without a severity", "description": "the badreport fault", "suggestion": "none"}}
		return bad
	}
	return map[string]any{"status": "done", "files": r["files"]}
}
