package planning

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/tracking"
)

// TrackingFiles are the files in which a run of a phase records its
// progress (GSD's), relative to the repository.
var TrackingFiles = []string{".planning/STATE.md", ".planning/ROADMAP.md"}

// ExistingTracking keeps the TrackingFiles (relative to root) that exist
// under root: those a commit of the run's progress takes.
func ExistingTracking(root string) []string {
	var out []string
	for _, p := range TrackingFiles {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// WriteTracking rewrites the tracking files under root as the snapshot
// shows the phase, the plans in done counted done as well as those
// complete. The date written is the latest change the snapshot shows, else now (a
// run whose plans were all done before it started): never a zero time.
func WriteTracking(root string, ph *plan.Phase, snap phase.Snapshot, done map[string]bool, activity string, now time.Time) error {
	at := snapTime(snap)
	if at.IsZero() {
		at = now
	}
	tp := tracking.Phase{Number: ph.Number, Name: phaseName(ph), Activity: activity, Now: at, Status: "Executing"}
	for _, p := range snap.Plans {
		tp.Plans = append(tp.Plans, tracking.Plan{ID: p.Spec.ID, Done: p.State == phase.Complete || done[p.Spec.ID]})
	}
	if snap.Finished {
		tp.Status = "Finished: " + snap.Outcome
		tp.Complete = snap.Outcome == phase.OutcomeComplete
	}
	tp.Project = projectProgress(root, ph, tp.Plans)
	for i, name := range TrackingFiles {
		path := filepath.Join(root, filepath.FromSlash(name))
		old, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if i == 1 && len(old) == 0 {
			continue // no roadmap to keep
		}
		var text string
		if i == 0 {
			text = tracking.State(string(old), tp)
		} else {
			text = tracking.Roadmap(string(old), tp)
		}
		if text == string(old) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := writeAtomic(root, path, []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

// projectProgress counts the plans and phases of the project under root,
// this phase's plans as they stand in the run (plans); zero when the
// project cannot be read (the phase's own counts are written then).
func projectProgress(root string, ph *plan.Phase, plans []tracking.Plan) tracking.Progress {
	proj, err := load.Project(root)
	if err != nil {
		return tracking.Progress{}
	}
	var pr tracking.Progress
	count := func(total, done int) {
		pr.Plans += total
		pr.DonePlans += done
		pr.Phases++
		if total > 0 && done == total {
			pr.DonePhases++
		}
	}
	for _, other := range proj.Phases {
		if other.Dir == ph.Dir {
			continue
		}
		total, done := 0, 0
		for _, p := range other.Plans {
			total++
			if s := other.Summaries[p.ID]; s != nil && s.SelfCheck != "FAILED" {
				done++
			}
		}
		for id, s := range other.Summaries {
			if other.Plan(id) == nil && s.SelfCheck != "FAILED" {
				total, done = total+1, done+1 // its PLAN.md is gone, its SUMMARY stays
			}
		}
		count(total, done)
	}
	done := 0
	for _, p := range plans {
		if p.Done {
			done++
		}
	}
	count(len(plans), done)
	return pr
}

// phaseName turns the folder's slug into a title: "core-library" → "Core Library".
func phaseName(ph *plan.Phase) string {
	words := strings.Fields(strings.NewReplacer("-", " ", "_", " ").Replace(ph.Slug))
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// snapTime is the time of the latest change in the snapshot.
func snapTime(snap phase.Snapshot) (t time.Time) {
	for _, p := range snap.Plans {
		for _, c := range []time.Time{p.Started, p.Finished} {
			if c.After(t) {
				t = c
			}
		}
	}
	return t
}
