package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/scaffold"
	"github.com/spf13/cobra"
)

type initOptions struct {
	*globalOptions
	json     bool
	noCommit bool
	now      func() time.Time
}

func newInitCmd(g *globalOptions) *cobra.Command {
	o := &initOptions{globalOptions: g, now: time.Now}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Start a project: write .planning/ (config, roadmap, state) with a small example phase, and commit it",
		Long: `init writes a GSD .planning/ folder into the git repository: config.json
with the keys hive reads at their defaults (desktop notifications off: a
checkpoint rings the terminal's bell), PROJECT.md, ROADMAP.md, STATE.md, and an
example phase of two plans (.planning/phases/01-getting-started/) that only
writes documentation. It commits these files and nothing else, since agents
work from commits (--no-commit leaves that to you).

It never replaces a file: when any of them exists it lists them, writes
nothing and exits with code 2.`,
		Example: `  hive init
  hive init --repo ~/src/shelf --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return initRun(cmd, o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the files written (and the commit) as JSON")
	cmd.Flags().BoolVar(&o.noCommit, "no-commit", false, "write the files but do not commit them")
	return cmd
}

// initResult is what --json prints.
type initResult struct {
	Repo   string   `json:"repo"`
	Files  []string `json:"files"`
	Commit string   `json:"commit,omitempty"` // "" with --no-commit
	Tools  []string `json:"tools"`            // found on the machine
}

func initRun(cmd *cobra.Command, o *initOptions) error {
	if st, err := os.Stat(o.repo); err != nil || !st.IsDir() {
		return exit.Errorf(exit.Usage, "%s is not a folder; create it and run `git init` there first", o.repo)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return exit.Errorf(exit.Usage, "git is not installed (not in PATH); hive works on git repositories: install git, then run `git init` and `hive init`")
	}
	repo, err := gitx.Open(cmd.Context(), o.repo)
	if err != nil {
		// The first command a newcomer types: say what to do, without git's own words.
		abs, _ := filepath.Abs(o.repo)
		return exit.Errorf(exit.Usage, "%s is not inside a git repository (run `git init` there first): hive runs agents on git commits, so a project starts as a git repository", abs)
	}
	files, err := scaffold.Files(scaffold.Project{Name: filepath.Base(repo.Root), Date: o.now()})
	if err != nil {
		return err
	}
	var exists *scaffold.ExistsError
	if err := scaffold.Write(repo.Root, files); errors.As(err, &exists) {
		return exit.Errorf(exit.Usage, "%s is initialized already; these exist:\n  %s\nNothing was written. hive init only starts a new project: to add work to this one, write a new phase folder (see \"Write your own plans\" in hive's docs/plans.md)",
			repo.Root, strings.Join(exists.Paths, "\n  "))
	} else if err != nil {
		return fmt.Errorf("hive init: %w", err)
	}
	res := initResult{Repo: repo.Root, Tools: index.Tools(exec.LookPath)}
	// The tools go to the project's memory (hive's own folder, which git
	// is told to ignore), for hive run's roles.
	if err := repo.Exclude(cmd.Context(), "/.hive/"); err == nil {
		if st, err := memory.Open(filepath.Join(repo.Root, memory.Path)); err == nil {
			st.SetTools(res.Tools)
			st.Close()
		}
	}
	for _, f := range files {
		res.Files = append(res.Files, f.Path)
	}
	if !o.noCommit {
		if err := repo.CommitOnly(cmd.Context(), "docs: start the hive project (.planning/ with an example phase)", res.Files...); err != nil {
			return fmt.Errorf("wrote %s but could not commit it: %w\nCommit .planning/ yourself (git add .planning && git commit), since agents work from commits", strings.Join(res.Files, ", "), err)
		}
		head, err := repo.Head(cmd.Context())
		if err != nil {
			return fmt.Errorf("read the commit just made: %w", err)
		}
		res.Commit = head
	}
	if o.json {
		return printJSON(o.stdout, res)
	}
	fmt.Fprintf(o.stdout, "Wrote in %s:\n", repo.Root)
	tw := tabwriter.NewWriter(o.stdout, 0, 2, 2, ' ', 0)
	for _, f := range files {
		fmt.Fprintf(tw, "  %s\t%s\n", f.Path, f.About)
	}
	tw.Flush()
	if len(res.Tools) > 0 {
		fmt.Fprintf(o.stdout, "Tools on this machine (hive run's roles are told): %s\n", strings.Join(res.Tools, ", "))
		example, _ := json.Marshal(res.Tools[:min(2, len(res.Tools))])
		fmt.Fprintf(o.stdout, "To tell them about fewer, list those they may use in .planning/config.json, such as \"tools\": %s\n", example)
	}
	writeInitNextSteps(o, res)
	return nil
}

// writeInitNextSteps prints the commands to run next, each ready to paste
// from any folder when --repo named another one.
func writeInitNextSteps(o *initOptions, res initResult) {
	git := "git"
	if o.repo != "." {
		git += " -C " + shellQuote(res.Repo)
	}
	type step struct{ cmd, why string }
	var steps []step
	if res.Commit == "" {
		steps = append(steps, step{git + " add .planning && " + git + " commit -m 'start the hive project'", "agents work from commits"})
	} else {
		fmt.Fprintf(o.stdout, "Committed them (%s); nothing else was committed.\n", shortHash(res.Commit))
	}
	phase := scaffold.PhaseNumber
	steps = append(steps,
		step{o.pasteable(res.Repo, "lint"), "check the plans and the config"},
		step{git + " switch -c try-hive", "try the example on a branch: the sim commits placeholder files"},
		step{o.pasteable(res.Repo, "execute-phase", phase, "--agent", "sim"), "simulated agents, no model, no cost (answer the checkpoint, or add --yes)"},
		step{git + " switch -", "back to your branch, without the placeholder files"},
		step{o.pasteable(res.Repo, "execute-phase", phase, "--agent", "claude"), "for real, with Claude Code (or --agent codex): see the README"},
	)
	fmt.Fprintln(o.stdout, "\nNext:")
	tw := tabwriter.NewWriter(o.stdout, 0, 2, 2, ' ', 0)
	for _, s := range steps {
		fmt.Fprintf(tw, "  %s\t# %s\n", s.cmd, s.why)
	}
	tw.Flush()
}

func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
