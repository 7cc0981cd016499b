package runner

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"text/template"
	"time"

	_ "embed"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
)

// planRepo is the working tree plan id's agent works in.
func (r *runner) planRepo(id string) *gitx.Repo {
	if r.integ == nil {
		return r.o.Repo
	}
	return r.o.Repo.At(r.integ.planDir(id))
}

// planPlace is the folder and branch plan id's agent works in, for a
// checkpoint to show: its worktree and branch, or the repository and its
// current branch in shared-tree mode.
func (r *runner) planPlace(ctx context.Context, id string) (dir, branch string) {
	if r.integ == nil {
		return r.o.Repo.Root, r.o.Repo.CurrentBranch(ctx)
	}
	return r.integ.planDir(id), r.integ.planBranch(id)
}

// agentDir prepares the folder the agent of c works in: the repository in
// shared-tree mode; else the plan's worktree, caught up with the integration
// branch when the agent is to fix what the post-merge gate found.
func (r *runner) agentDir(ctx context.Context, p *plan.Plan, c engine.Command) (string, error) {
	if r.integ == nil {
		return r.o.Repo.Root, nil
	}
	dir, err := r.integ.preparePlan(r.gitNotes(ctx, p.ID), p, r.o.Git.Setup, r.scope[p.ID])
	if err != nil {
		return "", err
	}
	if c.Continuation != nil && c.Continuation.Fix != "" && c.Role == "" {
		if err := r.integ.catchUp(ctx, p.ID); err != nil {
			r.o.Observer.Note(p.ID, "bring the plan's branch up to the integration branch: "+err.Error())
		}
	}
	return dir, nil
}

// gitNotes lets git operations under ctx tell the user what they cleared
// away on their own (a stale worktree folder of an earlier clone, a worktree
// left at an old worktree folder): one note each, about plan (or the run,
// for "").
func (r *runner) gitNotes(ctx context.Context, plan string) context.Context {
	return gitx.WithNotes(ctx, func(text string) { r.o.Observer.Note(plan, text) })
}

// integrate carries out a merge, a post-merge gate or the verification on
// the integration goroutine (or, without worktrees, on a goroutine of its
// own), and reports the result to the loop.
func (r *runner) integrate(ctx context.Context, c engine.Command, snap engine.Snapshot) {
	p := r.plans[c.Plan]
	var job func()
	switch c.Type {
	case engine.CmdMerge:
		job = func() {
			ev := engine.Event{Type: engine.EvMerged, Plan: c.Plan, Attempt: c.Attempt}
			if p == nil || r.integ == nil {
				ev.Reason = "nothing to merge"
			} else {
				res := r.integ.merge(ctx, p, snap)
				ev.OK, ev.Files, ev.Reason = res.ok, res.files, res.reason
			}
			r.send(ev)
		}
	case engine.CmdGate:
		job = func() {
			ok, out := runGate(ctx, r.workDir(), r.o.Git.GateCommand)
			r.send(engine.Event{Type: engine.EvGateChecked, Plan: c.Plan, Attempt: c.Attempt, OK: ok, Text: out})
		}
	case engine.CmdVerify:
		if c.After == "report" {
			job = func() { r.send(r.readReport(ctx, r.workDir())) }
		} else {
			job = func() { r.send(r.checkPhase(r.workDir())) }
		}
	}
	if r.integ != nil {
		r.integ.do(job)
		return
	}
	go job()
}

// workDir is where the phase's merged work is: the integration worktree,
// or the repository in shared-tree mode.
func (r *runner) workDir() string {
	if r.integ != nil {
		return r.integ.dir
	}
	return r.o.Repo.Root
}

// planSettled tidies up after a plan reaches a final state: a merged plan's
// worktree and branch go; one that ended failed or skipped after it was
// merged (its post-merge gate kept failing) is taken off the integration
// branch; without worktrees, STATE.md and ROADMAP.md are
// written and committed in the repository.
func (r *runner) planSettled(ctx context.Context, c engine.Command, snap engine.Snapshot) {
	if !c.State.Final() {
		return
	}
	if c.State != engine.Complete {
		if p := r.plans[c.Plan]; r.integ != nil && p != nil {
			since := r.scope[c.Plan]
			r.integ.do(func() {
				undone, err := r.integ.unmerge(ctx, p, since, snap)
				switch {
				case err != nil:
					r.note(c.Plan, "the plan did not complete, but its merge stays on the integration branch: "+err.Error())
				case undone:
					r.note(c.Plan, "the plan did not complete: its merged work was taken off the integration branch (its branch "+r.integ.planBranch(c.Plan)+" keeps it)")
				}
			})
		}
		return
	}
	if r.integ != nil {
		r.integ.do(func() {
			if err := r.integ.removePlan(ctx, c.Plan); err != nil {
				r.note(c.Plan, "remove the merged plan's worktree: "+err.Error())
			}
		})
		return
	}
	// Without worktrees the files are written in the user's tree as plans
	// complete, at most once a second (a thousand-plan roadmap rewritten a
	// thousand times was most of a large run's cost), and committed once
	// when the run ends (commitTracking).
	p := r.plans[c.Plan]
	if p == nil || time.Since(r.trackedAt) < time.Second {
		return
	}
	r.trackedAt = time.Now()
	if err := writeTracking(r.o.Repo.Root, r.o.Phase, snap, nil, "Completed "+baseName(p.Path), r.o.Now()); err != nil {
		r.o.Observer.Note(c.Plan, "update STATE.md and ROADMAP.md: "+err.Error())
	}
}

// commitTracking commits STATE.md and ROADMAP.md at the end of a
// shared-tree run, and nothing else the tree holds.
func (r *runner) commitTracking(ctx context.Context, snap engine.Snapshot) {
	repo := r.o.Repo
	err := repo.Locked(ctx, func() error {
		if err := writeTracking(repo.Root, r.o.Phase, snap, nil, "Phase "+r.o.Phase.Number+" run finished: "+snap.Outcome, r.o.Now()); err != nil {
			return err
		}
		files := existing(repo.Root, trackingFiles)
		if len(files) == 0 {
			return nil
		}
		return repo.CommitOnly(ctx, fmt.Sprintf("docs(%s): phase run %s", r.o.Phase.Number, snap.Outcome), files...)
	})
	if err != nil {
		r.o.Observer.Note("", "commit STATE.md and ROADMAP.md: "+err.Error())
	}
}

func baseName(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// runGate runs the post-merge gate command in dir. The command is the
// user's own configuration, never text from a plan or an agent.
func runGate(ctx context.Context, dir, command string) (bool, string) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		return true, ""
	}
	text := clipLines(string(out), 60)
	return false, fmt.Sprintf("$ %s\n%s\n(%v)", command, text, err)
}

//go:embed prompts/comb.md
var combTemplate string

var combPrompt = template.Must(template.New("comb").Parse(combTemplate))

type otherPlan struct{ ID, Path, Objective string }

// combPrompt is the resolver's prompt: the conflict, both plans and their
// objectives.
func (r *runner) combPrompt(ctx context.Context, p *plan.Plan, c *engine.Continuation) (string, error) {
	var files []string
	if c != nil {
		files = c.Conflict
	}
	var others []otherPlan
	if r.integ != nil && len(files) > 0 {
		args := append([]string{"log", "--format=%B", r.integ.branch, "--"}, files...)
		out, _ := r.o.Repo.Git(ctx, args...)
		seen := map[string]bool{p.ID: true}
		for _, line := range strings.Split(out, "\n") {
			id, ok := strings.CutPrefix(strings.TrimSpace(line), "Hive-Plan: ")
			if !ok || seen[id] || r.plans[id] == nil {
				continue
			}
			seen[id] = true
			o := r.plans[id]
			others = append(others, otherPlan{ID: id, Path: o.Path, Objective: objective(o)})
		}
	}
	var b strings.Builder
	err := combPrompt.Execute(&b, map[string]any{
		"ID": p.ID, "Name": p.Name, "Path": p.Path, "Objective": objective(p),
		"PhaseNumber": r.o.Phase.Number, "PhaseSlug": r.o.Phase.Slug,
		"Integration": r.integ.branch, "Branch": r.integ.planBranch(p.ID),
		"Files": files, "Others": others,
	})
	return b.String(), err
}

// objective is a plan's objective in one line.
func objective(p *plan.Plan) string {
	text := strings.Join(strings.Fields(p.Objective), " ")
	if text == "" {
		text = p.Name
	}
	return clip(text, 300)
}
