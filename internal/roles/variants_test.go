package roles

import (
	"path/filepath"
	"slices"
	"testing"
)

func frameworkNames(root string) []string {
	var out []string
	for _, f := range Frameworks(root) {
		out = append(out, f.Name+"@"+f.Manifest)
	}
	return out
}

// The manifests at the root name the frameworks, the most specific first;
// words in a description, options of requirements.txt and unreadable
// manifests name none.
func TestFrameworks(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"none", map[string]string{"README.md": "# vue react django"}, nil},
		{"next app", map[string]string{"package.json": `{"dependencies": {"next": "14.2.0", "react": "^18"}, "devDependencies": {"vitest": "1"}}`},
			[]string{"next@package.json", "react@package.json"}},
		{"vue dev dependency", map[string]string{"package.json": `{"devDependencies": {"vue": "^3.4"}}`}, []string{"vue@package.json"}},
		{"angular, svelte", map[string]string{"package.json": `{"dependencies": {"@angular/core": "17", "svelte": "4"}}`},
			[]string{"angular@package.json", "svelte@package.json"}},
		{"broken package.json", map[string]string{"package.json": `{"dependencies": {"vue": `}, nil},
		{"requirements", map[string]string{"requirements.txt": "# flask was dropped\nDjango[argon2]>=5.0 ; python_version > '3.10'\n-e ./fastapi\npsycopg\n"},
			[]string{"django@requirements.txt"}},
		{"pep 621", map[string]string{"pyproject.toml": "[project]\nname = \"svc\"\ndescription = \"A flask-like service\"\nkeywords = [\"flask\"]\ndependencies = [\n  \"fastapi[standard]>=0.110\",\n  'uvicorn',\n]\n[project.optional-dependencies]\nadmin = [\"django>=5\"]\n"},
			[]string{"django@pyproject.toml", "fastapi@pyproject.toml"}},
		{"poetry", map[string]string{"pyproject.toml": "[tool.poetry]\nname = \"flask\"\n[tool.poetry.dependencies]\npython = \"^3.12\"\nFlask = \"^3.0\"\n"},
			[]string{"flask@pyproject.toml"}},
		{"go and rust", map[string]string{"go.mod": "module x\n", "Cargo.toml": "[package]\n"}, []string{"go@go.mod", "rust@Cargo.toml"}},
	}
	for _, c := range cases {
		root := t.TempDir()
		for name, text := range c.files {
			writeFile(t, filepath.Join(root, name), text)
		}
		if got := frameworkNames(root); !slices.Equal(got, c.want) {
			t.Errorf("%s: Frameworks = %v, want %v", c.name, got, c.want)
		}
	}
}

// A role plays the variant of the repository's framework when a prompt of
// it exists no farther than the role's own; else the role itself.
func TestVariant(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, GlobalDir, "vue-tester.md"), "the user's Vue tester")
	repo := func(files map[string]string) string {
		root := t.TempDir()
		for name, text := range files {
			writeFile(t, filepath.Join(root, name), text)
		}
		return root
	}
	vue := `{"dependencies": {"vue": "^3"}}`
	cases := []struct {
		name       string
		root       string
		home, role string
		want, fw   string
	}{
		{"bundled vue variant", repo(map[string]string{"package.json": vue}), home, "implementer", "vue-implementer", "vue"},
		{"bundled react variant", repo(map[string]string{"package.json": `{"dependencies": {"react": "18"}}`}), home, "implementer", "react-implementer", "react"},
		{"next falls back to react", repo(map[string]string{"package.json": `{"dependencies": {"next": "14", "react": "18"}}`}), home, "implementer", "react-implementer", "react"},
		{"next's own variant wins", repo(map[string]string{"package.json": `{"dependencies": {"next": "14", "react": "18"}}`, ProjectDir + "/next-implementer.md": "next"}),
			home, "implementer", "next-implementer", "next"},
		{"no variant of the role", repo(map[string]string{"package.json": vue}), home, "reviewer", "reviewer", ""},
		{"no framework", repo(nil), home, "implementer", "implementer", ""},
		{"the project's own implementer beats a bundled variant", repo(map[string]string{"package.json": vue, ProjectDir + "/implementer.md": "ours"}),
			home, "implementer", "implementer", ""},
		{"the project's variant, shell-Hive spelling", repo(map[string]string{"package.json": vue, ProjectDir + "/implementer.md": "ours", ProjectDir + "/implementer-vue.md": "ours, for vue"}),
			home, "implementer", "implementer-vue", "vue"},
		{"the user's variant", repo(map[string]string{"package.json": vue}), home, "tester", "vue-tester", "vue"},
		{"no home, no user's variant", repo(map[string]string{"package.json": vue}), "", "tester", "tester", ""},
		{"the user's variant loses to the project's role", repo(map[string]string{"package.json": vue, ProjectDir + "/tester.md": "ours"}), home, "tester", "tester", ""},
		{"a go variant", repo(map[string]string{"go.mod": "module x\n", ProjectDir + "/go-e2e-tester.md": "go e2e"}), home, "e2e-tester", "go-e2e-tester", "go"},
		{"a variant of another role is not one of this", repo(map[string]string{"go.mod": "module x\n", ProjectDir + "/go-e2e-tester.md": "go e2e"}), home, "tester", "tester", ""},
	}
	for _, c := range cases {
		name, fw := Variant(c.root, c.home, c.role)
		if name != c.want || fw.Name != c.fw {
			t.Errorf("%s: Variant = %s (%+v), want %s (%s)", c.name, name, fw, c.want, c.fw)
		}
		if _, _, err := Resolve(c.root, c.home, name); err != nil {
			t.Errorf("%s: the variant chosen does not resolve: %v", c.name, err)
		}
	}
}
