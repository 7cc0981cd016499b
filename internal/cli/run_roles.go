package cli

// The roles' sessions of a hive run on Temporal run on the workers of its
// plans, not on the machine that drives the run: each session is a
// workflow of one activity (temporal.RoleWorkflow). Without a git remote
// the workers share the project's folder, and the session works in the
// run's worktree. With one they are anywhere: the driver shares the run's
// worktree on the remote first; the worker makes a worktree of its own
// clone from it, runs the role's agent there, and pushes what the agent
// committed before it hands on the agent's report and its exit, which the
// driver brings into the run's worktree before it journals them
// (runShare.brings).

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
)

// roleRequest is one role session, as a worker is given it.
type roleRequest struct {
	Role string `json:"role"`
	// Agent is the run's agent program ("" for the worker's own).
	Agent string `json:"agent,omitempty"`
	// Dir is the run's worktree, which the workers of the project's folder
	// share; or, for a run whose work is on a git remote, Remote names
	// the remote (as the run calls it), Branch the run's branch there and
	// Rev the commit the session starts from: the branch's tip when the
	// driver started it.
	Dir    string `json:"dir,omitempty"`
	Remote string `json:"remote,omitempty"`
	Branch string `json:"branch,omitempty"`
	Rev    string `json:"rev,omitempty"`
	// The agent's session: agent.Spec's fields that travel.
	Job          string   `json:"job"`
	Attempt      int      `json:"attempt"`
	Prompt       string   `json:"prompt"`
	Env          []string `json:"env,omitempty"`
	Model        string   `json:"model,omitempty"`
	MaxBudgetUSD float64  `json:"max_budget_usd,omitempty"`
}

// sharedRunBranchName is what sharedRunBranch makes.
var sharedRunBranchName = regexp.MustCompile(`^hive/run-[A-Za-z0-9._-]+/run$`)

// commitHash is a full commit hash.
var commitHash = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// check refuses a request hive run would not send.
func (r roleRequest) check() error {
	switch {
	case !slices.Contains(pipeline.Roles, r.Role):
		return fmt.Errorf("the role session names no role of hive run (%q)", r.Role)
	case r.Remote == "" && !filepath.IsAbs(r.Dir):
		return fmt.Errorf("the role session names no run's worktree (%q) and no remote", r.Dir)
	case r.Remote != "" && !sharedRunBranchName.MatchString(r.Branch):
		return fmt.Errorf("the role session's branch %q is not a run's", r.Branch)
	case r.Remote != "" && !commitHash.MatchString(r.Rev):
		return fmt.Errorf("the role session's start %q is not a commit", r.Rev)
	case r.Job == "" || r.Attempt < 1:
		return fmt.Errorf("the role session's job %q (attempt %d) is not one hive run would send", r.Job, r.Attempt)
	}
	return nil
}

// roleWorkers start the sessions of a run's roles on the workers of its
// plans: in the run's worktree, which the workers of the project's folder
// share, or, for a run whose work is on a git remote (share), in
// worktrees of the workers' clones.
type roleWorkers struct {
	c        client.Client
	queue    string             // the workers': the phases' queue
	workflow string             // the run's
	driver   int32              // this driver's attempt: its sessions are its own
	remote   string             // the run's remote, as the run names it ("": none)
	agent    string             // the run's agent program
	share    *runShare          // nil: no remote
	d        *temporal.Dispatch // the sessions' heartbeat and bound

	mu  sync.Mutex
	run journal.Run
}

// serve makes the sessions of opts' roles go to the workers: all but the
// evaluator's, a short call of the driver's own.
func (w *roleWorkers) serve(opts *piperun.Options) {
	roles := map[string]agent.Launcher{}
	for role, l := range opts.Roles {
		if role != pipeline.RoleEvaluator {
			l = roleLauncher{w, l, role}
		}
		roles[role] = l
	}
	opts.Roles = roles
	opts.Launcher = roleLauncher{w, opts.Launcher, pipeline.RoleImplementer}
	started := opts.Started
	opts.Started = func(r journal.Run) {
		w.mu.Lock()
		w.run = r
		w.mu.Unlock()
		if started != nil {
			started(r)
		}
	}
}

// sessionID names the workflow of the session of job's attempt in run
// that driver (its attempt) started.
func (w *roleWorkers) sessionID(run journal.Run, job string, attempt int, driver int32) string {
	return fmt.Sprintf("%s-%s-%s-%d-d%d", w.workflow, runName(run), job, attempt, driver)
}

// stopEarlier ends the role sessions of run that the drivers before this
// one started and may have left running (a driver taken for dead leaves
// its session on its worker): each is stopped and waited for, a while,
// so that what its agent committed is on the run's branch before this
// driver brings it, and no two sessions of a job go on side by side.
func (w *roleWorkers) stopEarlier(ctx context.Context, j journal.Journal, run journal.Run) {
	m, err := piperun.Replay(j, run)
	if err != nil {
		return // the run's resume says why
	}
	for _, job := range m.Snapshot().Jobs {
		if job.State != pipeline.Running || job.Phase {
			continue
		}
		for d := int32(1); d < w.driver; d++ {
			id := w.sessionID(run, job.ID, job.Attempts, d)
			if w.c.CancelWorkflow(ctx, id, "") != nil {
				continue // none, or it has ended
			}
			wait, cancel := context.WithTimeout(ctx, 2*w.d.Heartbeat+roleStopGrace)
			var res temporal.RoleResult
			temporal.Result(wait, w.c.GetWorkflow(wait, id, ""), &res)
			cancel()
		}
	}
}

// roleLauncher starts a role's sessions on the workers, in place of the
// launcher local, whose name it keeps.
type roleLauncher struct {
	w     *roleWorkers
	local agent.Launcher
	role  string
}

func (l roleLauncher) Name() string       { return l.local.Name() }
func (l roleLauncher) LiveSessions() bool { return false } // role agents are one-shot

// Start shares the run's worktree (spec.Dir), then starts the session on
// a worker from its commit and follows it.
func (l roleLauncher) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	l.w.mu.Lock()
	run := l.w.run
	l.w.mu.Unlock()
	req := roleRequest{Role: l.role, Agent: l.w.agent, Dir: spec.Dir,
		Job: spec.Plan, Attempt: spec.Attempt, Prompt: spec.Prompt, Env: spec.Env, Model: spec.Model, MaxBudgetUSD: spec.MaxBudgetUSD}
	if l.w.share != nil {
		if err := l.w.share.share(ctx, spec.Dir, run); err != nil {
			return nil, fmt.Errorf("share the run's worktree for the %s's session: %w", l.role, err)
		}
		rev, err := (&gitx.Repo{Root: spec.Dir}).Head(ctx)
		if err != nil {
			return nil, err
		}
		req.Dir, req.Remote, req.Branch, req.Rev = "", l.w.remote, sharedRunBranch(run), rev
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	id := l.w.sessionID(run, spec.Plan, spec.Attempt, l.w.driver)
	call, err := temporal.StartRole(ctx, l.w.c, id, temporal.RoleInput{Session: raw, Queue: l.w.queue, Heartbeat: l.w.d.Heartbeat, Timeout: l.w.d.Session})
	if err != nil {
		return nil, err
	}
	s := &roleSession{call: call, done: make(chan struct{})}
	s.Touch()
	go s.follow(ctx, spec, sink)
	return s, nil
}

// roleSession is a role's session on a worker, as the driver sees it.
type roleSession struct {
	call     *temporal.RoleCall
	last     atomic.Int64 // unix nanoseconds of its last output
	done     chan struct{}
	stopOnce sync.Once
}

// follow hands the session's outputs to sink until it ends; a session
// that ends without its agent's exit (its worker lost) ends with one.
func (s *roleSession) follow(ctx context.Context, spec agent.Spec, sink func(agent.Output)) {
	defer close(s.done)
	exited := false
	why := s.call.Follow(ctx, 300*time.Millisecond, func(raw json.RawMessage) {
		var out agent.Output
		if err := json.Unmarshal(raw, &out); err != nil {
			return
		}
		s.Touch()
		out.Plan, out.Attempt = spec.Plan, spec.Attempt
		exited = exited || out.Kind == agent.OutExit
		sink(out)
	})
	if ctx.Err() != nil {
		s.stop() // the driver stops: so does its session
	}
	if !exited {
		sink(agent.Output{Plan: spec.Plan, Attempt: spec.Attempt, Kind: agent.OutExit, ExitCode: -1,
			Err: "its session on a worker ended: " + cmp.Or(why, "without its agent's exit")})
	}
}

// stop asks the session's worker to stop the agent, once.
func (s *roleSession) stop() {
	s.stopOnce.Do(func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s.call.Stop(ctx) // a session that has ended needs no stop
		}()
	})
}

func (s *roleSession) PID() int { return 0 }
func (s *roleSession) Send(string) error {
	return errors.New("a role's session on a worker takes no messages: role agents are one-shot")
}

// AnswerPermission: the worker refused the request already (role agents
// work unattended).
func (s *roleSession) AnswerPermission(string, bool, string, string) error { return nil }
func (s *roleSession) StopTurn(time.Duration)                              { s.stop() }
func (s *roleSession) KillStalled(string)                                  { s.stop() }
func (s *roleSession) Kill()                                               { s.stop() }

// Stop: a role's turn has ended, and its worker ends the agent itself
// (its input closed), then pushes its last work: it is stopped from here
// only when it has not ended within grace and a few seconds.
func (s *roleSession) Stop(grace time.Duration) {
	select {
	case <-s.done:
	case <-time.After(grace + 10*time.Second):
		s.stop()
	}
}

func (s *roleSession) Silent(now time.Time) time.Duration {
	return now.Sub(time.Unix(0, s.last.Load()))
}
func (s *roleSession) Touch()                { s.last.Store(time.Now().UnixNano()) }
func (s *roleSession) Done() <-chan struct{} { return s.done }

// roleRunner runs role sessions on a worker (temporal.RoleRunner), in
// worktrees of this clone made from the run's branch on its remote.
type roleRunner struct {
	g      *globalOptions
	agent  string // the worker's --agent
	remote string // the worker's --git-remote
	out    io.Writer

	mu    sync.Mutex
	ready map[string]bool // the agents checked here (preflightAgents' key)
}

// check makes sure, once per agent program and settings, that the role's
// agent can start on this worker. The driver does not check the roles'
// agents (none of them runs where it drives): a missing or logged-out CLI
// is said here, with how to fix it, before any session is started.
func (r *roleRunner) check(ctx context.Context, root, role string, l agent.Launcher, allow []string) error {
	key := fmt.Sprintf("%#v", l)
	r.mu.Lock()
	ok := r.ready[key]
	r.mu.Unlock()
	if ok {
		return nil
	}
	if err := preflightAgents(ctx, r.out, allow, nil, map[string]agent.Launcher{role: l}); err != nil {
		host, _ := os.Hostname()
		return fmt.Errorf("on the worker at %s (%s): %w", host, root, err)
	}
	r.mu.Lock()
	if r.ready == nil {
		r.ready = map[string]bool{}
	}
	r.ready[key] = true
	r.mu.Unlock()
	return nil
}

// Run implements temporal.RoleRunner.
func (r *roleRunner) Run(ctx context.Context, raw json.RawMessage, emit func(json.RawMessage)) error {
	var req roleRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return fmt.Errorf("the role session's request: %w", err)
	}
	if err := req.check(); err != nil {
		return err
	}
	repo, cfg, err := openRepoConfig(ctx, r.g)
	if err != nil {
		return err
	}
	launchers, _, err := roleAgents(cmp.Or(req.Agent, r.agent), cfg)
	if err != nil {
		return err
	}
	if err := r.check(ctx, repo.Root, req.Role, launchers[req.Role], cfg.Secrets.Env); err != nil {
		return err
	}
	secretsOf(cfg).wrapAll(launchers)
	root := worktreeRoot(cfg, repo.Root)
	if root == "" {
		if root, err = gitx.DefaultWorktreeRoot(repo.Root); err != nil {
			return err
		}
	}
	var t roleTree
	if req.Remote == "" {
		t, err = sharedRoleTree(repo, root, req)
	} else {
		t, err = r.remoteRoleTree(ctx, repo, root, req)
	}
	if err != nil {
		return err
	}
	defer t.close()
	if req.Remote != "" { // a shared worktree was set up when the run made it
		if err := worktreeSetup(cfg).Run(ctx, repo.Root, t.dir); err != nil {
			return err
		}
	}
	tree, name, push := t.dir, t.name, t.push
	fmt.Fprintf(r.out, "hive worker: %s attempt %d runs here (the %s)\n", req.Job, req.Attempt, req.Role)
	var sess agent.Session
	lost := ""         // why the session's work did not reach the run's branch
	var said time.Time // when the last output went to the driver
	ready := make(chan struct{})
	sink := func(out agent.Output) {
		switch out.Kind {
		case agent.OutText:
			if !strings.Contains(out.Text, "HIVE_REPORT") {
				// Only the report is the driver's; the rest says the agent
				// lives, which once in a while says well enough.
				if time.Since(said) < aliveEvery {
					return
				}
				out.Text = ""
			} else if err := push(); err != nil {
				// A report of work the run's branch does not hold is no
				// report: the session ends without one (another session,
				// of a driver taken for dead, went on with the run).
				lost = "its work could not be pushed to " + req.Branch + " before its report: " + err.Error()
				fmt.Fprintf(r.out, "hive worker: %s: %s\n", req.Job, lost)
				<-ready
				if sess != nil {
					go sess.Stop(5 * time.Second)
				}
				return
			}
		case agent.OutGarbage:
			if time.Since(said) < aliveEvery {
				return
			}
			out.Text = ""
		case agent.OutResult:
			// One turn per role (as piperun has it): its input closes
			// and it exits.
			out.Text = ""
			go func() {
				<-ready
				if sess != nil {
					sess.Stop(roleStopGrace)
				}
			}()
		case agent.OutToolCall:
			out.Input = compactInput(out.Input)
		case agent.OutPermission:
			<-ready
			if sess != nil {
				sess.AnswerPermission(out.RequestID, false, out.Input, piperun.Unattended(out.Tool))
			}
			out.Input = compactInput(out.Input)
		case agent.OutExit:
			if lost == "" {
				if err := push(); err != nil {
					lost = "its work could not be pushed to " + req.Branch + ": " + err.Error()
				}
			}
			if lost != "" {
				out.Err = strings.TrimPrefix(out.Err+"; "+lost, "; ")
				if out.ExitCode == 0 {
					out.ExitCode = 1
				}
			}
		}
		b, err := json.Marshal(out)
		if err == nil {
			said = time.Now()
			emit(b)
		}
	}
	spec := agent.Spec{Plan: req.Job, Attempt: req.Attempt, Dir: tree, Prompt: req.Prompt, Env: req.Env, Model: req.Model, MaxBudgetUSD: req.MaxBudgetUSD,
		LogPath: filepath.Join(repo.Root, ".hive", "logs", fmt.Sprintf("%s-%s.attempt-%d.log", name, unsafeBranchChars.ReplaceAllString(req.Job, "-"), req.Attempt))}
	sess, err = launchers[req.Role].Start(ctx, spec, sink)
	close(ready)
	if err != nil {
		return err
	}
	select {
	case <-sess.Done():
	case <-ctx.Done():
		sess.Stop(5 * time.Second)
		<-sess.Done()
	}
	fmt.Fprintf(r.out, "hive worker: %s attempt %d ended (the %s)\n", req.Job, req.Attempt, req.Role)
	return ctx.Err()
}

// roleTree is where a role's session works on a worker: dir, named name
// in its log's name; push shares what its agent committed, close ends
// it.
type roleTree struct {
	dir, name string
	push      func() error
	close     func()
}

// sharedRoleTree is the run's own worktree, which the workers of the
// project's folder share: it must be one of this project's runs'.
func sharedRoleTree(repo *gitx.Repo, root string, req roleRequest) (roleTree, error) {
	dir := filepath.Clean(req.Dir)
	if filepath.Dir(dir) != filepath.Clean(root) || !runWorktree.MatchString(filepath.Base(dir)) {
		return roleTree{}, fmt.Errorf("the %s's session is for %s, which is not a run's worktree of %s (its runs' worktrees are in %s)", req.Role, req.Dir, repo.Root, root)
	}
	return roleTree{dir: dir, name: filepath.Base(dir), push: func() error { return nil }, close: func() {}}, nil
}

// remoteRoleTree is a worktree of this clone made from the run's branch
// on its remote (as the run names it: the worker's --git-remote, else
// the run's own name here), at the commit the driver started the session
// from; push pushes what the agent committed there, from where the branch
// was, and the driver brings it before it journals what follows.
func (r *roleRunner) remoteRoleTree(ctx context.Context, repo *gitx.Repo, root string, req roleRequest) (roleTree, error) {
	remote, err := cloneRemote(ctx, repo, r.remote, req.Remote)
	if err != nil {
		return roleTree{}, err
	}
	if err := repo.FetchBranches(ctx, remote, req.Branch); err != nil {
		return roleTree{}, err
	}
	if tip := repo.RefHash(ctx, gitx.RemoteRef(req.Branch)); tip != req.Rev {
		return roleTree{}, fmt.Errorf("the run's branch %s of %s is at %q, not at %s where its driver started the %s: another driver went on with the run", req.Branch, remote, tip, req.Rev, req.Role)
	}
	name := strings.TrimPrefix(strings.TrimSuffix(req.Branch, "/run"), "hive/")
	tree := filepath.Join(root, "roles", fmt.Sprintf("%s-%s-%d", name, unsafeBranchChars.ReplaceAllString(req.Job, "-"), req.Attempt))
	repo.RemoveWorktree(ctx, tree, "") // one a worker that died left
	if _, err := repo.Git(ctx, "worktree", "add", "-q", "-f", "--detach", tree, req.Rev); err != nil {
		return roleTree{}, fmt.Errorf("the %s's worktree: %w", req.Role, err)
	}
	pushed := req.Rev
	push := func() error {
		// Even for a stopped session: what its agent committed is the
		// run's.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		head, err := repo.At(tree).Head(ctx)
		if err != nil || head == pushed {
			return err
		}
		lease := pushed
		if err := repo.PushBranch(ctx, remote, head, req.Branch, &lease); err != nil {
			return err
		}
		pushed = head
		return nil
	}
	return roleTree{dir: tree, name: name, push: push, close: func() { repo.RemoveWorktree(context.Background(), tree, "") }}, nil
}

// aliveEvery is how often at most a role's agent's text that is not its
// report goes to the driver, emptied: the driver's watchdog needs only to
// hear that the agent lives (its stall timeout is minutes).
const aliveEvery = 10 * time.Second

// roleStopGrace is how long a role's agent has to exit once its turn has
// ended and its input is closed.
const roleStopGrace = 5 * time.Second

// compactInput keeps a tool call's input small enough to travel (a Write
// carries a whole file): past 2 KB, what says what the call does and a
// hash of the whole, so that calls still tell apart.
func compactInput(input string) string {
	const limit = 2 << 10
	if len(input) <= limit {
		return input
	}
	var in map[string]any
	short := map[string]any{"hive_sha256": fmt.Sprintf("%x", sha256.Sum256([]byte(input)))}
	if json.Unmarshal([]byte(input), &in) == nil {
		for _, k := range runner.SummaryKeys() {
			if v, ok := in[k].(string); ok && len(v) <= 512 {
				short[k] = v
			}
		}
	}
	b, _ := json.Marshal(short)
	return string(b)
}
