package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporalhost"
	"github.com/hivectl/hive/internal/work"
)

// executeTemporal runs (or attaches to) the phase's run on the Temporal
// server (temporalhost.ExecutePhase).
func executeTemporal(ctx context.Context, o *executeOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts, cfg, err := temporalPhase(ctx, o.globalOptions, o.phase, o.agent, o.remote)
	if err != nil {
		return err
	}
	opts.Git.AllowDirty = o.allowDirty
	// The workflow waits on a timer at a usage limit, or falls back; stop
	// is this process's own to carry out, and a workflow has none.
	onLimit, _, err := runconfig.OnLimit(cfg, o.onLimit)
	if err != nil {
		return err
	}
	if onLimit == work.OnLimitStop {
		fmt.Fprintln(o.stderr, "hive: on-limit stop does not apply on Temporal: at a usage limit the workflow waits on a timer, holding no process")
		onLimit = work.OnLimitWait
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return temporalhost.ExecutePhase(ctx, temporalhost.Phase{Client: c, Queue: o.queue, Remote: o.remote, Opts: opts, Stall: cfg.Timeouts.Stall, OnLimit: onLimit,
		LocalWorker: o.localWorker, Yes: o.yes, Rerun: o.rerun, Out: o.stdout})
}

// temporalPhase readies the work of a Temporal run of phase in the
// repository --repo names (runconfig.TemporalPhase).
func temporalPhase(ctx context.Context, g *globalOptions, phase, agentName, remote string) (runner.Options, *config.Config, error) {
	repo, cfg, err := openRepoConfig(ctx, g)
	if err != nil {
		return runner.Options{}, nil, err
	}
	ph, err := onePhase(g.stderr, repo.Root, phase)
	if err != nil {
		return runner.Options{}, nil, err
	}
	opts, err := runconfig.TemporalPhase(ctx, g.stderr, repo, cfg, ph, agentName, remote)
	return opts, cfg, err
}

// answerTemporal answers a plan's open checkpoint in the phase's Temporal
// run (temporalhost.AnswerPhase).
func answerTemporal(ctx context.Context, o *answerOptions, root string) error {
	number, _, _ := strings.Cut(o.plan, "-")
	ph, err := onePhase(o.stderr, root, number)
	if err != nil {
		return err
	}
	cfg, err := config.Load(root)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	open, text, err := temporalhost.AnswerPhase(ctx, c, root, ph, o.plan, o.text, runconfig.SecretsOf(cfg).Red)
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(o.stdout, answerResult{Plan: o.plan, Checkpoint: open.ID, Title: lines.Title(open), Answer: text})
	}
	fmt.Fprintf(o.stdout, "Answer to checkpoint #%d of plan %s (%s) sent to the run's workflow: %q.\n", open.ID, o.plan, lines.Title(open), text)
	return nil
}
