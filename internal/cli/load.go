package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/tracking"
)

// openRepo finds the git repository named by --repo.
func openRepo(ctx context.Context, g *globalOptions) (*gitx.Repo, error) {
	repo, err := gitx.Open(ctx, g.repo)
	if err != nil {
		return nil, exit.With(exit.Usage, err)
	}
	return repo, nil
}

// loadPhases reads the project and returns the phases named by arg (all of
// them when arg is empty), each validated: Diagnostics then hold both the
// per-file and the cross-plan findings.
func loadPhases(root, arg string) ([]*plan.Phase, error) {
	_, phases, err := loadProjectPhases(root, arg)
	return phases, err
}

// loadProjectPhases is loadPhases with the project, whose own diagnostics
// (folders of .planning/phases that are not phases) lint prints.
func loadProjectPhases(root, arg string) (*plan.Project, []*plan.Phase, error) {
	proj, err := load.Project(root)
	if err != nil {
		return nil, nil, exit.With(exit.Usage, err)
	}
	phases := proj.Phases
	if arg != "" {
		ph, err := proj.FindPhase(arg)
		if err != nil {
			return nil, nil, exit.With(exit.Usage, err)
		}
		phases = []*plan.Phase{ph}
	}
	ticked := roadmapTicked(root)
	for _, ph := range phases {
		ph.Diagnostics = append(ph.Diagnostics, validate.InProject(proj, ph)...)
		ph.Diagnostics = append(ph.Diagnostics, roadmapTicks(ticked, ph)...)
	}
	return proj, phases, nil
}

// roadmapTicked reads which plans ROADMAP.md ticks as done (none without
// a roadmap), once for every phase loaded.
func roadmapTicked(root string) map[string]int {
	data, err := os.ReadFile(filepath.Join(root, ".planning", "ROADMAP.md"))
	if err != nil {
		return nil
	}
	return tracking.TickedPlans(string(data))
}

// roadmapTicks warns of each plan of ph that ROADMAP.md ticks as done but
// that has no passing SUMMARY: hive, as GSD, would run it again, though
// its work is likely in (the SUMMARY was lost or never committed).
func roadmapTicks(ticked map[string]int, ph *plan.Phase) []plan.Diagnostic {
	var out []plan.Diagnostic
	for _, p := range ph.Plans {
		line := ticked[tracking.PlanKey(p.ID)]
		if s := ph.Summaries[p.ID]; line == 0 || s != nil && s.SelfCheck != "FAILED" {
			continue
		}
		out = append(out, plan.Diagnostic{Severity: plan.SeverityWarning, File: ".planning/ROADMAP.md", Line: line,
			Message: fmt.Sprintf("ticks plan %s as done, but it has no passing SUMMARY, so execute-phase %s runs it again", p.ID, ph.Number),
			Fix:     fmt.Sprintf("if its work is in, write %s (ending with ## Self-Check: PASSED) and commit it; else untick the box", p.SummaryPath())})
	}
	return out
}

// hasJournal reports whether a run has made the repository's journal.
func hasJournal(root string) bool {
	_, err := os.Stat(runconfig.JournalPath(root))
	return err == nil
}

// openJournal opens the repository's journal, creating it on first use.
func openJournal(root string) (*journal.SQLite, error) {
	path := runconfig.JournalPath(root)
	j, err := journal.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	return j, nil
}

// openRepoConfig opens the repository and reads its configuration; a bad
// configuration is a usage error.
func openRepoConfig(ctx context.Context, g *globalOptions) (*gitx.Repo, *config.Config, error) {
	repo, err := openRepo(ctx, g)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(repo.Root)
	if err != nil {
		return nil, nil, exit.With(exit.Usage, err)
	}
	return repo, cfg, nil
}

// onePhase loads the phase arg names and refuses one with invalid plans,
// their errors written to w.
func onePhase(w io.Writer, root, arg string) (*plan.Phase, error) {
	phases, err := loadPhases(root, arg)
	if err != nil {
		return nil, err
	}
	ph := phases[0]
	for _, d := range ph.Diagnostics {
		if d.File == ".planning/ROADMAP.md" && d.Severity == plan.SeverityWarning {
			fmt.Fprintln(w, d.String()) // a finished plan about to run again
		}
	}
	if plan.HasErrors(ph.Diagnostics) {
		for _, d := range ph.Diagnostics {
			if d.Severity == plan.SeverityError {
				fmt.Fprintln(w, d.String())
			}
		}
		return nil, exit.Errorf(exit.Usage, "phase %s has invalid plans; fix them (see `hive lint %s`) and run again", ph.Number, ph.Number)
	}
	if len(ph.Plans) == 0 && len(ph.Summaries) > 0 {
		return nil, exit.Errorf(exit.Usage, "phase %s (%s) has no NN-MM-PLAN.md files, only the SUMMARYs of %d plan(s) whose PLAN.md files are gone: nothing to run (write a new NN-MM-PLAN.md there to run more)", ph.Number, ph.Dir, len(ph.Summaries))
	}
	if len(ph.Plans) == 0 {
		return nil, exit.Errorf(exit.Usage, "phase %s (%s) has no NN-MM-PLAN.md files", ph.Number, ph.Dir)
	}
	return ph, nil
}
