package rolecontext

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/testrun"
	"github.com/hivectl/hive/internal/workflows"
)

// Curator tells a run's roles what they work from: their prompt, with
// the context it curates for each and the project's memory's warnings,
// and journals what each was given.
type Curator struct {
	Repo *gitx.Repo // the user's repository: its prompts, its memory
	Dir  string     // the run's worktree
	// Journal is the run's, where what a role was given is journaled;
	// nil for a worker away from the run's folder, whose roles are told
	// and nothing is journaled.
	Journal     journal.Journal
	Run         journal.Run
	Home        string // where the user's global prompts are; "" for none
	TestCommand string // commands.test; "" finds it from the project's files
	Now         func() time.Time
	// Note is told what is worth telling of a job.
	Note func(job, text string)
}

// Prompt renders the prompt of c's role (or its variant); left is the ref
// that holds what the attempt before it left uncommitted, if any.
func (cu *Curator) Prompt(ctx context.Context, c roleplan.Command, left string, snap roleplan.Snapshot) (string, error) {
	name := c.Prompt
	if name == "" {
		// A framework's variant of the role, where the repository's
		// manifests name one and a prompt for it exists.
		name, _ = roles.Variant(cu.Dir, cu.Home, c.Role)
	}
	src, text, err := roles.Resolve(cu.Repo.Root, cu.Home, name)
	if err != nil {
		return "", err
	}
	d := roles.Data{Role: c.Role, Objective: snap.Spec.Objective, Context: c.Context, PhaseDir: snap.Spec.PhaseDir, Files: snap.Spec.Context,
		Warnings: cu.Warnings(c, snap), Tools: snap.Spec.Tools, Left: left}
	if c.Role == workflows.RoleDocumenter && cu.Journal != nil {
		d.Lessons = memory.Proved(cu.Journal, cu.Run)
	}
	d.Parts = cu.curate(ctx, c, snap)
	base := filepath.Base(snap.Spec.PhaseDir)
	d.PhaseSlug = base
	d.PhaseNumber, _, _ = strings.Cut(base, "-")
	for _, j := range snap.Jobs {
		if j.ID == c.Job {
			break
		}
		if j.Attempts > 0 && j.Role != c.Role && j.Type == "" { // hive's own steps are no role to challenge
			d.Previous = append(d.Previous, j.Role)
		}
	}
	if cmd, err := testrun.Find(cu.Dir, cu.TestCommand); err == nil {
		d.TestCommand = cmd.String()
	}
	out, err := roles.Render(name, text, d)
	if err != nil && src.Origin != roles.FromBundled {
		// A prompt written for another tool (the shell Hive's, with its
		// {{EPIC_ID}} placeholders) must not stop the run: hive's own
		// prompt of the role plays it, and the human is told.
		own, berr := roles.Bundled(c.Role)
		if berr == nil {
			path := src.Path
			if rel, rerr := filepath.Rel(cu.Repo.Root, path); rerr == nil && filepath.IsLocal(rel) {
				path = filepath.ToSlash(rel)
			}
			cu.Note(c.Job, fmt.Sprintf("%s does not render (%v): hive's own %s prompt is used; fix or delete it (hive doctor)", path, err, c.Role))
			return roles.Render(c.Role, own, d)
		}
	}
	return out, err
}
