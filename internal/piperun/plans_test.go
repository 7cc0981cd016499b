package piperun

import (
	"os"
	"path/filepath"
	"testing"
)

// The architect's phase folder is numbered after the phases the project
// has, and named after the objective's whole first words, as the run's
// branch is: accented letters spelled plainly, never cut inside a word.
func TestNextPhase(t *testing.T) {
	dir := t.TempDir()
	for objective, want := range map[string]string{
		"add a health check endpoint":                              ".planning/phases/01-add-a-health-check-endpoint",
		"vérifier l'état du service":                               ".planning/phases/01-verifier-l-etat-du-service",
		"add OAuth login with Google, GitHub and GitLab providers": ".planning/phases/01-add-oauth-login-with-google-github-and",
		"修复登录": ".planning/phases/01-objective",
		"add a version endpoint that returns the build's commit hash": ".planning/phases/01-add-a-version-endpoint-that-returns-the",
	} {
		if got := nextPhase(dir, objective); got != want {
			t.Errorf("nextPhase(%q) = %q, want %q", objective, got, want)
		}
	}
	for _, p := range []string{"01-setup", "03-api", "notes"} {
		if err := os.MkdirAll(filepath.Join(dir, ".planning", "phases", p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := nextPhase(dir, "add a health check endpoint"); got != ".planning/phases/04-add-a-health-check-endpoint" {
		t.Errorf("nextPhase after phase 03 = %q", got)
	}
}
