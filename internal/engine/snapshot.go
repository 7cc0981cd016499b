package engine

// Snapshot is a copy of the engine's state for display and status: the
// caller may keep it and read it from another goroutine.
type Snapshot struct {
	Phase         string
	Started       bool
	Finished      bool
	Outcome       string // once Finished
	Dynamic       bool
	MaxConcurrent int
	CurrentWave   int // rigid mode: the wave being run; 0 when none is open
	Resumes       int
	Plans         []PlanStatus // in spec order
	// Queue holds the open checkpoints, first in first out: Queue[0] is
	// the one to show.
	Queue []Checkpoint
	// Resolved counts the checkpoints answered so far (failures aside).
	Resolved int
	// Aborted: a human answered "abort"; the plans not yet final were skipped.
	Aborted bool
	// Verification is the phase verification's result, once known.
	Verification *Verification
}

// Verification is the result of a phase verification.
type Verification struct {
	Status  string `json:"status"` // VerifyPassed, VerifyHumanNeeded or VerifyGapsFound
	Details string `json:"details,omitempty"`
}

// Snapshot returns a copy of the current state.
func (e *Engine) Snapshot() Snapshot {
	s := Snapshot{
		Phase:         e.spec.Phase,
		Started:       e.started,
		Finished:      e.finished,
		Dynamic:       e.spec.Dynamic,
		MaxConcurrent: e.spec.MaxConcurrent,
		CurrentWave:   e.curWave,
		Resumes:       e.resumes,
		Plans:         make([]PlanStatus, len(e.plans)),
	}
	for i, p := range e.plans {
		c := *p
		c.Commits = append([]string(nil), p.Commits...)
		c.dependents = nil
		if p.Open != nil {
			cp := *p.Open
			c.Open = &cp
		}
		c.lastAnswered, c.continuation, c.attemptCost = nil, nil, nil
		s.Plans[i] = c
	}
	for _, cp := range e.queue {
		s.Queue = append(s.Queue, *cp)
	}
	s.Resolved = e.resolved
	s.Aborted = e.aborted
	if e.verification != nil {
		v := *e.verification
		s.Verification = &v
	}
	if e.finished {
		s.Outcome = e.outcome()
	}
	return s
}

// Count returns how many plans are in state st.
func (s Snapshot) Count(st PlanState) int {
	n := 0
	for _, p := range s.Plans {
		if p.State == st {
			n++
		}
	}
	return n
}

func outcome(plans []*PlanStatus, v *Verification) string {
	for _, p := range plans {
		if p.State != Complete {
			return OutcomeFailed
		}
	}
	if v != nil && v.Status == VerifyGapsFound {
		return OutcomeGaps
	}
	return OutcomeComplete
}
