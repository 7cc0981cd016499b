package phaserun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/prompt"
)

// A phase whose plans run on a distributed backend's workers tells them
// each plan's briefing through the run's worktree, which they share:
// SaveBriefs writes what Options.Agents.Brief says of every plan, and
// SavedBriefs reads it back on the worker. Workers in clones of their own
// get it through the run's git remote instead: PublishBriefs pushes it on
// a branch of its own, RemoteBriefs reads it there.

// briefsFile is where the briefings of the phase's plans are kept, in the
// tree they run in (.hive is hive's own, never committed).
func briefsFile(dir string) string { return filepath.Join(dir, ".hive", "briefs.json") }

// briefsName is the briefings' file on their branch.
const briefsName = "briefs.json"

// briefsBranch is the branch of the briefings of the run whose branches
// are named by namespace (integration.Git.Namespace).
func briefsBranch(namespace string) string { return "hive/" + namespace + "/briefs" }

// briefs is o's briefing of each plan of its phase, as JSON.
func briefs(o runner.Options) ([]byte, error) {
	all := map[string]prompt.Briefing{}
	if o.Agents.Brief != nil {
		for _, p := range o.Phase.Plans {
			all[p.ID] = o.Agents.Brief(p)
		}
	}
	return json.Marshal(all)
}

// SaveBriefs keeps o's briefing of each plan of its phase for its workers.
func SaveBriefs(o runner.Options) error {
	data, err := briefs(o)
	if err != nil {
		return err
	}
	path := briefsFile(o.Repo.Root)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("keep the plans' briefings for the workers: %w", err)
	}
	return os.Rename(tmp, path)
}

// PublishBriefs pushes o's briefing of each plan of its phase to the
// run's remote (o.Git.Remote), on briefsBranch of o.Git.Namespace.
func PublishBriefs(ctx context.Context, o runner.Options) error {
	data, err := briefs(o)
	if err != nil {
		return err
	}
	commit, err := o.Repo.FileCommit(ctx, briefsName, data, "hive: the briefings of the plans of "+o.Git.Namespace)
	if err == nil {
		err = o.Repo.PushBranch(ctx, o.Git.Remote, commit, briefsBranch(o.Git.Namespace), nil)
	}
	if err != nil {
		return fmt.Errorf("hand the plans' briefings to the workers: %w", err)
	}
	return nil
}

// SavedBriefs is the briefing SaveBriefs kept for each plan in dir; a
// plan it does not know, or a file it cannot read, is told nothing more
// than its plan.
func SavedBriefs(dir string) func(*plan.Plan) prompt.Briefing {
	return func(p *plan.Plan) prompt.Briefing {
		data, err := os.ReadFile(briefsFile(dir))
		if err != nil {
			return prompt.Briefing{}
		}
		return parseBriefs(data)[p.ID]
	}
}

// RemoteBriefs is the briefing PublishBriefs pushed for each plan of the
// run of namespace, as repo last fetched it.
func RemoteBriefs(ctx context.Context, repo *gitx.Repo, namespace string) (func(*plan.Plan) prompt.Briefing, error) {
	data, err := repo.FileAt(ctx, gitx.RemoteRef(briefsBranch(namespace)), briefsName)
	if err != nil {
		return nil, fmt.Errorf("the plans' briefings: %w", err)
	}
	all := parseBriefs(data)
	return func(p *plan.Plan) prompt.Briefing { return all[p.ID] }, nil
}

// parseBriefs reads briefings; damaged ones tell nothing.
func parseBriefs(data []byte) map[string]prompt.Briefing {
	var all map[string]prompt.Briefing
	if json.Unmarshal(data, &all) != nil {
		return nil
	}
	return all
}
