package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/plan"
	"github.com/spf13/cobra"
)

type lintOptions struct {
	*globalOptions
	phase string
	quiet bool
	json  bool
}

func newLintCmd(g *globalOptions) *cobra.Command {
	o := &lintOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "lint [PHASE]",
		Short: "Check plans and config; every problem names the file, the line and the fix",
		Long: `Check plans and config; every problem names the file, the line and the fix.

Errors are what would make hive do the wrong thing (a plan nobody can read, a
dependency cycle or one on a plan that exists nowhere, a path outside the
repository, an unknown checkpoint kind): execute-phase refuses the phase and
lint exits 1. Warnings are what real GSD projects contain and GSD runs anyway
(a wave that contradicts depends_on, a checkpoint in an autonomous plan, a task
type hive does not know): hive runs the phase, and lint exits 0. Notes say how
hive read something unusual.`,
		Example: `  hive lint          # every phase
  hive lint 3        # phase 03 only
  hive lint --json | jq '.diagnostics[] | select(.severity == "error")'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.phase = args[0]
			}
			return lintRun(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&o.quiet, "quiet", false, "print errors and warnings only")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object: the counts and every diagnostic (file, line, severity, message, fix)")
	return cmd
}

// diagnosticJSON is one finding in the machine-readable output of lint and plans.
type diagnosticJSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"` // "error", "warning" or "note"
	Message  string `json:"message"`
	Fix      string `json:"fix"`
}

func toJSON(d plan.Diagnostic) diagnosticJSON {
	return diagnosticJSON{File: d.File, Line: d.Line, Severity: d.Severity.String(), Message: d.Message, Fix: d.Fix}
}

// lintReport is what lint --json prints.
type lintReport struct {
	Phases      int              `json:"phases"`
	Plans       int              `json:"plans"`
	Errors      int              `json:"errors"`
	Warnings    int              `json:"warnings"`
	Notes       int              `json:"notes"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
}

// configFile is where config findings point: config.Load reads it first.
const configFile = ".planning/config.json"

// configNote turns a config note ("path:line: text", or plain text) into a
// diagnostic with its own file and line.
func configNote(n string) plan.Diagnostic {
	d := plan.Diagnostic{Severity: plan.SeverityNote, File: configFile, Message: n}
	file, rest, ok := strings.Cut(n, ":")
	if !ok || !strings.HasSuffix(file, ".json") {
		return d
	}
	num, msg, ok := strings.Cut(rest, ": ")
	line, err := strconv.Atoi(num)
	if !ok || err != nil {
		return d
	}
	d.File, d.Line, d.Message = file, line, msg
	return d
}

func lintRun(cmd *cobra.Command, o *lintOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	var ds []plan.Diagnostic
	if c, err := config.Load(repo.Root); err != nil {
		ds = append(ds, plan.Diagnostic{Severity: plan.SeverityError, File: configFile, Message: err.Error()})
	} else {
		for _, n := range c.Notes() {
			ds = append(ds, configNote(n))
		}
	}
	proj, phases, err := loadProjectPhases(repo.Root, o.phase)
	if err != nil {
		return err
	}
	if o.phase == "" {
		ds = append(ds, proj.Diagnostics...)
	}
	rep := lintReport{Phases: len(phases), Diagnostics: []diagnosticJSON{}}
	for _, ph := range phases {
		rep.Plans += len(ph.Plans)
		ds = append(ds, ph.Diagnostics...)
	}
	for _, d := range ds {
		switch d.Severity {
		case plan.SeverityError:
			rep.Errors++
		case plan.SeverityWarning:
			rep.Warnings++
		default:
			rep.Notes++
			if o.quiet {
				continue
			}
		}
		if o.json {
			rep.Diagnostics = append(rep.Diagnostics, toJSON(d))
		} else {
			fmt.Fprintln(o.stdout, d.String())
		}
	}
	if o.json {
		if err := printJSON(o.stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(o.stdout, "%d phase(s), %d plan(s): %d error(s), %d warning(s), %d note(s)\n", rep.Phases, rep.Plans, rep.Errors, rep.Warnings, rep.Notes)
		switch {
		case rep.Errors > 0:
			fmt.Fprintln(o.stdout, "errors make execute-phase refuse a phase: fix them first; warnings do not stop a run")
		case rep.Warnings > 0:
			fmt.Fprintln(o.stdout, "no errors: hive runs these phases; the warnings are what GSD accepts too, worth fixing when convenient")
		}
	}
	if rep.Errors > 0 {
		return exit.Silent(exit.Failed)
	}
	return nil
}
