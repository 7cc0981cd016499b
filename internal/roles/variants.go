package roles

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Framework is a framework the repository is built with, and the manifest
// that says so.
type Framework struct {
	Name     string `json:"name"`     // vue, react, django, go, …
	Manifest string `json:"manifest"` // package.json, requirements.txt, …
}

// jsFrameworks are the package.json dependencies hive knows, the most
// specific first: a Next app also depends on react, and its next-ROLE
// prompt, when there is one, fits it better than react-ROLE.
var jsFrameworks = []struct{ name, dep string }{
	{"next", "next"},
	{"nuxt", "nuxt"},
	{"sveltekit", "@sveltejs/kit"},
	{"angular", "@angular/core"},
	{"vue", "vue"},
	{"react", "react"},
	{"svelte", "svelte"},
}

// pyFrameworks are the Python web frameworks hive knows, by their
// distribution name.
var pyFrameworks = []string{"django", "flask", "fastapi"}

// Frameworks lists the frameworks the manifests at the repository's root
// name, the most specific first: package.json's dependencies and
// devDependencies, then requirements.txt and pyproject.toml, then go.mod
// and Cargo.toml. A manifest that cannot be read or parsed names nothing:
// a variant is a refinement, never a reason to fail.
func Frameworks(root string) []Framework {
	var out []Framework
	add := func(name, manifest string) {
		for _, f := range out {
			if f.Name == name {
				return
			}
		}
		out = append(out, Framework{Name: name, Manifest: manifest})
	}
	if deps := packageDeps(filepath.Join(root, "package.json")); deps != nil {
		for _, f := range jsFrameworks {
			if deps[f.dep] {
				add(f.name, "package.json")
			}
		}
	}
	for _, manifest := range []string{"requirements.txt", "pyproject.toml"} {
		names := pythonDeps(filepath.Join(root, manifest))
		for _, f := range pyFrameworks {
			if names[f] {
				add(f, manifest)
			}
		}
	}
	for _, m := range []struct{ name, manifest string }{{"go", "go.mod"}, {"rust", "Cargo.toml"}} {
		if _, err := os.Stat(filepath.Join(root, m.manifest)); err == nil {
			add(m.name, m.manifest)
		}
	}
	return out
}

// packageDeps is the set of a package.json's dependencies and
// devDependencies; nil when it is missing or not JSON.
func packageDeps(path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pkg struct {
		Deps    map[string]any `json:"dependencies"`
		DevDeps map[string]any `json:"devDependencies"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return nil
	}
	out := map[string]bool{}
	for _, m := range []map[string]any{pkg.Deps, pkg.DevDeps} {
		for k := range m {
			out[k] = true
		}
	}
	return out
}

// pyName is the distribution name a requirement begins with
// ("fastapi>=0.110", "Django[argon2]", "flask ; python_version>'3.8'").
var pyName = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)

// quoted is a TOML string, either kind of quote.
var quoted = regexp.MustCompile(`"([^"]*)"|'([^']*)'`)

// pythonDeps is the set of distribution names (lowercased) a
// requirements.txt or a pyproject.toml names; nil when it is missing.
func pythonDeps(path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	if filepath.Base(path) == "pyproject.toml" {
		return pyprojectDeps(string(data))
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		// Options (-r other.txt, -e ./pkg) name no distribution here.
		if m := pyName.FindStringSubmatch(line); m != nil && !strings.HasPrefix(strings.TrimSpace(line), "-") {
			out[strings.ToLower(m[1])] = true
		}
	}
	return out
}

// pyprojectDeps reads the dependencies of a pyproject.toml: PEP 621's
// [project] dependencies and optional-dependencies, PEP 735's
// [dependency-groups], and Poetry's dependency tables, whose keys are the
// names. It reads lines rather than parsing TOML (hive has no TOML
// parser): these are the layouts people write, and a keyword or a
// description that mentions flask must not count.
func pyprojectDeps(text string) map[string]bool {
	out := map[string]bool{}
	section := ""
	inArray := false // inside a dependency list that spans lines
	addQuoted := func(s string) {
		for _, m := range quoted.FindAllStringSubmatch(s, -1) {
			if n := pyName.FindStringSubmatch(m[1] + m[2]); n != nil {
				out[strings.ToLower(n[1])] = true
			}
		}
	}
	// closes says whether s ends a list: a ] outside its strings, since
	// "django[argon2]" holds one inside.
	closes := func(s string) bool { return strings.Contains(quoted.ReplaceAllString(s, ""), "]") }
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		if inArray {
			addQuoted(line)
			inArray = !closes(line)
			continue
		}
		if strings.HasPrefix(line, "[") && !strings.Contains(line, "=") {
			section = strings.Trim(line, "[] ")
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key = strings.Trim(strings.TrimSpace(key), `"'`)
		val = strings.TrimSpace(val)
		table := strings.HasSuffix(section, "dependencies") || section == "dependency-groups"
		switch {
		case (section == "project" && key == "dependencies") || (table && strings.HasPrefix(val, "[")):
			addQuoted(val)
			inArray = !closes(val)
		case table && strings.HasPrefix(section, "tool.poetry"):
			out[strings.ToLower(key)] = true
		}
	}
	return out
}

// Variant is the prompt a role plays in the repository at root: the first
// framework variant of it (FRAMEWORK-ROLE, or ROLE-FRAMEWORK as the shell
// Hive's users may name it, such as vue-implementer) that has a prompt in
// the project, the user's home ("" skips it) or hive, else the role
// itself. A variant is chosen only from a place at least as near as the
// role's own prompt: a project's implementer.md beats a vue-implementer.md
// built into hive, since the project wrote it for itself. fw is the
// framework chosen, zero with the role itself.
func Variant(root, home, role string) (name string, fw Framework) {
	own := nearest(root, home, role)
	if own < 0 {
		return role, Framework{}
	}
	for _, f := range Frameworks(root) {
		for _, n := range []string{f.Name + "-" + role, role + "-" + f.Name} {
			if roleOf(n) != role {
				continue
			}
			if at := nearest(root, home, n); at >= 0 && at <= own {
				return n, f
			}
		}
	}
	return role, Framework{}
}

// nearest is the index of the nearest place holding name's prompt: 0 for
// the project, then the user's home, then hive's own; -1 when none does.
func nearest(root, home, name string) int {
	ps := places(root, home)
	for i, p := range ps {
		st, err := os.Stat(filepath.Join(p.dir, name+".md"))
		if err == nil && !st.IsDir() {
			return i
		}
	}
	if _, err := fs.Stat(bundled, "prompts/"+name+".md"); err == nil {
		return len(ps)
	}
	return -1
}
