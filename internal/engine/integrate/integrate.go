package integrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// MaxResolves is how many resolver agents a plan's merge conflicts get in
// one run before a human is asked, however often the integration branch
// moves under them.
const MaxResolves = 5

// MaxFixLoops is how many fix agents a failing post-merge gate gets before
// a human is asked (seed 003 §3.5).
const MaxFixLoops = 2

// ResolverRules is the engine version from which a resolver that ended
// without PLAN COMPLETE is followed by another resolver (see
// phase.Version).
const ResolverRules = 8

// Branch is the integration branch as the run merges into it.
type Branch struct {
	Merges int // plans merged into it so far
}

// Plan is what the integration keeps of one plan.
type Plan struct {
	// resolverAt is 1 + the integration branch's merge count when the
	// plan's last resolver started (0: none since the resume): a conflict
	// after it is the resolver's failure unless other plans merged since.
	resolverAt    int
	conflictFiles []string     // the files of the last merge conflict
	conflictWhere string       // where to resolve them, as the merge said
	gateLoops     int          // fix agents started after post-merge gate failures
	fix           string       // the failing gate output a continuation must fix
	resolvers     map[int]bool // the attempts that were resolver agents
}

// Next is what follows a merge's result.
type Next int

// What follows a merge.
const (
	Gate     Next = iota // run the post-merge gate
	Complete             // the plan is complete
	Resolve              // a resolver agent gets the conflict (Resolving)
	Conflict             // a human resolves the conflict by hand (ConflictCheckpoint)
	Failed               // the merge failed: the plan goes the way of a failure
)

// Merged reads a merge's result (EvMerged) for st's plan. A conflict gets
// a resolver when the run has them (resolver), and another one if other
// plans merged since the last one started (it resolved against an
// integration branch that has moved), up to MaxResolves (resolves, the
// plan's resolvers so far). With gate, a merged plan is gated.
func (b *Branch) Merged(st *Plan, ev phase.Event, gate, resolver bool, resolves int) Next {
	if ev.OK {
		b.Merges++
	}
	switch {
	case ev.OK && gate:
		return Gate
	case ev.OK:
		return Complete
	case len(ev.Files) > 0:
		st.conflictFiles = append([]string(nil), ev.Files...)
		st.conflictWhere = ev.Reason
		fresh := st.resolverAt == 0 || st.resolverAt <= b.Merges
		if resolver && fresh && resolves < MaxResolves {
			return Resolve
		}
		return Conflict
	}
	return Failed
}

// Resolving notes that attempt is a resolver agent started on st's
// conflict, and returns what it is told.
func (b *Branch) Resolving(st *Plan, attempt int) *phase.Continuation {
	st.resolverAt = b.Merges + 1
	if st.resolvers == nil {
		st.resolvers = map[int]bool{}
	}
	st.resolvers[attempt] = true
	return &phase.Continuation{Reason: "merge conflict", Conflict: append([]string(nil), st.conflictFiles...)}
}

// Working says what the resolver of st's conflict works on.
func (st *Plan) Working() string {
	return "merge conflict: a resolver agent works on " + strings.Join(st.conflictFiles, ", ")
}

// Resolver reports whether attempt was a resolver agent of st's plan.
func (st *Plan) Resolver(attempt int) bool { return st.resolvers[attempt] }

// Again forgets st's last resolver, so that a conflict left gets another:
// it stopped for the budget, or was cut off, rather than beaten.
func (st *Plan) Again() { st.resolverAt = 0 }

// ResolverEnded: st's resolver ended without PLAN COMPLETE (it would have
// merged then): under rules from ResolverRules it was cut off rather than
// beaten, so a conflict left gets another resolver, as after a resume.
// The plan merges again: the disk decides.
func (st *Plan) ResolverEnded(rules int) {
	if rules >= ResolverRules {
		st.Again()
	}
}

// Blocked reports whether a resolver's report gives up on the conflict,
// and says why.
func Blocked(r *work.Report) (string, bool) {
	if r.Status != work.ReportBlocked && r.Status != work.ReportNeedsInput {
		return "", false
	}
	return "the resolver reported " + r.Status + ": " + firstOf(r.Blocker, r.Summary, "no reason given"), true
}

// Held says why a resolver waits to start: the run pauses, a provider's
// limit holds every new agent, or the budget does.
func Held(pausing, limited bool) string {
	switch {
	case pausing:
		return "merge conflict: the resolver starts when the run is resumed"
	case limited:
		return "merge conflict: the resolver starts when the provider's limit has passed"
	}
	return HeldForBudget
}

// HeldForBudget says why a resolver waits for the budget to be raised.
const HeldForBudget = "merge conflict: the resolver is held until the budget is raised"

// ConflictCheckpoint asks a human to resolve the conflict of plan id by
// hand; why adds what the resolvers found, if anything.
func (st *Plan) ConflictCheckpoint(id, why string) *phase.Checkpoint {
	details := "merging " + id + " conflicts in: " + strings.Join(st.conflictFiles, ", ")
	var notes []string
	for _, n := range []string{st.conflictWhere, why} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		details += " (" + strings.Join(notes, "; ") + ")"
	}
	return &phase.Checkpoint{
		Kind:     phase.KindMerge,
		Type:     "merge-conflict",
		Details:  details,
		Awaiting: "resolve the files by hand in the plan's worktree and commit, then answer done; or abort (the plan fails, its branch is kept)",
		Options:  []string{"done", "abort"},
	}
}

// GateFailed reads the post-merge gate's failing output for st's plan: a
// fix agent gets it, with the continuation returned, up to MaxFixLoops
// times; then a human decides, with the checkpoint returned.
func (st *Plan) GateFailed(text string) (*phase.Continuation, *phase.Checkpoint) {
	st.fix = text
	if st.gateLoops < MaxFixLoops {
		st.gateLoops++
		return &phase.Continuation{
			Reason: fmt.Sprintf("the post-merge gate failed (fix %d of %d)", st.gateLoops, MaxFixLoops),
			Fix:    text,
		}, nil
	}
	return nil, &phase.Checkpoint{
		Kind:     phase.KindFailure,
		Type:     "post-merge-gate",
		Details:  fmt.Sprintf("the post-merge gate still fails after %d fix agents: %s", MaxFixLoops, clipLines(text, 20)),
		Awaiting: "retry (another fix agent), skip (the plan fails; its merged work stays) or abort (the whole run)",
		Options:  []string{"retry", "skip", "abort"},
	}
}

// Fix is the failing gate output that st's plan's next agent must fix, if
// any.
func (st *Plan) Fix() string { return st.fix }

// Settled forgets the gate's failure: the plan is final.
func (st *Plan) Settled() { st.fix = "" }

// Record puts st into r, a plan's exported record.
func (st *Plan) Record(r *phase.PlanRecord) {
	r.ResolverAt, r.ConflictFiles, r.ConflictWhere = st.resolverAt, st.conflictFiles, st.conflictWhere
	r.GateLoops, r.Fix = st.gateLoops, st.fix
	for a := range st.resolvers {
		r.Resolvers = append(r.Resolvers, a)
	}
	sort.Ints(r.Resolvers)
}

// Restore is the plan that r records.
func Restore(r phase.PlanRecord) Plan {
	st := Plan{resolverAt: r.ResolverAt, conflictFiles: r.ConflictFiles, conflictWhere: r.ConflictWhere, gateLoops: r.GateLoops, fix: r.Fix}
	for _, a := range r.Resolvers {
		if st.resolvers == nil {
			st.resolvers = map[int]bool{}
		}
		st.resolvers[a] = true
	}
	return st
}

// clipLines keeps the last n lines of s: a failing command's end says most.
func clipLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func firstOf(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}
