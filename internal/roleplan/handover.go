package roleplan

// How an ended run's work reaches the user is the machine's decision
// (Snapshot.Handover), made from the run's spec, how it ended, and what
// the process that resumed it last was told (Event.Publish,
// Event.NoMerge): delivery carries it out, and says what it met (a tree
// that a merge would touch, a push refused).

// The ways a run's work is handed over.
const (
	HandoverMerge      = "merge"      // merged into the branch the run started from
	HandoverLeave      = "leave"      // left on the run's branch (--no-merge)
	HandoverPR         = "pr"         // pushed, a pull request opened (--pr)
	HandoverPush       = "push"       // pushed (--push)
	HandoverFollowed   = "followed"   // the run delivered it itself and followed its pull request (--follow)
	HandoverUnfinished = "unfinished" // left on the run's branch: the run did not complete
)

// Handover is how the ended run's work is handed over (How), and how the
// run was to publish it ("pr", "push" or ""), which an unfinished run did
// not do.
type Handover struct {
	How     string `json:"how"`
	Publish string `json:"publish,omitempty"`
}

// HandoverOf decides how the ended run whose state is s hands its work
// over. publish ("pr", "push") and noMerge are what the process that
// resumed it last was told (--pr, --push, --no-merge given again win
// over the spec's).
func HandoverOf(s Snapshot, publish string, noMerge bool) Handover {
	if publish == "" {
		publish = s.Spec.Publish // as the run was started
	}
	h := Handover{How: HandoverMerge, Publish: publish}
	switch {
	case s.Follow != nil && (s.Follow.PR != nil || len(s.Follow.Notes) > 0):
		h.How = HandoverFollowed
	case s.Outcome != OutcomeComplete:
		h.How = HandoverUnfinished
	case publish == HandoverPR, publish == HandoverPush:
		h.How = publish
	case noMerge || s.Spec.NoMerge:
		h.How = HandoverLeave
	}
	return h
}
