package index

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Bounds on the files the index reads, whatever the repository's size.
const (
	maxManifests    = 40
	maxManifestSize = 1 << 20
	maxSourceReads  = 400     // Go files read for "package main", Rust files for tests
	sourceHead      = 8 << 10 // bytes of a source file read
)

// goFrameworks maps a Go module path (or its prefix, before a /vN) to the
// framework's name.
var goFrameworks = map[string]string{
	"github.com/gin-gonic/gin":           "gin",
	"github.com/labstack/echo":           "echo",
	"github.com/go-chi/chi":              "chi",
	"github.com/gofiber/fiber":           "fiber",
	"github.com/gorilla/mux":             "gorilla/mux",
	"github.com/spf13/cobra":             "cobra",
	"github.com/urfave/cli":              "urfave/cli",
	"google.golang.org/grpc":             "grpc",
	"connectrpc.com/connect":             "connect",
	"github.com/charmbracelet/bubbletea": "bubbletea",
	"charm.land/bubbletea":               "bubbletea",
	"gorm.io/gorm":                       "gorm",
	"github.com/jackc/pgx":               "pgx",
	"github.com/stretchr/testify":        "testify",
	"github.com/a-h/templ":               "templ",
	"github.com/gdamore/tcell":           "tcell",
	"github.com/rivo/tview":              "tview",
}

// jsFrameworks maps an npm package to the framework's name; frontend
// names the ones that make a frontend.
var jsFrameworks = map[string]string{
	"react": "react", "vue": "vue", "svelte": "svelte", "@sveltejs/kit": "sveltekit",
	"next": "next", "nuxt": "nuxt", "@angular/core": "angular", "solid-js": "solid",
	"preact": "preact", "astro": "astro", "@remix-run/react": "remix", "lit": "lit",
	"express": "express", "fastify": "fastify", "koa": "koa", "@nestjs/core": "nestjs", "hono": "hono",
	"vite": "vite", "electron": "electron", "tailwindcss": "tailwind",
	"jest": "jest", "vitest": "vitest", "mocha": "mocha", "@playwright/test": "playwright", "cypress": "cypress",
}

var pyFrameworks = map[string]string{
	"django": "django", "flask": "flask", "fastapi": "fastapi", "starlette": "starlette",
	"tornado": "tornado", "aiohttp": "aiohttp", "streamlit": "streamlit", "sqlalchemy": "sqlalchemy",
	"celery": "celery", "pytest": "pytest",
}

var rustFrameworks = map[string]string{
	"axum": "axum", "actix-web": "actix", "rocket": "rocket", "warp": "warp", "tokio": "tokio",
	"clap": "clap", "tauri": "tauri", "bevy": "bevy", "yew": "yew", "leptos": "leptos", "dioxus": "dioxus",
}

var frontendFrameworks = map[string]bool{
	"react": true, "vue": true, "svelte": true, "sveltekit": true, "next": true, "nuxt": true,
	"angular": true, "solid": true, "preact": true, "astro": true, "remix": true, "lit": true,
	"yew": true, "leptos": true, "dioxus": true,
}

// manifestKind names the kind of a manifest file by its name, or "".
func manifestKind(name string) string {
	switch name {
	case "go.mod", "package.json", "Cargo.toml", "pyproject.toml", "setup.py", "setup.cfg", "Pipfile":
		return name
	}
	if strings.HasPrefix(name, "requirements") && strings.HasSuffix(name, ".txt") {
		return "requirements.txt"
	}
	return ""
}

// manifests lists the manifests among files: the repository's own and
// those of its packages up to two folders down (a web/ frontend beside a Go
// service, a monorepo's packages/*), the shallowest first.
func manifests(files []string) []string {
	var out []string
	for _, f := range files {
		if strings.Count(f, "/") <= 2 && manifestKind(path.Base(f)) != "" {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.Count(out[i], "/") < strings.Count(out[j], "/") })
	if len(out) > maxManifests {
		out = out[:maxManifests]
	}
	return out
}

// frameworks reads the frameworks the manifests depend on; a framework
// named by several manifests is listed once, with the shallowest.
func frameworks(root string, files []string, ix *Index) {
	seen := map[string]bool{}
	for _, m := range manifests(files) {
		data, err := readHead(filepath.Join(root, filepath.FromSlash(m)), maxManifestSize)
		if err != nil {
			continue
		}
		var names []string
		switch manifestKind(path.Base(m)) {
		case "go.mod":
			names = goRequires(data)
		case "package.json":
			var pkg packageJSON
			if err := json.Unmarshal(data, &pkg); err != nil {
				ix.note(fmt.Sprintf("%s does not parse: %v", m, err))
				continue
			}
			names = pkg.frameworks()
		case "Cargo.toml":
			names = mapNames(tomlDependencies(data), rustFrameworks)
		case "requirements.txt", "setup.cfg":
			names = mapNames(requirementLines(data), pyFrameworks)
		default: // pyproject.toml, setup.py, Pipfile
			names = mapNames(append(tomlDependencies(data), quotedRequirements(data)...), pyFrameworks)
		}
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			if len(ix.Frameworks) == maxFrameworks {
				ix.MoreFrameworks++
				continue
			}
			ix.Frameworks = append(ix.Frameworks, Framework{Name: n, Manifest: m, Frontend: frontendFrameworks[n]})
		}
	}
}

// mapNames maps dependency names through table, in order, once each.
func mapNames(deps []string, table map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range deps {
		if n, ok := table[strings.ToLower(d)]; ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// goRequires maps a go.mod's direct requirements to frameworks: an
// indirect one is a dependency's choice, not the project's.
func goRequires(data []byte) []string {
	var out []string
	seen := map[string]bool{}
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "require ("):
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		if strings.Contains(line, "// indirect") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		mod := fields[0]
		for prefix, name := range goFrameworks {
			if (mod == prefix || strings.HasPrefix(mod, prefix+"/")) && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// packageJSON is what the index reads of a package.json.
type packageJSON struct {
	Main            string            `json:"main"`
	Bin             json.RawMessage   `json:"bin"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
	PeerDeps        map[string]string `json:"peerDependencies"`
}

func (p packageJSON) frameworks() []string {
	var deps []string
	for _, m := range []map[string]string{p.Dependencies, p.PeerDeps, p.DevDependencies} {
		for d := range m {
			deps = append(deps, d)
		}
	}
	sort.Strings(deps)
	return mapNames(deps, jsFrameworks)
}

// bins returns package.json's bin entries: one path, or names to paths.
func (p packageJSON) bins() map[string]string {
	var one string
	if json.Unmarshal(p.Bin, &one) == nil && one != "" {
		return map[string]string{"": one}
	}
	var many map[string]string
	if json.Unmarshal(p.Bin, &many) == nil {
		return many
	}
	return nil
}

var tomlSection = regexp.MustCompile(`^\[+\s*([^\]]+?)\s*\]+`)
var tomlKey = regexp.MustCompile(`^"?([A-Za-z0-9_.-]+)"?\s*=`)

// tomlDependencies returns the keys of a TOML file's dependency tables
// ([dependencies], [dev-dependencies], [tool.poetry.dependencies],
// Pipfile's [packages]) and the names in [dependencies.NAME] headers.
// Reading only those keys keeps "a Flask extension" in a description from
// counting as a dependency.
func tomlDependencies(data []byte) []string {
	var out []string
	inDeps := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if m := tomlSection.FindStringSubmatch(line); m != nil {
			section := m[1]
			inDeps = strings.HasSuffix(section, "dependencies") || section == "packages" || section == "dev-packages"
			if i := strings.Index(section, "dependencies."); i >= 0 {
				out = append(out, strings.Trim(section[i+len("dependencies."):], `"`))
			}
			continue
		}
		if m := tomlKey.FindStringSubmatch(line); inDeps && m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// requirement is a PEP 508 requirement's start: a name, maybe extras, then
// a version, a marker or the end.
var requirement = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([<>=!~;@(].*)?$`)

var quoted = regexp.MustCompile(`"([^"\n]*)"|'([^'\n]*)'`)

// quotedRequirements returns the names of the quoted strings that read as
// requirements ("fastapi>=0.110", 'django'), as pyproject's dependency
// arrays and setup.py's install_requires hold them.
func quotedRequirements(data []byte) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(string(data), -1) {
		s := m[1] + m[2]
		if r := requirement.FindStringSubmatch(strings.TrimSpace(s)); r != nil {
			out = append(out, r[1])
		}
	}
	return out
}

// requirementLines returns the names of a requirements file's lines (and
// of setup.cfg's install_requires lines, which have the same form).
func requirementLines(data []byte) []string {
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "-") {
			continue
		}
		if r := requirement.FindStringSubmatch(line); r != nil {
			out = append(out, r[1])
		}
	}
	return out
}

// readHead reads at most n bytes of the file at p.
func readHead(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(bufio.NewReader(f), n))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
