package runworker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/phaserun"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/workspace"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/workflows"
)

// phaseExecutors carry out the commands of hive run's phases on a worker:
// a runner.Worker per phase and tree, made at its first command with the
// project's agents (the implementer's, the comb's) of the run's agent
// program, and kept until the worker stops or the tree is gone.
type phaseExecutors struct {
	root   string // the folder
	agent  string // the worker's --agent
	remote string // the worker's --git-remote: the runs' remote as this clone names it ("" for the run's name)
	out    io.Writer

	mu      sync.Mutex
	workers map[string]*phaseExecutor
}

// phaseExecutor is the worker of one phase run, and how to tell that the
// run is over here.
type phaseExecutor struct {
	*runner.Worker
	over func() bool
}

// For implements temporal.NewPhasesWorkers's executor of w's commands.
func (p *phaseExecutors) For(w temporal.Where) (temporal.Executor, error) {
	key := strings.Join(append([]string{w.Dir, w.Phase, w.Agent, w.Remote, w.Namespace}, w.Env...), "\x00")
	p.mu.Lock()
	defer p.mu.Unlock()
	if rw := p.workers[key]; rw != nil {
		return Announced{rw, p.out}, nil
	}
	ctx := context.Background()
	repo, cfg, err := openFolder(ctx, p.root)
	if err != nil {
		return nil, err
	}
	name := w.Agent
	if name == "" {
		name = p.agent
	}
	launchers, ladders, err := runconfig.RoleAgents(name, cfg)
	if err != nil {
		return nil, err
	}
	runconfig.SecretsOf(cfg).WrapAll(launchers)
	o := piperun.Options{Repo: repo, Launcher: launchers[workflows.RoleImplementer], Roles: launchers, WorktreeRoot: runconfig.WorktreeRoot(cfg, repo.Root), Setup: runconfig.WorktreeSetup(cfg),
		MaxConcurrent: cfg.MaxConcurrent(), Stall: cfg.Timeouts.Stall, Prices: runconfig.Prices(cfg), Ladders: ladders, Guard: runconfig.LoopGuard(cfg)}
	var exec *phaseExecutor
	if w.Remote != "" {
		exec, err = p.remotePhase(ctx, o, w)
	} else {
		exec, err = p.sharedPhase(o, w)
	}
	if err != nil {
		return nil, err
	}
	// The phases of runs that are over here (delivered) are done with.
	for k, rw := range p.workers {
		if rw.over() {
			rw.Close()
			delete(p.workers, k)
		}
	}
	if p.workers == nil {
		p.workers = map[string]*phaseExecutor{}
	}
	p.workers[key] = exec
	return Announced{exec, p.out}, nil
}

// sharedPhase is the worker of a phase in a run's worktree that the workers
// share (Where.Dir), which must be a run's worktree of this project.
func (p *phaseExecutors) sharedPhase(o piperun.Options, w temporal.Where) (*phaseExecutor, error) {
	root, err := piperun.WorktreeRoot(o)
	if err != nil {
		return nil, err
	}
	if filepath.Dir(filepath.Clean(w.Dir)) != filepath.Clean(root) || !runWorktree.MatchString(filepath.Base(w.Dir)) || !filepath.IsLocal(w.Phase) {
		return nil, fmt.Errorf("the phase %s in %s is not a phase of a run of %s (its runs' worktrees are in %s)", w.Phase, w.Dir, o.Repo.Root, root)
	}
	opts, err := piperun.PhaseOptions(o, w.Dir, w.Phase, w.Env)
	if err != nil {
		return nil, err
	}
	opts.Agents.Brief, opts.Observer = phaserun.SavedBriefs(w.Dir), Notes{p.out}
	rw, err := runner.NewWorker(opts)
	if err != nil {
		return nil, err
	}
	dir := w.Dir
	return &phaseExecutor{rw, func() bool {
		_, err := os.Stat(dir)
		return errors.Is(err, os.ErrNotExist)
	}}, nil
}

// remotePhase is the worker of a phase that reaches this clone through the
// run's git remote (Where.Remote): its plans run in worktrees of this
// clone, made from the run's integration branch there, and the run is over
// here once that branch is gone from the remote (delivered).
func (p *phaseExecutors) remotePhase(ctx context.Context, o piperun.Options, w temporal.Where) (*phaseExecutor, error) {
	remote, err := p.remoteName(ctx, o.Repo, w.Remote)
	if err != nil {
		return nil, err
	}
	if !runNamespace.MatchString(w.Namespace) || !filepath.IsLocal(w.Phase) {
		return nil, fmt.Errorf("the run's phase %q of %q is not one hive run would send", w.Phase, w.Namespace)
	}
	g := integration.Git{Remote: remote, Worktrees: true, Namespace: w.Namespace, WorktreeRoot: o.WorktreeRoot, Setup: o.Setup}
	tree, err := workspace.RemoteTree(ctx, o.Repo, g)
	if err != nil {
		return nil, err
	}
	opts, err := piperun.PhaseOptions(o, tree, w.Phase, w.Env)
	if err != nil {
		return nil, err
	}
	opts.Repo, opts.Git, opts.Observer = o.Repo, g, Notes{p.out}
	if opts.Agents.Brief, err = phaserun.RemoteBriefs(ctx, o.Repo, w.Namespace); err != nil {
		return nil, err
	}
	rw, err := runner.NewWorker(opts)
	if err != nil {
		return nil, err
	}
	repo, branch := o.Repo, g.IntegrationBranch(opts.Phase)
	return &phaseExecutor{rw, func() bool { return repo.RefHash(ctx, gitx.RemoteRef(branch)) == "" }}, nil
}

// runNamespace is what phaseNamespace makes.
var runNamespace = regexp.MustCompile(`^run-[A-Za-z0-9._-]+$`)

// remoteName is the name in this clone of the remote a run names: the
// worker's --git-remote, else the run's own when this clone has a remote
// of that name (a name from the workflow's history is never taken as a
// URL to reach).
func (p *phaseExecutors) remoteName(ctx context.Context, repo *gitx.Repo, run string) (string, error) {
	return cloneRemote(ctx, repo, p.remote, run)
}

// cloneRemote is the name in this clone (repo) of the remote a run names
// run: own (a worker's --git-remote) when set, else run when this clone
// has a remote of that name.
func cloneRemote(ctx context.Context, repo *gitx.Repo, own, run string) (string, error) {
	if own != "" {
		return own, nil
	}
	out, err := repo.Git(ctx, "remote")
	if err != nil {
		return "", err
	}
	for _, name := range strings.Fields(out) {
		if name == run {
			return run, nil
		}
	}
	return "", fmt.Errorf("the run shares its work through the git remote %q, and this clone (%s) has no remote of that name: add it (git remote add %s URL), or start this worker with --git-remote naming it here", run, repo.Root, run)
}

// runWorktree is the name of a run's worktree (piperun's run-N).
var runWorktree = regexp.MustCompile(`^run-[0-9]+$`)

// Close ends the workers made.
func (p *phaseExecutors) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rw := range p.workers {
		rw.Close()
	}
	p.workers = nil
}
