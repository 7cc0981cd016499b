package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/sim/stream"
)

// Environment variables that configure the sim. The runner passes its own
// environment through, so tests set these on the hive process.
const (
	EnvDelay   = "HIVE_SIM_DELAY"     // Go duration slept before each task (a role of hive run: once); default 0
	EnvFaults  = "HIVE_SIM_FAULTS"    // e.g. "01-02=crash@2,01-03=hang@1#1,01-04=garbage"
	EnvFile    = "HIVE_SIM_FILE"      // JSON: {"delay":"20ms","faults":{"01-02":[{"kind":"crash","task":2,"attempt":1}]},"context":{"base":12000,"request":3000}}
	EnvAttempt = "HIVE_AGENT_ATTEMPT" // attempt number of this agent for its plan; default 1
	// EnvLimitReset is how far ahead of its line the usage limit of the
	// limit fault resets (a Go duration; default 3s).
	EnvLimitReset = "HIVE_SIM_LIMIT_RESET"
	// EnvSayEnv names a variable whose value a role of hive run says
	// ("env NAME=value", or "env NAME unset") before its work: how a test
	// sees what reached an agent's environment (secrets.env) and what its
	// log and the run keep of it (masked).
	EnvSayEnv = "HIVE_SIM_SAY_ENV"
)

// Fault kinds.
const (
	FaultCrash         = "crash"          // at task k: write the files, exit 3 before committing
	FaultHang          = "hang"           // at task k: stop printing, ignore stdin, block until killed
	FaultGarbage       = "garbage"        // junk lines between real ones; the plan still completes
	FaultSlow          = "slow"           // 10× the delay (of every task, or of task k)
	FaultNoSummary     = "nosummary"      // do all tasks, then exit 0 without SUMMARY or PLAN COMPLETE
	FaultSelfCheckFail = "selfcheck-fail" // SUMMARY says "Self-Check: FAILED"; PLAN COMPLETE still printed
	FaultFail          = "fail"           // at task k: print PLAN FAILED and end the turn
	FaultCombFail      = "comb-fail"      // as the resolver (role comb): give up with PLAN FAILED
	FaultLimit         = "limit"          // at task k, before its work: the account's usage limit ends the turn, as Claude Code says it, and the sim exits 1
	// FaultIgnoreRollover makes the plan's agent ignore hive's
	// CONTEXT_ROLLOVER request: it keeps working and, once idle, answers it
	// with nothing useful.
	FaultIgnoreRollover = "ignore-rollover"
)

// Faults of the roles of hive run, keyed by the role's job
// (HIVE_SIM_FAULTS=implementer=challenge#1,tester=fail#1).
const (
	FaultChallenge  = "challenge"   // report a challenge of the role before it
	FaultNeedsInput = "needs-input" // ask a question, with options and a default
	FaultBlocked    = "blocked"     // report blocked
	// FaultBlocker makes a reviewer, a security auditor or a browser
	// validator find one blocker at line 1 of a real file of the
	// repository; a reviewer or auditor then requests changes.
	FaultBlocker = "blocker"
	// FaultBadReport makes the role do its work, then write a report that
	// breaks its contract (see badReport in package roleplay).
	FaultBadReport = "badreport"
	// FaultEmpty: the planner answers with no plan at all.
	FaultEmpty = "empty"
	// FaultWarn and FaultBlock: an evaluator (its job
	// evaluate-JOB-ASPECT, e.g. evaluate-tester-risk) warns or blocks.
	FaultWarn  = "warn"
	FaultBlock = "block"
	// FaultFindsBug makes the tester find a bug in the code: it commits
	// the failing test unless the branch's history already holds it. The
	// bug is the code's, not the attempt's: a tester cut off before it
	// committed finds it again in its next attempt, one that runs after
	// the fix does not (as fail#1 would not).
	FaultFindsBug = "finds-bug"
	// FaultUncommitted makes the role do its work and end its turn as
	// usual, leaving one more file (roleplay's uncommittedFile) written
	// and not committed, as a real agent that forgets to commit does.
	FaultUncommitted = "uncommitted"
	// crash (exit 3 without a report) and fail also apply: a failing tester
	// commits a test that fails, which the implementer's fix removes.
)

// Fault is one injected misbehaviour of the agent running a plan.
type Fault struct {
	Kind    string `json:"kind"`
	Task    int    `json:"task,omitempty"`    // 1-based task number; 0 = task 1 for kinds that stop at a task, every task for slow
	Attempt int    `json:"attempt,omitempty"` // 0 = every attempt
}

// takesTask reports which kinds may be limited to one task.
var takesTask = map[string]bool{
	FaultCrash: true, FaultHang: true, FaultFail: true, FaultSlow: true, FaultLimit: true,
	FaultGarbage: false, FaultNoSummary: false, FaultSelfCheckFail: false, FaultCombFail: false, FaultIgnoreRollover: false,
	FaultChallenge: false, FaultNeedsInput: false, FaultBlocked: false, FaultBlocker: false, FaultBadReport: false, FaultEmpty: false,
	FaultWarn: false, FaultBlock: false, FaultFindsBug: false, FaultUncommitted: false,
}

// Settings is the sim's configuration, read from the environment.
type Settings struct {
	Delay  time.Duration
	Faults map[string][]Fault // by plan id
	// LimitReset is how far ahead the limit fault's usage limit resets.
	LimitReset time.Duration
	Attempt    int
	// Role is the agent's role (HIVE_AGENT_ROLE): "" or "executor" runs a
	// plan, "comb" resolves a merge conflict, "verifier" verifies a phase.
	Role string
	// Verify is the status the verifier reports (HIVE_SIM_VERIFY); default passed.
	Verify string
	// Context is the curve of the context the sim reports (stream.EnvContext or
	// the file's "context"); the zero curve keeps the plain estimate.
	Context stream.ContextCurve
}

// SlowBase is the per-task delay the slow fault multiplies when no delay is
// set, so that "slow" is slow even in tests that run at full speed.
const SlowBase = 50 * time.Millisecond

// LoadSettings reads EnvFile, EnvDelay, EnvFaults, stream.EnvContext and
// EnvAttempt through getenv. The environment's delay and context curve win
// over the file's; faults from both are combined.
func LoadSettings(getenv func(string) string) (Settings, error) {
	s := Settings{Faults: map[string][]Fault{}, Attempt: 1, Role: getenv("HIVE_AGENT_ROLE"), Verify: getenv("HIVE_SIM_VERIFY")}
	if name := getenv(EnvFile); name != "" {
		data, err := os.ReadFile(name)
		if err != nil {
			return s, fmt.Errorf("%s: %w", EnvFile, err)
		}
		var f struct {
			Delay   string               `json:"delay"`
			Faults  map[string][]Fault   `json:"faults"`
			Context *stream.ContextCurve `json:"context"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			return s, fmt.Errorf("%s %s: %w", EnvFile, name, err)
		}
		if f.Delay != "" {
			if s.Delay, err = ParseDelay(f.Delay); err != nil {
				return s, fmt.Errorf("%s %s: %w", EnvFile, name, err)
			}
		}
		if f.Context != nil {
			if err := f.Context.Check(); err != nil {
				return s, fmt.Errorf("%s %s: %w", EnvFile, name, err)
			}
			s.Context = *f.Context
		}
		for id, fs := range f.Faults {
			for _, ft := range fs {
				if err := ft.check(); err != nil {
					return s, fmt.Errorf("%s %s: plan %s: %w", EnvFile, name, id, err)
				}
				s.Faults[id] = append(s.Faults[id], ft)
			}
		}
	}
	s.LimitReset = 3 * time.Second
	if v := getenv(EnvLimitReset); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return s, fmt.Errorf("%s=%q: %w", EnvLimitReset, v, err)
		}
		s.LimitReset = d
	}
	if v := getenv(EnvDelay); v != "" {
		d, err := ParseDelay(v)
		if err != nil {
			return s, fmt.Errorf("%s: %w", EnvDelay, err)
		}
		s.Delay = d
	}
	if v := getenv(stream.EnvContext); v != "" {
		c, err := stream.ParseContextCurve(v)
		if err != nil {
			return s, fmt.Errorf("%s: %w", stream.EnvContext, err)
		}
		s.Context = c
	}
	fs, err := ParseFaults(getenv(EnvFaults))
	if err != nil {
		return s, fmt.Errorf("%s: %w", EnvFaults, err)
	}
	for id, list := range fs {
		s.Faults[id] = append(s.Faults[id], list...)
	}
	if v := getenv(EnvAttempt); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return s, fmt.Errorf("%s: %q is not a positive attempt number", EnvAttempt, v)
		}
		s.Attempt = n
	}
	return s, nil
}

// ParseDelay parses a delay: a Go duration, not negative.
func ParseDelay(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("delay %q: %w", v, err)
	}
	if d < 0 {
		return 0, fmt.Errorf("delay %q is negative", v)
	}
	return d, nil
}

// ParseFaults parses the EnvFaults syntax: comma-separated PLAN=KIND[@TASK][#ATTEMPT]
// entries, e.g. "01-02=crash@2,01-03=hang@1#1,01-04=garbage". A plan may be
// named more than once. An empty spec is no faults.
func ParseFaults(spec string) (map[string][]Fault, error) {
	out := map[string][]Fault{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		id, rest, ok := strings.Cut(item, "=")
		id = strings.TrimSpace(id)
		if !ok || id == "" {
			return nil, fmt.Errorf("fault %q: want PLAN=KIND[@TASK][#ATTEMPT]", item)
		}
		var f Fault
		var err error
		if rest, f.Attempt, err = cutNumber(rest, "#"); err != nil {
			return nil, fmt.Errorf("fault %q: attempt: %w", item, err)
		}
		if rest, f.Task, err = cutNumber(rest, "@"); err != nil {
			return nil, fmt.Errorf("fault %q: task: %w", item, err)
		}
		f.Kind = strings.TrimSpace(rest)
		if err := f.check(); err != nil {
			return nil, fmt.Errorf("fault %q: %w", item, err)
		}
		out[id] = append(out[id], f)
	}
	return out, nil
}

// cutNumber splits "kind@2" at sep into "kind" and 2; without sep it returns
// s and 0.
func cutNumber(s, sep string) (string, int, error) {
	head, num, ok := strings.Cut(s, sep)
	if !ok {
		return s, 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%q is not a positive number", num)
	}
	return head, n, nil
}

func (f Fault) check() error {
	allowed, known := takesTask[f.Kind]
	switch {
	case !known:
		return fmt.Errorf("unknown fault kind %q (want crash, hang, garbage, slow, nosummary, selfcheck-fail, fail, comb-fail, ignore-rollover, limit, or for a role of hive run challenge, needs-input, blocked, blocker, badreport, uncommitted, or for the tester finds-bug, or for the planner empty, or for an evaluator warn, block)", f.Kind)
	case f.Task < 0 || f.Attempt < 0:
		return fmt.Errorf("fault %s: negative task or attempt", f.Kind)
	case f.Task > 0 && !allowed:
		return fmt.Errorf("fault %s applies to the whole plan and takes no @task", f.Kind)
	}
	return nil
}

// Active are the faults active for one plan in one attempt.
type Active []Fault

// ForPlan is the faults of plan id (or of a role of hive run, by its job)
// active in this attempt.
func (s Settings) ForPlan(id string) Active {
	var out Active
	for _, f := range s.Faults[id] {
		if f.Attempt == 0 || f.Attempt == s.Attempt {
			out = append(out, f)
		}
	}
	return out
}

// Has reports whether a fault of kind is active, for the whole plan.
func (fs Active) Has(kind string) bool {
	for _, f := range fs {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// At reports whether a fault of kind fires at task n. A stopping fault without
// a task fires at task 1; slow without a task slows every task.
func (fs Active) At(kind string, n int) bool {
	for _, f := range fs {
		if f.Kind != kind {
			continue
		}
		switch {
		case f.Task == n, f.Task == 0 && kind == FaultSlow, f.Task == 0 && n == 1:
			return true
		}
	}
	return false
}
