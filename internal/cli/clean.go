package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner/cleanup"
)

type cleanOptions struct {
	*globalOptions
	json    bool
	orphans bool
}

func newCleanCmd(g *globalOptions) *cobra.Command {
	o := &cleanOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove the worktrees, merged branches and stale folders that killed runs left behind",
		Long: `clean removes hive's worktrees of every phase that no live hive process is
running (a live run's worktrees are left alone), wherever hive's worktree folder
was when they were made, and says which ones held uncommitted changes. It runs
git worktree prune, deletes the hive/ branches whose work is already on the
current branch, and removes from hive's worktree folder (by default
<user cache>/hive/worktrees/<repo>-<hash>) the folders of worktrees no
repository knows any more, such as those of an earlier clone at the same path,
then the folder itself once empty. Branches with work not merged yet are kept
and listed: running the phase again resumes from them. Anything else in the
worktree folder is left and listed.
`,
		Example: `  hive clean
  hive clean --json
  hive clean --orphans     # from any folder: every repository's leftovers whose repository is gone`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cleanRun(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print what was done as JSON: removed_worktrees, discarded_changes, pruned_worktrees, stale_folders, live_worktrees, deleted_branches, kept_branches, left (with --orphans: orphans), each a list")
	cmd.Flags().BoolVar(&o.orphans, "orphans", false, "instead: remove hive's worktree folders, in the cache folder, of repositories that no longer exist")
	return cmd
}

func cleanRun(ctx context.Context, o *cleanOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.orphans {
		return cleanOrphans(o)
	}
	repo, cfg, err := openRepoConfig(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	if err := unfinishedPipeline(repo.Root); err != nil {
		return err
	}
	rep, err := cleanup.Clean(ctx, repo, runconfig.WorktreeRoot(cfg, repo.Root))
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(o.stdout, rep.WithEmptyLists())
	}
	for _, p := range rep.Pruned {
		fmt.Fprintf(o.stdout, "forgot worktree %s: its folder was gone\n", p)
	}
	for _, p := range rep.Removed {
		fmt.Fprintf(o.stdout, "removed worktree %s\n", p)
	}
	for _, d := range rep.Discarded {
		fmt.Fprintf(o.stdout, "discarded uncommitted changes of %s\n", d)
	}
	for _, p := range rep.Live {
		fmt.Fprintf(o.stdout, "left worktree %s: a live run uses it\n", p)
	}
	for _, p := range rep.Folders {
		fmt.Fprintf(o.stdout, "removed stale folder %s: a worktree no repository knows any more\n", p)
	}
	for _, b := range rep.Deleted {
		fmt.Fprintf(o.stdout, "deleted branch %s (merged)\n", b)
	}
	for _, b := range rep.Kept {
		fmt.Fprintf(o.stdout, "kept branch %s\n", b)
	}
	for _, l := range rep.Left {
		fmt.Fprintf(o.stdout, "left %s\n", l)
	}
	if len(rep.Pruned)+len(rep.Removed)+len(rep.Folders)+len(rep.Deleted)+len(rep.Live)+len(rep.Kept)+len(rep.Left) == 0 {
		fmt.Fprintln(o.stdout, "nothing to clean")
	}
	return nil
}

// cleanOrphans removes the folders of hive's cache whose repository is
// gone, and says which.
func cleanOrphans(o *cleanOptions) error {
	root, err := worktrees.CacheRoot()
	if err != nil {
		return fmt.Errorf("find the cache folder: %w", err)
	}
	orphans, err := worktrees.Orphans(root)
	if err != nil {
		return err
	}
	var removed []string
	for _, dir := range orphans {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
		removed = append(removed, dir)
	}
	if o.json {
		return printJSON(o.stdout, struct {
			Orphans []string `json:"orphans"`
		}{nonNil(removed)})
	}
	for _, dir := range removed {
		fmt.Fprintf(o.stdout, "removed %s: its repository no longer exists\n", dir)
	}
	if len(removed) == 0 {
		fmt.Fprintf(o.stdout, "no orphans in %s\n", root)
	}
	return nil
}

// unfinishedPipeline refuses to clean while a hive run is unfinished: its
// worktree and its implementers' worktrees are its work, and the phase's
// lock that would say so lives in the run's own worktree.
func unfinishedPipeline(root string) error {
	path := filepath.Join(root, ".hive", "runs.db")
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	j, err := journal.Open(path)
	if err != nil {
		return err
	}
	defer j.Close()
	run, ok, err := runjournal.Latest(j)
	if err != nil || !ok || !run.Finished.IsZero() {
		return err
	}
	return exit.Errorf(exit.Busy, "hive run %d is unfinished and its worktrees are its work: resume it (hive run --resume) or abandon it (hive run --fresh \"…\") first", run.ID)
}
