package roles

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/template"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

//go:embed prompts
var bundled embed.FS

// Where a prompt comes from, in the order they are looked for.
const (
	FromProject = "project"
	FromGlobal  = "global"
	FromBundled = "bundled"
)

// ProjectDir and GlobalDir are where prompts override the built-in ones:
// relative to the repository, and to the user's home.
const (
	ProjectDir = ".hive/agents"
	GlobalDir  = ".hive/global/agents"
)

// Source is the prompt a name resolved to.
type Source struct {
	Name   string `json:"name"`   // the role, or a variant such as vue-implementer
	Role   string `json:"role"`   // the role it plays
	Origin string `json:"origin"` // project, global or bundled
	Path   string `json:"path"`   // the file; for a bundled prompt, its name in hive
}

// Resolve finds the prompt of name (a role, or a variant whose name ends
// with -ROLE) for the repository at root and the user whose home is home
// ("" skips the global prompts), and returns it with its text.
func Resolve(root, home, name string) (Source, string, error) {
	role := roleOf(name)
	if role == "" {
		return Source{}, "", fmt.Errorf("prompt %q plays no role hive knows: name it ROLE or VARIANT-ROLE, with ROLE one of %s", name, strings.Join(known, ", "))
	}
	for _, place := range places(root, home) {
		p := filepath.Join(place.dir, name+".md")
		data, err := os.ReadFile(p)
		if err == nil {
			return Source{Name: name, Role: role, Origin: place.origin, Path: p}, string(data), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Source{}, "", fmt.Errorf("read the %s prompt of %s: %w", place.origin, name, err)
		}
	}
	data, err := bundled.ReadFile("prompts/" + name + ".md")
	if err != nil {
		return Source{}, "", fmt.Errorf("no prompt %s: write %s/%s.md (or %s in your home) to add it", name, ProjectDir, name, filepath.Join("~", GlobalDir, name+".md"))
	}
	return Source{Name: name, Role: role, Origin: FromBundled, Path: "prompts/" + name + ".md"}, string(data), nil
}

type place struct{ dir, origin string }

func places(root, home string) []place {
	out := []place{{filepath.Join(root, ProjectDir), FromProject}}
	if home != "" {
		out = append(out, place{filepath.Join(home, GlobalDir), FromGlobal})
	}
	return out
}

// roleOf is the role a prompt name plays: the name itself, or the role it
// ends with after a dash (vue-implementer plays implementer), or else the
// role it begins with before a dash (implementer-vue, as the shell Hive's
// users may spell it). Roles have dashes too, so the longest role that fits
// wins: vue-e2e-tester plays e2e-tester, not tester.
// known are the roles a prompt may play: hive run's, the planner, which
// plans a run before it starts, and the postmortem, which tells it after.
var known = append(slices.Clone(workflows.Roles), workflows.RolePlanner, workflows.RolePostmortem, workflows.RoleEvaluator)

func roleOf(name string) string {
	if slices.Contains(known, name) {
		return name
	}
	best := ""
	for _, r := range known {
		if len(r) > len(best) && len(name) > len(r)+1 && strings.HasSuffix(name, "-"+r) {
			best = r
		}
	}
	if best != "" {
		return best
	}
	for _, r := range known {
		if len(r) > len(best) && len(name) > len(r)+1 && strings.HasPrefix(name, r+"-") {
			best = r
		}
	}
	return best
}

// List resolves every role, and every variant built into hive or found in
// the project's and the user's prompt folders, sorted by name.
func List(root, home string) ([]Source, error) {
	names := slices.Clone(known)
	builtin, err := fs.ReadDir(bundled, "prompts")
	if err != nil {
		return nil, err
	}
	for _, e := range builtin {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if ok && roleOf(name) != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, place := range places(root, home) {
		entries, err := os.ReadDir(place.dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".md")
			if ok && !e.IsDir() && roleOf(name) != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	out := make([]Source, 0, len(names))
	for _, n := range names {
		src, _, err := Resolve(root, home, n)
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

// Data is what a role's prompt is filled with.
type Data struct {
	Role      string
	Objective string
	// Previous lists the roles that ran before this one, which it may
	// challenge.
	Previous    []string
	Context     *roleplan.Context
	PhaseDir    string // the architect writes its plans there
	PhaseNumber string
	PhaseSlug   string
	TestCommand string
	// Files are what the user gave every role (hive run -c).
	Files []roleplan.ContextFile
	// Warnings are what went wrong for this role in earlier runs, again
	// and again (the project's memory).
	Warnings []string
	// Tools are the command-line tools on the machine.
	Tools []string
	// Lessons are what the run got wrong and then fixed so far, for the
	// documenter to turn into learnings.
	Lessons []string
	// Parts are the context hive curated for the role (seed 003 §2.3).
	Parts []Part
	// Left is the ref where hive set aside what the attempt before this
	// one left uncommitted when it was cut off (Context.Interrupted).
	Left string
}

// Part is one titled piece of a role's curated context.
type Part struct {
	Title, Text string
}

// ReportFields is what the role's contract adds to the complete
// HIVE_REPORT: nothing for a prompt that calls the shared "report"
// template with its Data alone (see contract).
func (Data) ReportFields() string { return "" }

// Commits says whether the role commits its work: a role that only reads
// (the interviewer, the security audit) is told to change nothing.
func (Data) Commits() bool { return true }

// reportData is the shared "report" template's data for a role whose
// contract adds fields to its report, or that commits nothing. Its methods
// hide Data's, so the template reads both kinds the same way.
type reportData struct {
	Data
	fields  string
	commits bool
}

func (r reportData) ReportFields() string { return r.fields }
func (r reportData) Commits() bool        { return r.commits }

// contract is the template function that gives the shared "report"
// template a role's own report fields: {{template "report" (contract .
// "commit" `"reproduction": "..."`)}}. how is "commit" or "no-commit";
// fields are JSON members, shown in the complete report's example.
func contract(d Data, how, fields string) (reportData, error) {
	switch how {
	case "commit", "no-commit":
		return reportData{Data: d, fields: strings.TrimSpace(fields), commits: how == "commit"}, nil
	}
	return reportData{}, fmt.Errorf("contract: %q is neither \"commit\" nor \"no-commit\"", how)
}

// Render fills a prompt's text (a Go text/template that may use the
// shared "context", "challenge" and "report" templates, and the contract
// function) with d.
func Render(name, text string, d Data) (string, error) {
	shared, err := bundled.ReadFile("prompts/shared.tmpl")
	if err != nil {
		return "", err
	}
	t := template.New(name).Funcs(template.FuncMap{
		// challenge is the Phase 0 section's data: the role's questions
		// and the roles it may challenge.
		"challenge": func(d Data, questions string) any {
			return struct{ Questions, Previous string }{questions, strings.Join(d.Previous, ", ")}
		},
		"contract": contract,
		"join":     strings.Join,
	})
	if _, err := t.Parse(string(shared)); err != nil {
		return "", fmt.Errorf("shared prompt templates: %w", err)
	}
	if _, err := t.New(name + ".md").Parse(text); err != nil {
		return "", fmt.Errorf("prompt %s: %w", name, err)
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, name+".md", d); err != nil {
		return "", fmt.Errorf("prompt %s: %w", name, err)
	}
	return b.String(), nil
}

// Bundled is hive's own prompt of name, for when a project's or the
// user's cannot be rendered (the shell Hive's prompts use {{EPIC_ID}}
// placeholders that are no Go template).
func Bundled(name string) (string, error) {
	data, err := bundled.ReadFile("prompts/" + name + ".md")
	if err != nil {
		return "", fmt.Errorf("hive has no prompt %s", name)
	}
	return string(data), nil
}
