package rolecontext

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/roles"
	"github.com/hivectl/hive/internal/runner/prompt"
	"github.com/hivectl/hive/internal/workflows"
)

// Bounds of a role's curated context.
const (
	maxPart    = 6 << 10  // one part
	maxContext = 16 << 10 // all of a role's parts
)

// curate picks what c's role is given besides its prompt (seed 003 §2.3):
// the architect the codebase index, the decisions of earlier runs and the
// project's CLAUDE.md; the implementer the files the objective names;
// the tester the diff so far and the implementer's notes; the reviewing
// roles the diff and the architect's plans. Each part and the whole are
// bounded; what was given is journaled.
func (cu *Curator) curate(ctx context.Context, c roleplan.Command, snap roleplan.Snapshot) []roles.Part {
	var parts []roles.Part
	add := func(title, text string) {
		if text = strings.TrimSpace(text); text != "" {
			parts = append(parts, roles.Part{Title: title, Text: text})
		}
	}
	switch c.Role {
	case workflows.RoleArchitect:
		if ix, err := index.Build(cu.Dir); err == nil {
			add("The codebase (hive's index)", index.Render(ix))
		}
		add("Decisions of earlier runs", cu.earlierDecisions())
		if md, err := os.ReadFile(filepath.Join(cu.Dir, "CLAUDE.md")); err == nil {
			add("The project's CLAUDE.md", string(md))
		}
	case workflows.RoleImplementer, workflows.RoleDebugger, workflows.RoleMigrator, workflows.RoleUIDesigner:
		files := memory.FilesIn(snap.Spec.Objective)
		for _, f := range files {
			add("The file "+f+" (the objective names it)", cu.fileText(f))
		}
		if t := testExample(cu.trackedTests(ctx), files); t != "" {
			add("A test of this project ("+t+"), whose patterns to follow", cu.fileText(t))
		}
	case workflows.RoleTester, workflows.RoleE2ETester, workflows.RoleComponentTester:
		add("The change so far (git diff)", cu.diff(ctx, snap))
		for _, j := range snap.Jobs {
			if j.Role == workflows.RoleImplementer && j.Report != nil {
				add("The implementer's notes", handoffNotes(j.Report.Summary, j.Report.Concerns))
			}
		}
		add("The implementers' summaries", cu.phaseFiles(snap, "*-SUMMARY.md"))
	case workflows.RoleReviewer, workflows.RoleSecurity:
		add("The change (git diff)", cu.diff(ctx, snap))
		add("The architect's plans", cu.phaseFiles(snap, "*-PLAN.md"))
	}
	return cu.bound(c.Job, c.Attempt, parts)
}

// bound keeps parts within the bounds (each, then all) and journals what
// job was given.
func (cu *Curator) bound(job string, attempt int, parts []roles.Part) []roles.Part {
	g := runjournal.ContextRecord{Job: job, Attempt: attempt}
	total := 0
	var kept []roles.Part
	for _, p := range parts {
		cut := false
		if len(p.Text) > maxPart {
			p.Text, cut = p.Text[:maxPart]+"\n… (cut: hive gives at most 6 KiB of one part)", true
		}
		if total+len(p.Text) > maxContext {
			break
		}
		total += len(p.Text)
		kept = append(kept, p)
		g.Parts = append(g.Parts, runjournal.ContextPart{Title: p.Title, Bytes: len(p.Text), Cut: cut})
	}
	if len(kept) > 0 && cu.Journal != nil {
		payload, _ := json.Marshal(g)
		if _, err := cu.Journal.Append(cu.Run.ID, runjournal.ContextEvent, cu.Now().UTC(), payload); err != nil {
			cu.Note(job, "journal the role's context: "+err.Error())
			return nil
		}
	}
	return kept
}

// phaseFiles are the files of the architect's phase that match pattern,
// each under its name.
func (cu *Curator) phaseFiles(snap roleplan.Snapshot, pattern string) string {
	if snap.Spec.PhaseDir == "" {
		return ""
	}
	files, _ := filepath.Glob(filepath.Join(cu.Dir, snap.Spec.PhaseDir, pattern))
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			fmt.Fprintf(&b, "### %s\n\n%s\n", filepath.Base(f), data)
		}
	}
	return b.String()
}

// fileText is a worktree file's content, fenced, or "" when it is none.
func (cu *Curator) fileText(rel string) string {
	if !filepath.IsLocal(rel) {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(cu.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	return "```\n" + string(data) + "\n```"
}

// trackedTests are the test files the run's worktree tracks.
func (cu *Curator) trackedTests(ctx context.Context) []string {
	out, err := cu.Repo.At(cu.Dir).Git(ctx, "ls-files")
	if err != nil {
		return nil
	}
	var tests []string
	for _, f := range strings.Fields(out) {
		if confidence.IsTestFile(filepath.Base(f)) {
			tests = append(tests, f)
		}
	}
	return tests
}

// testExample is the test file to follow among tests: one beside the
// files near, else the first.
func testExample(tests, near []string) string {
	for _, n := range near {
		for _, t := range tests {
			if filepath.Dir(t) == filepath.Dir(n) {
				return t
			}
		}
	}
	if len(tests) > 0 {
		return tests[0]
	}
	return ""
}

// PlanBrief is what each executor of the phase is told besides its plan:
// the warnings, the files its plan changes as they are, a test to follow;
// bounded, and journaled per plan.
func (cu *Curator) PlanBrief(ctx context.Context, warnings []string) func(*plan.Plan) prompt.Briefing {
	tests := sync.OnceValue(func() []string { return cu.trackedTests(ctx) }) // once for the phase's executors
	return func(p *plan.Plan) prompt.Briefing {
		var parts []roles.Part
		for _, f := range p.FilesModified {
			if text := cu.fileText(f); text != "" {
				parts = append(parts, roles.Part{Title: f + " (your plan changes it)", Text: text})
			}
		}
		if t := testExample(tests(), p.FilesModified); t != "" && !slices.Contains(p.FilesModified, t) {
			parts = append(parts, roles.Part{Title: "A test of this project (" + t + "), whose patterns to follow", Text: cu.fileText(t)})
		}
		kept := cu.bound(p.ID, 0, parts)
		var b strings.Builder
		for _, part := range kept {
			fmt.Fprintf(&b, "### %s\n\n%s\n\n", part.Title, part.Text)
		}
		return prompt.Briefing{Warnings: warnings, Context: strings.TrimSpace(b.String())}
	}
}

// diff is the run's change so far: its stat, then the patch.
func (cu *Curator) diff(ctx context.Context, snap roleplan.Snapshot) string {
	if snap.Spec.Base == "" {
		return ""
	}
	wt := cu.Repo.At(cu.Dir)
	stat, err := wt.Git(ctx, "diff", "--stat", snap.Spec.Base, "--")
	if err != nil || strings.TrimSpace(stat) == "" {
		return ""
	}
	patch, _ := wt.Git(ctx, "diff", snap.Spec.Base, "--")
	return stat + "\n```diff\n" + patch + "\n```"
}

// earlierDecisions are the decisions of the project's earlier runs, from
// its memory: the newest ten.
func (cu *Curator) earlierDecisions() string {
	path := filepath.Join(cu.Repo.Root, memory.Path)
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	st, err := memory.Open(path)
	if err != nil {
		return ""
	}
	defer st.Close()
	x, err := st.Export()
	if err != nil {
		return ""
	}
	var lines []string
	for i := len(x.Runs) - 1; i >= 0 && len(lines) < 10; i-- {
		for _, d := range x.Runs[i].Decisions {
			lines = append(lines, fmt.Sprintf("- run %d (%s): %s → %s", x.Runs[i].Run, x.Runs[i].Objective, d.Question, d.Choice))
		}
	}
	return strings.Join(lines, "\n")
}

func handoffNotes(summary string, concerns []string) string {
	out := summary
	for _, c := range concerns {
		out += "\n- concern: " + c
	}
	return out
}
