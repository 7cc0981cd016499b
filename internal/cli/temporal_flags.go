package cli

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/temporal"
)

// temporalFlags say where a run is kept and, for the Temporal backend,
// where its server is. A flag left out takes the project's config
// (backend.kind, backend.temporal.*), then the default.
type temporalFlags struct {
	backend   string
	address   string
	namespace string
	queue     string
	remote    string // --git-remote (execute-phase and worker)
}

func (f *temporalFlags) add(cmd *cobra.Command, g *globalOptions, backendHelp string) {
	cmd.Flags().StringVar(&f.backend, "backend", "", backendHelp+" (default: backend.kind in config, else local)")
	cmd.Flags().StringVar(&f.address, "temporal-address", "", "the Temporal server's host:port (default: backend.temporal.address in config, else 127.0.0.1:7233)")
	cmd.Flags().StringVar(&f.namespace, "temporal-namespace", "", "the Temporal namespace (default: backend.temporal.namespace in config, else default)")
	cmd.Flags().StringVar(&f.queue, "task-queue", "", "the Temporal task queue the run's workers poll (default: backend.temporal.task_queue in config, else hive)")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return f.settle(cmd.Context(), g) }
}

// addRemote adds --git-remote, for the commands that carry out a run's work.
func (f *temporalFlags) addRemote(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.remote, "git-remote", "", "backend temporal: the git remote (a name such as origin, or a URL) through which workers in clones of their own share work, a worktree per plan; without it every worker works in this repository's folder (default: backend.temporal.remote in config)")
}

// settle fills what the flags left out from the project's config. Outside a
// repository the defaults hold (the command says what is wrong there).
func (f *temporalFlags) settle(ctx context.Context, g *globalOptions) error {
	b := config.Backend{}
	if repo, err := gitx.Open(ctx, g.repo); err == nil {
		cfg, err := config.Load(repo.Root)
		if err != nil {
			return exitf(ExitUsage, "%v", err)
		}
		b = cfg.Backend
	}
	b = b.WithDefaults()
	for _, v := range []struct {
		flag *string
		cfg  string
	}{
		{&f.backend, b.Kind}, {&f.address, b.Temporal.Address}, {&f.namespace, b.Temporal.Namespace}, {&f.queue, b.Temporal.TaskQueue}, {&f.remote, b.Temporal.Remote},
	} {
		if *v.flag == "" {
			*v.flag = v.cfg
		}
	}
	return nil
}

// dial connects to the Temporal server, its SDK's logging kept to errors
// (a session stopped after PLAN COMPLETE, say, is a warning to it).
func (f *temporalFlags) dial(ctx context.Context) (client.Client, error) {
	c, err := client.DialContext(ctx, client.Options{HostPort: f.address, Namespace: f.namespace,
		Logger: log.NewStructuredLogger(slog.New(quietStops{slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})}))})
	if err != nil {
		return nil, exitf(ExitUsage, "cannot reach the Temporal server at %s (namespace %s): %v\nstart one (`temporal server start-dev`), or name yours with --temporal-address or backend.temporal.address in .hive/config.json", f.address, f.namespace, err)
	}
	return c, nil
}

// quietStops drops the SDK's report of an activity that ended because its
// worker was stopped (ctrl-c): hive says so itself, and the run goes on.
type quietStops struct{ slog.Handler }

func (q quietStops) Handle(ctx context.Context, r slog.Record) error {
	// Its answer to the server about that activity, which the stop also
	// cancelled, is the same news.
	if r.Message == "Activity task postprocess error: "+context.Canceled.Error() {
		return nil
	}
	if r.Message == "Activity error." {
		canceled := false
		r.Attrs(func(a slog.Attr) bool {
			canceled = a.Key == "Error" && a.Value.String() == context.Canceled.Error()
			return !canceled
		})
		if canceled {
			return nil
		}
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietStops) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietStops{q.Handler.WithAttrs(attrs)}
}

func (q quietStops) WithGroup(name string) slog.Handler { return quietStops{q.Handler.WithGroup(name)} }

// temporalDispatch is how a run's workflow hands out its work: heartbeats
// a tenth of the stall timeout (at least ten seconds), sessions of a day
// at most.
func temporalDispatch(queue string, stall time.Duration) *temporal.Dispatch {
	if stall <= 0 {
		stall = 5 * time.Minute
	}
	return &temporal.Dispatch{TaskQueue: queue, Heartbeat: max(stall/10, 10*time.Second), Session: 24 * time.Hour, Command: 10 * time.Minute}
}
