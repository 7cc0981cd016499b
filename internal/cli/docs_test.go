package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/config"
)

// readmeSection returns the text of README.md's "## title" section.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	start := strings.Index(s, "\n## "+title+"\n")
	if start < 0 {
		t.Fatalf("README.md has no section %q", title)
	}
	s = s[start+1:]
	if end := strings.Index(s[3:], "\n## "); end >= 0 {
		s = s[:end+3]
	}
	return s
}

var (
	markdownBlockRE = regexp.MustCompile("(?s)```markdown\n(.*?)\n```\n")
	frontmatterRE   = regexp.MustCompile(`(?m)^(phase|plan): *"?([0-9A-Za-z.-]+)"?$`)
)

// The complete plan in "Write your own plans" passes hive lint without an
// error, a warning or a note, saved where the section says to save it: the
// documented format cannot drift from what hive accepts.
func TestReadmePlanExample(t *testing.T) {
	section := readmeSection(t, "Write your own plans")
	m := markdownBlockRE.FindStringSubmatch(section)
	if m == nil || !strings.HasPrefix(m[1], "---\n") {
		t.Fatal("the section has no ```markdown block holding a plan")
	}
	example := m[1] + "\n"
	keys := map[string]string{}
	for _, kv := range frontmatterRE.FindAllStringSubmatch(example, -1) {
		if _, seen := keys[kv[1]]; !seen {
			keys[kv[1]] = kv[2]
		}
	}
	phaseDir, planNum := keys["phase"], keys["plan"]
	if phaseDir == "" || planNum == "" {
		t.Fatalf("the example's frontmatter lacks phase or plan: %q", keys)
	}
	number, _, _ := strings.Cut(phaseDir, "-")
	rel := ".planning/phases/" + phaseDir + "/" + number + "-" + planNum + "-PLAN.md"
	if !strings.Contains(section, "`"+rel+"`") {
		t.Errorf("the section does not tell to save the example as %s", rel)
	}

	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"lint", "--repo", dir}, strings.NewReader(""), &stdout, &stderr)
	if want := "1 phase(s), 1 plan(s): 0 error(s), 0 warning(s), 0 note(s)"; code != 0 || !strings.Contains(stdout.String(), want) {
		t.Errorf("hive lint of the README's example: exit %d, want 0 and %q:\n%s%s", code, want, stdout.String(), stderr.String())
	}
	for _, want := range []string{`type="auto"`, `type="tdd"`, `type="checkpoint:decision"`, `type="checkpoint:human-verify"`, "must_haves:", "depends_on:"} {
		if !strings.Contains(example, want) {
			t.Errorf("the example does not show %s", want)
		}
	}
}

// "Configuration keys" explains every key of the file hive init writes, and
// no key that does not exist.
func TestReadmeConfigKeys(t *testing.T) {
	section := readmeSection(t, "Configuration keys")
	// The defaults, with the keys a file holds only when they are set.
	cfg, err := config.Parse([]byte(`{"budget": {"usd": 1, "tokens": 1, "plan_usd": 1},
 "loop_guard": {"warn_repeat": 3, "stop_repeat": 5, "max_calls": 9},
 "routing": {"evaluate": true, "confidence_floor": 60, "skip_proven": true, "proven_runs": 3, "proven_confidence": 63},
 "context": {"handoff_percent": 50, "handoff_tokens": 1, "window": 1, "notes_wait": "2m"},
 "notifications": {"public_url": "https://hive.example.com"},
 "backend": {"kind": "temporal", "temporal": {"address": "10.0.0.5:7233", "namespace": "team", "task_queue": "q", "remote": "origin"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var want []string
	var walk func(prefix string, obj map[string]any)
	walk = func(prefix string, obj map[string]any) {
		for k, v := range obj {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			// A role's entry under models is documented as a whole.
			if child, ok := v.(map[string]any); ok && prefix != "models" {
				walk(p, child)
				continue
			}
			want = append(want, p)
		}
	}
	walk("", file)
	slices.Sort(want)
	documented := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, k := range regexp.MustCompile("`([a-z_.]+)`").FindAllStringSubmatch(first, -1) {
			documented[k[1]] = true
		}
	}
	for _, k := range want {
		if !documented[k] {
			t.Errorf("README's Configuration keys lacks %s", k)
		}
		delete(documented, k)
	}
	for _, role := range []string{"models.executor", "models.verifier", "models.comb"} {
		delete(documented, role) // roles without a default entry
	}
	for k := range documented {
		t.Errorf("README's Configuration keys documents %s, which the config file does not have", k)
	}
}
