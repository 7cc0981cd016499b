package planpath

import (
	"path"
	"regexp"
	"strings"
)

// A key link's from and to are written for people: "src/app.js
// (handleSubmit)", "api.ts#fetchUser", "src/db.ts:getUser", "handleSubmit
// in src/app.js", a bare file, or no file at all ("trackEvent mutation",
// "POST /api/users"). SplitKeyLinkRef finds the file and the symbol so that
// nothing treats the whole text as a path.

// codeExts are extensions that make a name without a slash a file name
// ("api.ts"), where "router.push" or "user.name" are code.
var codeExts = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`ts tsx mts cts js jsx mjs cjs vue svelte astro go py pyi rb rs java kt kts scala swift
		m mm c h cc cpp hpp cs fs ex exs erl hs clj dart php pl lua r jl zig nim sol
		sh bash zsh fish ps1 bat sql prisma graphql gql proto
		json jsonc yaml yml toml ini cfg conf env xml plist gradle lock
		md mdx txt rst html htm css scss sass less styl
		svg png jpg jpeg gif webp ico csv tsv`) {
		codeExts[e] = true
	}
}

// plainFileNames are files named without an extension.
var plainFileNames = map[string]bool{"Dockerfile": true, "Makefile": true, "Procfile": true, "Gemfile": true,
	"Rakefile": true, "Justfile": true, "Containerfile": true, "Vagrantfile": true, "Brewfile": true}

var (
	extRE        = regexp.MustCompile(`^[A-Za-z0-9]{1,10}$`)
	identRE      = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)
	connectorRE  = regexp.MustCompile(`^(?i:in|from|of|at|inside|within|via|->|→|-|—|–|:)$`)
	lineNumberRE = regexp.MustCompile(`^L?\d+(?:[-:]L?\d+)?$`)
)

// SplitKeyLinkRef splits a key link's from or to into the repository file it
// names (as written, "" when the text names no file) and the symbol it names
// in that file ("" when there is none or the words are prose rather than an
// identifier).
func SplitKeyLinkRef(ref string) (file, symbol string) {
	words := strings.Fields(strings.TrimSpace(ref))
	for i, w := range words {
		f, attached := splitFileWord(w)
		if f == "" {
			continue
		}
		if attached != "" {
			return f, symbolOf(attached)
		}
		var rest []string
		for j, o := range words {
			if j != i && !connectorRE.MatchString(o) {
				rest = append(rest, o)
			}
		}
		return f, symbolOf(strings.Join(rest, " "))
	}
	return "", ""
}

// splitFileWord reads one word as a file name with an optional symbol
// attached: "api.ts#fetchUser", "db.ts:getUser", "app.js(handleSubmit)".
// file is "" when the word is not a file name.
func splitFileWord(w string) (file, attached string) {
	w = strings.Trim(w, "`'\",;")
	if isFileName(w) {
		return w, ""
	}
	drive := len(w) >= 3 && isASCIILetter(w[0]) && w[1] == ':' && (w[2] == '/' || w[2] == '\\')
	for _, sep := range []string{"#", "::", ":", "("} {
		from := 0
		if drive && sep != "#" && sep != "(" {
			from = 2 // C:/x.ts:fn splits after the drive
		}
		i := strings.Index(w[from:], sep)
		if i < 0 {
			continue
		}
		i += from
		if f := strings.Trim(w[:i], "`'\""); isFileName(f) {
			return f, w[i+len(sep):]
		}
	}
	return "", ""
}

// isFileName tells a file name from code and prose: it has a slash and an
// extension, or a well-known extension, or is a well-known file.
func isFileName(w string) bool {
	if w == "" || strings.ContainsAny(w, "<>|*?\"") || strings.Contains(w, "://") {
		return false
	}
	s := strings.ReplaceAll(w, `\`, "/")
	if strings.HasPrefix(s, "/") && !hasSystemRoot(s) {
		return false // "/auth/.well-known/jwks.json" is a URL route
	}
	base := path.Base(s)
	if plainFileNames[base] {
		return true
	}
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 || dot == len(base)-1 {
		return false
	}
	ext := base[dot+1:]
	switch {
	case !extRE.MatchString(ext):
		return false
	case strings.Contains(s, "/"):
		return true
	}
	return codeExts[strings.ToLower(ext)] // "api.ts", ".env"; not "router.push"
}

// symbolOf reads the symbol out of the words after a file name:
// "(handleSubmit)", "handleSubmit()", "handleSubmit function". A single
// identifier counts; of several words, the first one if it looks like code
// (camelCase, snake_case, dotted), since "(main entry)" is prose.
func symbolOf(s string) string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return ""
	}
	first := strings.Trim(words[0], "`'\",;:()")
	if !identRE.MatchString(first) || lineNumberRE.MatchString(first) {
		return ""
	}
	if len(words) == 1 || looksLikeCode(first) {
		return first
	}
	return ""
}

func looksLikeCode(w string) bool {
	if strings.ContainsAny(w, "_.$") {
		return true
	}
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' {
			return true
		}
	}
	return false
}

// systemRoots are the top folders of absolute paths people paste from their
// machines; any other path starting with "/" in a key link is a URL route.
var systemRoots = []string{"Users", "home", "root", "tmp", "var", "etc", "opt", "usr", "srv", "mnt", "Volumes", "private", "workspace", "workspaces", "data", "app", "code"}

func hasSystemRoot(s string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(s, "/"), "/")
	for _, r := range systemRoots {
		if first == r {
			return true
		}
	}
	return false
}
