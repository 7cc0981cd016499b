package temporalhost

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runworker"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// PhaseRunID names the Temporal workflow of a phase of the repository
// in folder root: the id of a run whose workers share that folder.
func PhaseRunID(root string, ph *plan.Phase) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("hive-%s-%x", filepath.Base(ph.Dir), sum[:4])
}

// Names names the workflows of a repository's phase runs: by its
// folder (PhaseRunID), or, for a run whose workers share work through a
// git remote, by the repository itself, its root commits, which every
// clone shares, so that hive answer, status and serve find that run from
// any clone, not only from the folder that started it.
type Names struct {
	root  string
	Roots string // the root commits, sorted; "" when git could not tell
	err   error
}

// NewNames reads the repository's root commits once.
func NewNames(ctx context.Context, root string) Names {
	n := Names{root: root}
	repo, err := gitx.Open(ctx, root)
	if err == nil {
		var out string
		if out, err = repo.Git(ctx, "rev-list", "--max-parents=0", "HEAD"); err == nil {
			roots := strings.Fields(out)
			slices.Sort(roots)
			n.Roots = strings.Join(roots, " ")
		}
	}
	if err != nil {
		n.err = fmt.Errorf("the repository's first commit: %w", err)
	}
	return n
}

// ByRepo is the id of the phase's run named by the repository.
func (n Names) ByRepo(ph *plan.Phase) (string, error) {
	if n.err != nil {
		return "", n.err
	}
	sum := sha256.Sum256([]byte("repo:" + n.Roots))
	return fmt.Sprintf("hive-%s-%x", filepath.Base(ph.Dir), sum[:4]), nil
}

// Find is the workflow of the phase's run on the server, by either id:
// the one that runs, else the one started last. found is false when the
// server has neither; err is set when it could not be asked.
func (n Names) Find(ctx context.Context, c client.Client, ph *plan.Phase) (id string, desc *workflowservice.DescribeWorkflowExecutionResponse, found bool, err error) {
	ids := []string{PhaseRunID(n.root, ph)}
	if byRepo, err := n.ByRepo(ph); err == nil {
		ids = append(ids, byRepo)
	}
	for _, candidate := range ids {
		d, err := c.DescribeWorkflowExecution(ctx, candidate, "")
		var missing *serviceerror.NotFound
		switch {
		case errors.As(err, &missing):
			continue
		case err != nil:
			return "", nil, false, fmt.Errorf("the workflow %s: %w", candidate, err)
		}
		later := d.GetWorkflowExecutionInfo().GetStartTime().AsTime().After(desc.GetWorkflowExecutionInfo().GetStartTime().AsTime())
		if !found || WorkflowRunning(d) || (!WorkflowRunning(desc) && later) {
			id, desc, found = candidate, d, true
		}
	}
	return id, desc, found, nil
}

// WorkflowRunning says whether the described workflow still runs.
func WorkflowRunning(d *workflowservice.DescribeWorkflowExecutionResponse) bool {
	return d.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// Client is a client of the Temporal server (Dial), which the CLI hands
// to the hosts' functions.
type Client = client.Client

// PhaseRun is a phase's run on the server, as hive status, attach and
// serve show it.
type PhaseRun struct {
	Workflow        string
	Running         bool
	Started, Closed time.Time
}

// Run is the run of phase ph on the server (Find): found is false when
// there is none.
func (n Names) Run(ctx context.Context, c client.Client, ph *plan.Phase) (r PhaseRun, found bool, err error) {
	id, desc, found, err := n.Find(ctx, c, ph)
	if err != nil || !found {
		return r, found, err
	}
	info := desc.GetWorkflowExecutionInfo()
	r = PhaseRun{Workflow: id, Running: WorkflowRunning(desc), Started: info.GetStartTime().AsTime()}
	if !r.Running {
		r.Closed = info.GetCloseTime().AsTime()
	}
	return r, true, nil
}

// RunUnderWay is the workflow of hive run's run of the folder root, when
// one runs on the server.
func RunUnderWay(ctx context.Context, c client.Client, root string) (id string, running bool) {
	id = runworker.WorkflowID(root)
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	return id, err == nil && WorkflowRunning(d)
}
