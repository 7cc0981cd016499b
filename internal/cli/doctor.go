package cli

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/stalelocks"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner/cleanup"
	"github.com/hivectl/hive/internal/shellhive"
	"github.com/spf13/cobra"
)

// check is one finding of hive doctor.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warning, problem
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

func newDoctorCmd(g *globalOptions) *cobra.Command {
	var asJSON, fix bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check what hive needs: git, the agent CLIs and their logins, gh, the configuration, leftovers of killed runs",
		Long: `Check what hive needs, each problem with its fix: git, and the identity
commits are made with (without one, hive commits as hive <hive@localhost>);
the agent CLI the configuration runs (models.executor, else claude), that it
is installed and logged in (a Claude Code login counts; an API key is not
required); the other agent CLIs and gh, which are optional; the
configuration file; and worktrees and branches that killed runs left. Exit 0 only when nothing is a problem.
--fix does what is safe: it removes the worktrees and merged branches of
killed runs (as hive clean does).`,
		Example: `  hive doctor
  hive doctor --fix
  hive doctor --json | jq '.[] | select(.status != "ok")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := doctor(cmd.Context(), g, fix)
			problems := 0
			for _, c := range checks {
				if c.Status == "problem" {
					problems++
				}
			}
			if asJSON {
				if err := printJSON(g.stdout, checks); err != nil {
					return err
				}
			} else {
				for _, c := range checks {
					mark := map[string]string{"ok": "✓", "warning": "!", "problem": "✗"}[c.Status]
					fmt.Fprintf(g.stdout, "%s %-10s %s\n", mark, c.Name, strings.ReplaceAll(c.Detail, "\n", "\n             "))
					if c.Fix != "" {
						fmt.Fprintf(g.stdout, "  %-10s fix: %s\n", "", c.Fix)
					}
				}
				if problems == 0 {
					fmt.Fprintln(g.stdout, "\nall is well")
				} else {
					fmt.Fprintf(g.stdout, "\n%d problem(s)\n", problems)
				}
			}
			if problems > 0 {
				return exit.Silent(exit.Failed)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks as a JSON array: name, status (ok, warning, problem), detail, fix")
	cmd.Flags().BoolVar(&fix, "fix", false, "remove the worktrees and merged branches of killed runs")
	return cmd
}

func doctor(ctx context.Context, g *globalOptions, fix bool) []check {
	var out []check
	add := func(c check) { out = append(out, c) }
	if v, err := exec.CommandContext(ctx, "git", "--version").Output(); err != nil {
		add(check{"git", "problem", "git is not installed", "install git (https://git-scm.com/downloads)"})
	} else {
		add(check{"git", "ok", strings.TrimSpace(string(v)), ""})
	}
	repo, err := gitx.Open(ctx, g.repo)
	if err != nil {
		add(check{"repository", "problem", err.Error(), "run hive in a git repository (git init)"})
		return out
	}
	add(identityCheck(ctx, repo))
	cfg, err := config.Load(repo.Root)
	if err != nil {
		add(check{"config", "problem", err.Error(), "fix the file the message names (hive lint checks it too)"})
		cfg = config.Default()
	} else {
		add(check{"config", "ok", "configuration loads", ""})
	}
	// The CLI the configuration runs must work; the others are optional.
	main := cfg.Model("executor").CLI
	for _, name := range []string{"claude", "codex"} {
		l, _ := runconfig.Launcher(name, cfg, "executor")
		r, err := adapter.Preflight(ctx, l, adapter.PreflightOptions{Allow: cfg.Secrets.Env})
		status := "warning"
		if name == main {
			status = "problem"
		}
		if err != nil {
			fix := ""
			if msg := err.Error(); !strings.Contains(msg, "install it with") && !strings.Contains(msg, "Fix it with") {
				fix = map[string]string{"claude": "npm install -g @anthropic-ai/claude-code", "codex": "npm install -g @openai/codex"}[name] +
					", or set models.executor.path in .hive/config.json to the program"
			}
			add(check{name, status, err.Error(), fix})
			continue
		}
		add(check{name, "ok", r.String(), ""})
	}
	if main != "claude" && main != "codex" {
		l, err := runconfig.Launcher(main, cfg, "executor")
		if err == nil {
			if r, perr := adapter.Preflight(ctx, l, adapter.PreflightOptions{Allow: cfg.Secrets.Env}); perr != nil {
				add(check{main, "problem", perr.Error(), "set models.executor in .planning/config.json"})
			} else {
				add(check{main, "ok", r.String(), ""})
			}
		}
	}
	if _, err := exec.LookPath("gh"); err != nil {
		add(check{"gh", "warning", "gh is not installed (only needed to open pull requests)", "install the GitHub CLI (https://cli.github.com), then gh auth login"})
	} else if err := ghAuthStatus(ctx); err != nil {
		add(check{"gh", "warning", "gh is not logged in (only needed to open pull requests)", "gh auth login"})
	} else {
		add(check{"gh", "ok", "installed and logged in", ""})
	}
	add(leftovers(ctx, repo, runconfig.WorktreeRoot(cfg, repo.Root), fix))
	out = append(out, staleLocks(ctx, repo, runconfig.WorktreeRoot(cfg, repo.Root), fix)...)
	out = append(out, shellHiveChecks(repo.Root)...)
	return out
}

// shellHiveChecks say what hive makes of each file the shell Hive left in
// .hive/: used, ignored, or unusable with the fix. None is a problem: hive
// runs without them.
func shellHiveChecks(root string) []check {
	r := shellhive.Inspect(root)
	var out []check
	for _, f := range r.Files {
		status := map[string]string{shellhive.Used: "ok", shellhive.Ignored: "warning", shellhive.Unusable: "warning"}[f.Status]
		out = append(out, check{"shell Hive", status, f.Path + ": " + f.Detail, f.Fix})
	}
	return out
}

// leftovers reports the worktrees and hive branches killed runs left,
// and with fix removes what hive clean would.
func leftovers(ctx context.Context, repo *gitx.Repo, root string, fix bool) check {
	wts, err := worktrees.List(ctx, repo)
	if err != nil {
		return check{"leftovers", "warning", "could not list worktrees: " + err.Error(), ""}
	}
	var found []string
	for _, wt := range wts {
		if strings.HasPrefix(wt.Branch, "hive/") {
			found = append(found, wt.Branch)
		}
	}
	branches, _ := repo.Git(ctx, "branch", "--list", "hive/*", "--format=%(refname:short)")
	nb := len(strings.Fields(branches))
	if len(found) == 0 && nb == 0 {
		return check{"leftovers", "ok", "no worktree or hive branch left by a run", ""}
	}
	detail := fmt.Sprintf("%d hive worktree(s) and %d hive branch(es) (%s): a run is under way, or one was killed", len(found), nb, strings.Join(found, ", "))
	if !fix {
		return check{"leftovers", "warning", detail, "resume the run (hive execute-phase N, hive run --resume), or hive doctor --fix (hive clean) to remove what no live run uses"}
	}
	if err := unfinishedPipeline(repo.Root); err != nil {
		return check{"leftovers", "warning", detail + "; " + err.Error(), ""}
	}
	rep, err := cleanup.Clean(ctx, repo, root)
	if err != nil {
		return check{"leftovers", "problem", detail + "; hive clean failed: " + err.Error(), "hive clean"}
	}
	return check{"leftovers", "ok", fmt.Sprintf("removed %d worktree(s) and %d merged branch(es); kept %d branch(es) with unmerged work", len(rep.Removed), len(rep.Deleted), len(rep.Kept)), ""}
}

// staleLocks reports the git locks a killed git left (git refuses to work
// while they exist): with fix, those in hive's worktrees and branches are
// removed; the user's own are only reported, with the command.
func staleLocks(ctx context.Context, repo *gitx.Repo, root string, fix bool) []check {
	if root == "" {
		root, _ = worktrees.DefaultRoot(repo.Root)
	}
	hive, user, err := stalelocks.List(ctx, repo, root, "hive")
	if err != nil {
		return []check{{"locks", "warning", "could not look for stale git locks: " + err.Error(), ""}}
	}
	var out []check
	for _, p := range user {
		out = append(out, check{"locks", "warning", p + ": a git lock no process holds (a git was killed); git refuses to work in this repository until it is gone", "make sure no git command is running, then rm " + shellQuote(p)})
	}
	switch {
	case len(hive) > 0 && fix:
		notes, err := stalelocks.Clear(ctx, repo, root, "hive")
		if err != nil {
			out = append(out, check{"locks", "problem", err.Error(), "remove the file the message names"})
		} else {
			out = append(out, check{"locks", "ok", strings.Join(notes, "\n"), ""})
		}
	case len(hive) > 0:
		out = append(out, check{"locks", "warning", fmt.Sprintf("%d stale git lock(s) in hive's worktrees and branches: %s", len(hive), strings.Join(hive, ", ")),
			"hive doctor --fix removes them (resuming the run does too)"})
	case len(user) == 0:
		out = append(out, check{"locks", "ok", "no stale git lock", ""})
	}
	return out
}

// ghAuthStatus asks gh whether it is logged in, for at most 10 s: it may
// ask GitHub, and no answer is no login as far as hive can tell.
func ghAuthStatus(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, "gh", "auth", "status").Run()
}

// identityCheck says who hive's commits will be by. Without an identity
// git refuses to commit, and hive commits as gitx.FallbackIdentity rather
// than fail: a warning, since the history then names nobody.
func identityCheck(ctx context.Context, repo *gitx.Repo) check {
	const fix = `git config --global user.name "Your Name" && git config --global user.email you@example.com`
	switch ident, guessed := repo.Identity(ctx); {
	case ident == "":
		return check{"identity", "warning", "git has no identity (user.name, user.email): hive's commits are made as " + gitx.FallbackIdentity, fix}
	case guessed:
		return check{"identity", "warning", "git guesses an identity from this machine (user.name or user.email is not set): commits are made as " + ident, fix}
	default:
		return check{"identity", "ok", "commits are made as " + ident, ""}
	}
}
