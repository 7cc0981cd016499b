package runreport

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

// Timeline is where a run's wall time went: each step's span (a role's
// agent, an implementer's plan, an evaluation, hive's lint, build and
// test commands, a human's answer), and the time nothing of these ran,
// which is hive's own: starting agents, journaling, routing, merging,
// waiting on itself.
type Timeline struct {
	Wall time.Duration `json:"wall_ns"`
	// Agents is the time some agent worked (roles, plans, evaluators);
	// Checks the time some check command ran and no agent; Human the time
	// a question waited for its answer and nothing else ran.
	Agents time.Duration `json:"agents_ns"`
	Checks time.Duration `json:"checks_ns"`
	Human  time.Duration `json:"human_ns"`
	// GitHub is the time the run's pull request was pushed, opened or
	// waited on (hive run --follow: its CI, its reviewers) and nothing
	// else ran.
	GitHub time.Duration `json:"github_ns,omitempty"`
	// Hive is the rest: hive's own time. HiveShare is it over the wall
	// time, the human's answers left out.
	Hive      time.Duration `json:"hive_ns"`
	HiveShare float64       `json:"hive_share"`
	Spans     []Span        `json:"spans"`
	// After is hive's own time after the last span: delivery (the merge),
	// the postmortem, the end of the run.
	After time.Duration `json:"after_ns"`
}

// Span is one step of a run, in the order they started.
type Span struct {
	Job     string `json:"job"`
	Role    string `json:"role,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	// Kind: agent, phase (the implementers' phase, which holds their
	// plans: it is hive's own but for them), plan (an implementer's),
	// evaluate, lint, build, tests, human (a question waiting for its
	// answer), or pull-request (delivering, watching or pushing to the
	// followed pull request).
	Kind     string        `json:"kind"`
	Start    time.Duration `json:"start_ns"` // from the run's start
	Duration time.Duration `json:"duration_ns"`
	// HiveBefore is hive's own time just before the span: nothing else
	// ran between the last span's end and this one's start.
	HiveBefore time.Duration `json:"hive_before_ns,omitempty"`
}

// Kinds of span.
const (
	SpanAgent    = "agent"
	SpanPhase    = "phase"
	SpanPlan     = "plan"
	SpanEvaluate = "evaluate"
	SpanLint     = "lint"
	SpanBuild    = "build"
	SpanTests    = "tests"
	SpanHuman    = "human"
	SpanGitHub   = "pull-request"
)

// timeline gathers the spans of a run from its journal as Build
// replays it: each event with the commands the machine answered it with.
type timeline struct {
	open  map[string]Span // by kind and job, what started and has not ended
	spans []Span
	start time.Time
}

func newTimeline(start time.Time) *timeline {
	return &timeline{open: map[string]Span{}, start: start}
}

// checkKinds are the commands of hive's own checks and evaluations, and
// the events that end them.
var (
	checkKinds = map[roleplan.CommandType]string{roleplan.CmdLint: SpanLint, roleplan.CmdBuild: SpanBuild,
		roleplan.CmdRunTests: SpanTests, roleplan.CmdEvaluate: SpanEvaluate,
		roleplan.CmdDeliver: SpanGitHub, roleplan.CmdWatch: SpanGitHub, roleplan.CmdPush: SpanGitHub}
	checkEnds = map[roleplan.EventType]string{roleplan.EvLinted: SpanLint, roleplan.EvBuilt: SpanBuild,
		roleplan.EvTestsRan: SpanTests, roleplan.EvEvaluated: SpanEvaluate,
		roleplan.EvDelivered: SpanGitHub, roleplan.EvPullRequest: SpanGitHub, roleplan.EvPushed: SpanGitHub}
)

// step takes an event stepped at, the commands it gave, and the jobs'
// roles as the machine has them.
func (t *timeline) step(ev roleplan.Event, at time.Time, cmds []roleplan.Command, roles map[string]string) {
	begin := func(kind, job string, attempt int) {
		t.open[kind+"\x00"+job] = Span{Job: job, Role: roles[job], Attempt: attempt, Kind: kind, Start: at.Sub(t.start)}
	}
	end := func(kind, job string) {
		if sp, ok := t.open[kind+"\x00"+job]; ok {
			delete(t.open, kind+"\x00"+job)
			sp.Duration = at.Sub(t.start) - sp.Start
			t.spans = append(t.spans, sp)
		}
	}
	switch ev.Type {
	case roleplan.EvAgentStarted:
		begin(SpanAgent, ev.Job, ev.Attempt)
	case roleplan.EvAgentExited:
		end(SpanAgent, ev.Job)
	case roleplan.EvPhaseDone:
		end(SpanPhase, ev.Job)
		for _, p := range ev.Plans {
			if !p.Started.IsZero() && !p.Finished.IsZero() {
				t.spans = append(t.spans, Span{Job: p.ID, Role: workflows.RoleImplementer, Kind: SpanPlan,
					Start: p.Started.Sub(t.start), Duration: p.Finished.Sub(p.Started)})
			}
		}
	case roleplan.EvAnswer, roleplan.EvResumed:
		for _, sp := range t.open {
			if sp.Kind == SpanHuman {
				end(SpanHuman, sp.Job)
			}
		}
	}
	if kind, ok := checkEnds[ev.Type]; ok {
		job := ev.Job
		if job == "" { // the events of the roles' own checks may leave it out
			job = map[string]string{SpanLint: workflows.RoleArchitect, SpanTests: workflows.RoleTester}[kind]
		}
		end(kind, job)
	}
	for _, c := range cmds {
		if kind, ok := checkKinds[c.Type]; ok {
			begin(kind, c.Job, c.Attempt)
		}
		if c.Type == roleplan.CmdRunPhase {
			begin(SpanPhase, c.Job, c.Attempt)
		}
		if c.Type == roleplan.CmdCheckpoint {
			begin(SpanHuman, c.Job, 0)
		}
	}
}

// done sums the spans up to end, the run's end.
func (t *timeline) done(end time.Time) Timeline {
	spans := slices.Clone(t.spans)
	slices.SortStableFunc(spans, func(a, b Span) int { return int(a.Start - b.Start) })
	tl := Timeline{Wall: end.Sub(t.start)}
	var busy time.Duration // the end of what ran so far
	for i := range spans {
		sp := &spans[i]
		if sp.Kind == SpanPhase {
			continue // its plans are its busy time
		}
		if sp.Start > busy {
			sp.HiveBefore = sp.Start - busy
			tl.Hive += sp.HiveBefore
		}
		busy = max(busy, sp.Start+sp.Duration)
	}
	if tl.Wall > busy {
		tl.After = tl.Wall - busy
		tl.Hive += tl.After
	}
	tl.Agents = union(spans, SpanAgent, SpanPlan, SpanEvaluate)
	withChecks := union(spans, SpanAgent, SpanPlan, SpanEvaluate, SpanLint, SpanBuild, SpanTests)
	tl.Checks = withChecks - tl.Agents
	withHuman := union(spans, SpanAgent, SpanPlan, SpanEvaluate, SpanLint, SpanBuild, SpanTests, SpanHuman)
	tl.Human = withHuman - withChecks
	tl.GitHub = union(spans, SpanAgent, SpanPlan, SpanEvaluate, SpanLint, SpanBuild, SpanTests, SpanHuman, SpanGitHub) - withHuman
	if worked := tl.Wall - tl.Human - tl.GitHub; worked > 0 {
		tl.HiveShare = float64(tl.Hive) / float64(worked)
	}
	tl.Spans = spans
	return tl
}

// union is the time covered by the spans of the kinds given.
func union(spans []Span, kinds ...string) time.Duration {
	var total, until time.Duration
	first := true
	for _, sp := range spans { // sorted by start
		if !slices.Contains(kinds, sp.Kind) {
			continue
		}
		from, to := sp.Start, sp.Start+sp.Duration
		switch {
		case first || from >= until:
			total += to - from
			until, first = to, false
		case to > until:
			total += to - until
			until = to
		}
	}
	return total
}

// Text is the timeline as hive report prints it: the sums, then one line
// a step with its start, its time and hive's own time just before it.
func (t Timeline) Text() string {
	if len(t.Spans) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "timeline: %s, of which hive's own %s (%.1f%%): agents %s, checks %s", spanTime(t.Wall), spanTime(t.Hive),
		100*t.HiveShare, spanTime(t.Agents), spanTime(t.Checks))
	if t.Human > 0 {
		fmt.Fprintf(&b, ", waiting for you %s (not counted)", spanTime(t.Human))
	}
	if t.GitHub > 0 {
		fmt.Fprintf(&b, ", the pull request %s (pushes, CI, reviews: not counted)", spanTime(t.GitHub))
	}
	b.WriteByte('\n')
	tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "  START\tSTEP\tKIND\tTIME\tHIVE'S OWN BEFORE")
	for _, sp := range t.Spans {
		step := sp.Job
		if sp.Attempt > 0 {
			step += fmt.Sprintf(" #%d", sp.Attempt)
		}
		before := "-"
		if sp.HiveBefore > 0 {
			before = spanTime(sp.HiveBefore)
		}
		fmt.Fprintf(tw, "  +%s\t%s\t%s\t%s\t%s\n", spanTime(sp.Start), step, sp.Kind, spanTime(sp.Duration), before)
	}
	tw.Flush()
	fmt.Fprintf(&b, "  after the last step (delivery, the end of the run): %s\n", spanTime(t.After))
	return b.String()
}

// spanTime is a time of the timeline: milliseconds under a second, where
// hive's own waits show, else tenths.
func spanTime(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
