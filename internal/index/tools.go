package index

import "slices"

// KnownTools are the command-line tools hive looks for on the machine, so
// that roles know what they may use (seed 003 §6.3): databases, clouds,
// containers, and the language tool chains.
var KnownTools = []string{
	"docker", "podman", "kubectl", "helm", "terraform",
	"psql", "mysql", "sqlite3", "redis-cli", "mongosh",
	"aws", "gcloud", "az", "bq", "gh",
	"go", "node", "npm", "pnpm", "yarn", "bun", "deno",
	"python3", "pytest", "cargo", "java", "mvn", "gradle", "ruby", "php", "dotnet",
	"make", "chromium", "google-chrome", "playwright",
}

// Allowed are the tools of found that only lists, in found's order; all of
// found when only is empty (the config's "tools" key, which limits what
// hive run's roles are told they may use).
func Allowed(found, only []string) []string {
	if len(only) == 0 {
		return found
	}
	var out []string
	for _, t := range found {
		if slices.Contains(only, t) {
			out = append(out, t)
		}
	}
	return out
}

// Tools are the KnownTools that lookPath finds (exec.LookPath), in
// KnownTools' order.
func Tools(lookPath func(string) (string, error)) []string {
	var out []string
	for _, t := range KnownTools {
		if _, err := lookPath(t); err == nil {
			out = append(out, t)
		}
	}
	return out
}
