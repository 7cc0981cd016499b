package index

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
