package runworker

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
)

// WorkflowID names the workflow of hive run's runs in the
// repository in folder root: one at a time, as the journal holds one
// unfinished run at a time.
func WorkflowID(root string) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("hive-run-%x", sum[:4])
}

// FolderQueue is the task queue of hive run's runs in the repository in
// folder root: its own, since the workers of a phase's runs carry out
// other work, and the folder's, since only a worker there has the run's
// worktree and journal.
func FolderQueue(queue, root string) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("%s-run-%x", queue, sum[:4])
}

// openFolder opens the repository in folder root and reads its
// configuration; a bad configuration is a usage error.
func openFolder(ctx context.Context, root string) (*gitx.Repo, *config.Config, error) {
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		return nil, nil, exit.With(exit.Usage, err)
	}
	cfg, err := config.Load(repo.Root)
	if err != nil {
		return nil, nil, exit.With(exit.Usage, err)
	}
	return repo, cfg, nil
}
