package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/handoff"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/spf13/cobra"
)

type pauseOptions struct {
	*globalOptions
	json bool
}

func newPauseCmd(g *globalOptions) *cobra.Command {
	o := &pauseOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "pause [PHASE]",
		Short: "Pause the whole team of a running phase: work in progress committed, notes kept, a handoff file written",
		Long: `pause asks the hive process running a phase (the only one running, or
PHASE) to bring every agent to a stop (seed 001's checkpoint): each live
agent commits its work in progress and writes its notes, one-shot agents
are stopped with their committed tasks kept, and agents waiting at a
checkpoint end (the answer goes to a fresh agent later). Then the running
hive writes HANDOFF.md into the phase folder and exits with code 6.

Resume with the same execute-phase command: the journal is the truth, the
handoff file a view of it. Each plan goes on in a fresh session that is told
which task it was on, what its work-in-progress commit holds and what the
previous session noted; a handoff older than an hour is warned about.`,
		Example: `  hive pause
  hive pause 03
  hive execute-phase 03   # later: resume`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			phase := ""
			if len(args) == 1 {
				phase = args[0]
			}
			return pauseRun(cmd, o, phase)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print what was asked as JSON")
	return cmd
}

// pauseResult is what --json prints.
type pauseResult struct {
	Run     int64  `json:"run"`
	Phase   string `json:"phase"`
	PID     int    `json:"pid"`
	Handoff string `json:"handoff"`
}

func pauseRun(cmd *cobra.Command, o *pauseOptions, phaseArg string) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	if !hasJournal(repo.Root) {
		return exit.Errorf(exit.Usage, "no run to pause: nothing has run in %s yet (start one with: hive execute-phase N)", repo.Root)
	}
	j, err := openJournal(repo.Root)
	if err != nil {
		return err
	}
	defer j.Close()
	run, pid, err := runningRun(j, repo.Root, phaseArg)
	if err != nil {
		return err
	}
	payload, _ := json.Marshal(phase.Event{Type: phase.EvPause, Time: time.Now().UTC()})
	if _, err := j.Append(run.ID, string(phase.EvPause), time.Now().UTC(), payload); err != nil {
		return exit.With(exit.Internal, fmt.Errorf("journal the pause: %w", err))
	}
	rel := filepath.ToSlash(handoff.Path(run.Phase))
	if o.json {
		return printJSON(o.stdout, pauseResult{Run: run.ID, Phase: run.Phase, PID: pid, Handoff: rel})
	}
	fmt.Fprintf(o.stdout, "Pause asked of run %d (%s, hive pid %d).\nEach agent commits its work in progress and stops; then hive writes %s and exits (code 6).\n",
		run.ID, run.Phase, pid, rel)
	return nil
}

// runningRun is the unfinished run that a live hive process drives: of
// phase (a number or a folder) when given, else the only one.
func runningRun(j journal.Journal, root, phase string) (journal.Run, int, error) {
	dir := ""
	if phase != "" {
		phases, err := loadPhases(root, phase)
		if err != nil {
			return journal.Run{}, 0, err
		}
		dir = phases[0].Dir
	}
	runs, err := j.Runs()
	if err != nil {
		return journal.Run{}, 0, exit.With(exit.Internal, err)
	}
	var live []journal.Run
	var pids []int
	for _, r := range runs {
		if !r.Finished.IsZero() || (dir != "" && r.Phase != dir) {
			continue
		}
		if pid, held := lock.PhaseHolder(root, r.Phase); held {
			live, pids = append(live, r), append(pids, pid)
		}
	}
	switch {
	case len(live) == 1:
		return live[0], pids[0], nil
	case len(live) == 0 && phase != "":
		return journal.Run{}, 0, exit.Errorf(exit.Usage, "no hive is running phase %s: nothing to pause (hive status shows what runs)", phase)
	case len(live) == 0:
		return journal.Run{}, 0, exit.Errorf(exit.Usage, "no hive is running a phase here: nothing to pause (hive status shows what runs)")
	}
	var names []string
	for _, r := range live {
		names = append(names, r.Phase)
	}
	return journal.Run{}, 0, exit.Errorf(exit.Usage, "several phases are running (%v): name one, e.g. hive pause %s", names, filepath.Base(live[0].Phase))
}
