package shellhive

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/workflows"
)

// Status of a file: hive uses it, ignores it, or cannot use it.
const (
	Used     = "used"
	Ignored  = "ignored"
	Unusable = "unusable"
)

// File is what hive makes of one file of the folder.
type File struct {
	Path   string // relative to the repository root, slash-separated
	Status string // Used, Ignored or Unusable
	Detail string // what hive does with it, or why not
	Fix    string // for Unusable: what makes it usable
}

// Report is Inspect's answer. Found is false when the folder shows no sign
// of the shell Hive; Files is then empty.
type Report struct {
	Found bool
	Files []File
}

// MaxMemory bounds Memory's text, in bytes.
const MaxMemory = 4096

// memory is the part of the shell Hive's memory.json hive reads.
type memory struct {
	SchemaVersion *int `json:"schema_version"`
	Project       struct {
		Name, Type, Language, Framework string
		BuildCommand                    string `json:"build_command"`
		TestCommand                     string `json:"test_command"`
	} `json:"project"`
	TechStack   texts           `json:"tech_stack"`
	Conventions texts           `json:"conventions"`
	Gotchas     texts           `json:"gotchas"`
	RunCount    *int            `json:"run_count"`
	AgentHist   json.RawMessage `json:"agent_history"`
}

// texts is a list of strings; an entry of another kind (an object a
// newer shell Hive wrote) is kept as its JSON text, not refused.
type texts []string

func (t *texts) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) != nil {
			s = string(r)
		}
		*t = append(*t, s)
	}
	return nil
}

func readMemory(root string) (memory, bool, error) {
	var m memory
	data, err := os.ReadFile(filepath.Join(root, ".hive", "memory.json"))
	if err != nil {
		return m, false, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, true, err
	}
	return m, true, nil
}

// isShellMemory tells the shell Hive's memory from any other memory.json.
func (m memory) isShell() bool {
	return m.SchemaVersion != nil || m.RunCount != nil || m.Conventions != nil || m.Gotchas != nil || m.AgentHist != nil
}

// Memory is the shell Hive's memory as a markdown block for a run's
// context: the project's facts, its conventions and gotchas, at most
// MaxMemory bytes. ok is false when there is none or nothing worth carrying.
func Memory(root string) (string, bool) {
	m, found, err := readMemory(root)
	if !found || err != nil || !m.isShell() {
		return "", false
	}
	var b strings.Builder
	b.WriteString("What the shell Hive learned about this project in earlier runs (its .hive/memory.json). Follow the conventions; mind the gotchas.\n")
	var facts []string
	p := m.Project
	for _, kv := range [][2]string{{"language", p.Language}, {"framework", p.Framework}, {"type", p.Type}, {"build", p.BuildCommand}, {"test", p.TestCommand}} {
		if s := strings.TrimSpace(kv[1]); s != "" {
			facts = append(facts, kv[0]+": "+s)
		}
	}
	if len(m.TechStack) > 0 {
		facts = append(facts, "tech stack: "+strings.Join(m.TechStack, ", "))
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString("\n## " + title + "\n")
		for _, it := range items {
			if it = strings.TrimSpace(it); it != "" {
				b.WriteString("- " + strings.ReplaceAll(it, "\n", " ") + "\n")
			}
		}
	}
	list("Project", facts)
	list("Gotchas", m.Gotchas) // before the conventions: the bound cuts the end
	list("Conventions", m.Conventions)
	if len(facts)+len(m.Conventions)+len(m.Gotchas) == 0 {
		return "", false
	}
	s := b.String()
	if len(s) > MaxMemory {
		cut := strings.LastIndex(s[:MaxMemory-40], "\n")
		s = s[:cut+1] + "- … (the rest is in .hive/memory.json)\n"
	}
	return s, true
}

// beads matches the shell Hive's Beads task tracker commands.
var beads = regexp.MustCompile(`(?m)(^|[\s` + "`" + `])bd (ready|show|create|update|close|note|list|dep)\b`)

// placeholder matches the shell Hive's {{NAME}} placeholders, which hive's
// prompt templates cannot read.
var placeholder = regexp.MustCompile(`\{\{\s*[A-Z][A-Z0-9_]*\s*\}\}`)

// Inspect says what hive makes of the shell Hive's files in root/.hive.
func Inspect(root string) Report {
	var r Report
	dir := filepath.Join(root, ".hive")
	add := func(f File) { r.Files = append(r.Files, f) }

	if m, found, err := readMemory(root); found {
		switch {
		case err != nil:
			add(File{".hive/memory.json", Unusable, "not JSON: " + err.Error(), "repair the JSON, or delete the file (hive does not need it)"})
			r.Found = true
		case m.isShell():
			r.Found = true
			add(File{".hive/memory.json", Used, fmt.Sprintf("the shell Hive's memory: %d convention(s) and %d gotcha(s) go into every run's context", len(m.Conventions), len(m.Gotchas)), ""})
		}
	}
	if f, shell := inspectConfig(root, ".hive/config.json"); shell {
		r.Found = true
		add(f)
	}
	if f, shell := inspectConfig(root, "hive.config.json"); shell {
		r.Found = true
		add(f)
	}
	agents, _ := filepath.Glob(filepath.Join(dir, "agents", "*.md"))
	sort.Strings(agents)
	for _, p := range agents {
		if f, shell := inspectAgent(p); shell {
			r.Found = true
			add(f)
		}
	}
	flows, _ := filepath.Glob(filepath.Join(dir, "workflows", "*.json"))
	sort.Strings(flows)
	for _, p := range flows {
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), `"phases"`) {
			continue // hive's own format, which hive workflows reports
		}
		r.Found = true
		rel := ".hive/workflows/" + filepath.Base(p)
		if w, err := workflows.Parse(rel, data); err != nil {
			add(File{rel, Unusable, err.Error(), "fix the phase the message names, or rewrite the file in hive's format (hive workflows --json shows one)"})
		} else {
			add(File{rel, Used, fmt.Sprintf("the shell Hive's workflow %s: hive run -w %s runs it", w.Name, w.Name), ""})
		}
	}
	return r
}

// hiveKeys are the top-level keys of .hive/config.json hive reads; the
// shell Hive's others are ignored.
var hiveKeys = []string{"models"}

// inspectConfig reads the config file rel: the shell Hive's .hive/config.json
// (hive's own when it has none of the shell Hive's keys) or its
// hive.config.json at the root, the simple format.
func inspectConfig(root, rel string) (File, bool) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return File{}, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return File{}, false // hive config reports it
	}
	_, a := top["codex_enabled"]
	_, b := top["features"]
	_, c := top["cli_overrides"]
	if !a && !b && !c && rel != "hive.config.json" {
		return File{}, false // hive's own config
	}
	var ignored []string
	for k := range top {
		if !slices.Contains(hiveKeys, k) && !strings.HasPrefix(k, "_") {
			ignored = append(ignored, k)
		}
	}
	sort.Strings(ignored)
	d := "the shell Hive's config: hive reads its models (a name alone runs on claude; hive models shows each role's)"
	if rel == "hive.config.json" {
		d = "the shell Hive's simple config: hive reads its models, under .hive/config.json's (hive models shows each role's)"
	}
	if len(ignored) > 0 {
		d += "; ignores " + strings.Join(ignored, ", ")
	}
	return File{rel, Used, d, ""}, true
}

func inspectAgent(path string) (File, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, false
	}
	text := string(data)
	name := strings.TrimSuffix(filepath.Base(path), ".md")
	rel := ".hive/agents/" + filepath.Base(path)
	hasBeads := beads.MatchString(text)
	hasPlaceholder := placeholder.MatchString(text)
	shell := hasBeads || hasPlaceholder || strings.Contains(text, "HIVE_REPORT") && !strings.Contains(text, "{{template")
	if !shell {
		return File{}, false // a hive prompt; hive agents lists it
	}
	if !slices.Contains(workflows.Roles, name) && !strings.Contains(name, "-") {
		return File{rel, Ignored, "no hive role is named " + name + "; hive runs no prompt by this name", "rename it to a hive role (hive agents lists them) to use it"}, true
	}
	var why []string
	if hasPlaceholder {
		why = append(why, "its "+placeholder.FindString(text)+" placeholders are not hive template syntax")
	}
	if hasBeads {
		why = append(why, "it tells the agent to run Beads (bd) commands hive does not track tasks with")
	}
	if len(why) > 0 {
		then := "; hive runs it anyway, and the agent will try commands that are not there"
		if hasPlaceholder {
			then = "; hive run plays " + name + " with its own prompt instead"
		}
		return File{rel, Unusable, "a shell-Hive prompt for " + name + ": " + strings.Join(why, "; ") + then,
			"delete it to use hive's built-in " + name + " prompt, or start from hive's (hive agents) and move your additions over"}, true
	}
	return File{rel, Used, "a shell-Hive prompt for " + name + "; hive runs it in place of its own", ""}, true
}
