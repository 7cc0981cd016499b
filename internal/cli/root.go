package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hivectl/hive/internal/bench"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/plan/load"
)

// globalOptions are the flags every command has.
type globalOptions struct {
	// self is the command that runs this hive from the user's shell, ready
	// to paste: "hive" when empty (selfCommand).
	self   string
	repo   string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// benchGroups are hive bench's groups: hive's own (nil), or with
	// cmd/hive-dev's in lines.Place of some (bench.With).
	benchGroups []bench.Group
}

// pasteable is a hive command line for the user to copy: args quoted for a
// POSIX shell, and --repo with the repository root when this invocation
// named a repository other than the current folder, so that it works from
// where the user typed this one.
func (g *globalOptions) pasteable(root string, args ...string) string {
	self := g.self
	if self == "" {
		self = "hive"
	}
	words := []string{self}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	if g.repo != "." && g.repo != "" {
		words = append(words, "--repo", shellQuote(root))
	}
	return strings.Join(words, " ")
}

// shellQuote makes s one word for a POSIX shell, so a printed command can be
// pasted as it is; plain words stay unquoted.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Main runs hive with os.Args and returns the process exit code. Groups
// replace hive bench's groups of the same names: cmd/hive-dev's, which
// drive the real agent CLIs against the fake model servers that the hive
// binary does not link.
func Main(groups ...bench.Group) int {
	g := &globalOptions{self: thisHive(), stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin}
	if len(groups) > 0 {
		g.benchGroups = bench.With(groups...)
	}
	return execute(g, os.Args[1:])
}

// Command is hive's command tree as `hive` runs it, the completion command
// cobra adds at run time included: what the generated command reference
// (internal/cli/gendocs) documents.
func Command() *cobra.Command {
	g := &globalOptions{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin}
	root := newRootCmd(g, os.Stdin)
	root.InitDefaultCompletionCmd()
	return root
}

func execute(g *globalOptions, args []string) int {
	stdout, stderr := g.stdout, g.stderr
	root := newRootCmd(g, g.stdin)
	root.SetArgs(args)
	root.SetIn(g.stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exit.OK
	}
	var ee *exit.Error
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(stderr, "hive:", ee.Err)
			suggestInit(g, ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, "hive:", err)
	suggestInit(g, err)
	if strings.HasPrefix(err.Error(), "unknown command") || strings.Contains(err.Error(), "flag") || strings.Contains(err.Error(), "arg(s)") {
		return exit.Usage // cobra's own complaints about the command line
	}
	return exit.Internal
}

// suggestInit follows an error about a folder without .planning/ with the
// command that starts a project there, ready to paste.
func suggestInit(g *globalOptions, err error) {
	var np *load.NoPlanningError
	if errors.As(err, &np) {
		fmt.Fprintf(g.stderr, "Start a project there with `%s` (it writes .planning/: config, roadmap and an example phase).\n", g.pasteable(np.Root, "init"))
	}
}

func newRootCmd(g *globalOptions, stdin io.Reader) *cobra.Command {
	root := &cobra.Command{
		Use:   "hive",
		Short: "Run a team of coding agents against a git repository",
		Long: `hive runs a team of coding agents against a git repository. It reads GSD-style
phase plans (.planning/), schedules them as a dependency graph, runs one agent
per plan (execute-phase), or hands an objective to a pipeline of roles that
challenge each other and fix what fails (run). Every result is checked and
recorded in a durable journal, and a killed run resumes without losing or
repeating work.

Exit codes:
  0    success
  1    a plan, a run or a check failed (the output says why)
  2    bad input: flags, plans, config, uncommitted changes (see --allow-dirty)
  3    hive could not go on: the journal, git, the file system
  4    another hive process is running this phase or run
  5    a question only a human may answer is open, and nobody answered it here
  6    hive pause paused the run; the same command resumes it
  7    hive run completed, but its work could not be merged (or pushed): it is
       on the run's branch, and the output says why and how to take it
  130  interrupted; the run is kept: run the command hive prints to resume`,
		Version:       buildVersion().line(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&g.repo, "repo", ".", "the git repository to work in")
	root.AddCommand(
		newInitCmd(g),
		newLintCmd(g),
		newPlansCmd(g),
		newExecuteCmd(g),
		newRunCmd(g),
		newIssuesCmd(g),
		newWorkflowsCmd(g),
		newContractsCmd(g),
		newIndexCmd(g),
		newReportCmd(g),
		newFindingsCmd(g),
		newMemoryCmd(g),
		newCostsCmd(g),
		newModelsCmd(g),
		newAnswerCmd(g),
		newPauseCmd(g),
		newServeCmd(g),
		newAgentsCmd(g),
		newStatusCmd(g),
		newLogCmd(g),
		newAttachCmd(g),
		newCleanCmd(g),
		newDoctorCmd(g),
		newWorkerCmd(g),
		newDemoCmd(g),
		newBenchCmd(g),
		newVersionCmd(g),
		newSimCmd(stdin),
	)
	usageErrors(root)
	return root
}
