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

	"github.com/hivectl/hive/internal/pipeline"
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
		return Source{}, "", fmt.Errorf("prompt %q plays no role hive knows: name it ROLE or VARIANT-ROLE, with ROLE one of %s", name, strings.Join(pipeline.Roles, ", "))
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
// ends with after a dash (vue-implementer plays implementer).
func roleOf(name string) string {
	if slices.Contains(pipeline.Roles, name) {
		return name
	}
	for _, r := range pipeline.Roles {
		if strings.HasSuffix(name, "-"+r) && len(name) > len(r)+1 {
			return r
		}
	}
	return ""
}

// List resolves every role, and every variant found in the project's and
// the user's prompt folders, sorted by name.
func List(root, home string) ([]Source, error) {
	names := slices.Clone(pipeline.Roles)
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
	Context     *pipeline.Context
	PhaseDir    string // the architect writes its plans there
	PhaseNumber string
	PhaseSlug   string
	TestCommand string
}

// Render fills a prompt's text (a Go text/template that may use the
// shared "context", "challenge" and "report" templates) with d.
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
