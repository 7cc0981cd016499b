package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/temporalhost"
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
			return exit.Errorf(exit.Usage, "%v", err)
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

// dial connects to the Temporal server the flags name.
func (f *temporalFlags) dial(ctx context.Context) (temporalhost.Client, error) {
	return temporalhost.Dial(ctx, f.address, f.namespace)
}
