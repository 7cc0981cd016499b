package gitx

import (
	"context"
	"os"
	"testing"
)

// Identity reads who git would commit as, and tells a configured identity
// from one git guesses or lacks.
func TestIdentity(t *testing.T) {
	ctx := context.Background()
	// Only the repository's own config counts here: no identity from the
	// environment, the system or the home folder.
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())

	r := newTestRepo(t) // user.name "Hive Test", user.email hive@example.invalid
	if ident, guessed := r.Identity(ctx); ident != "Hive Test <hive@example.invalid>" || guessed {
		t.Errorf("configured: Identity = %q, guessed %v; want Hive Test <hive@example.invalid>, false", ident, guessed)
	}

	for _, key := range []string{"user.name", "user.email"} {
		if _, err := r.Git(ctx, "config", "--unset", key); err != nil {
			t.Fatal(err)
		}
	}
	// Unconfigured, git either guesses from the machine (user name, host
	// name) or refuses, as it does on a host without a domain: never is
	// that taken for a configured identity.
	switch ident, guessed := r.Identity(ctx); {
	case ident == "" && guessed:
		t.Errorf("unconfigured: no identity, yet guessed")
	case ident != "" && !guessed:
		t.Errorf("unconfigured: Identity = %q taken as configured", ident)
	}
}
