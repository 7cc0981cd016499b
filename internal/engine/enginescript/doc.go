// Package enginescript reads the engine's event scripts
// (internal/engine/testdata/scripts) for tests: each directive becomes the
// event a runner would give the engine, and what the engine answers is
// printed as the scripts expect. The engine's own test and the Temporal
// backend's run the same scripts through it, so both must give the same
// commands and the same states.
//
// The directives:
//
//	run [dynamic] [shared] [max=N]      a run; the input lists one plan per line:
//	  ID [wave=N] [deps=(A,B)] [files=(a,b)] [tasks=N] [est=DURATION] [done] [stop=(TASK:TYPE:GATE:opt|opt)]
//	started ID [pid=N]                  agent-started
//	progress ID task=N [total=N]        PROGRESS
//	complete ID                         PLAN COMPLETE
//	failed ID [reason=(...)]            PLAN FAILED
//	exited ID [code=N]                  the agent process ended
//	check ID ok|fail [reason=(...)]     a spot-check result
//	resume                              a new hive process took over
//	checkpoint ID type=T [done=N] [total=N] [options=(a,b)] [standalone] [tool=T request=R]
//	deviation ID                        DEVIATION: rule-4
//	answer ID text=(...) [id=N] [by=W]  a human's answer
//	silent ID                           no output for timeouts.stall
//	commits ID recent|none              the commit check of a silent agent
//	usage ID in=N out=N cost=F          a turn's tokens and the session's cost so far
//	spend ID in=N out=N turn=F          one API request's spend in the middle of a turn
//	merged ID ok|conflict|fail [files=(a,b)]  a merge's result
//	gate ID ok|fail                     the post-merge gate's result
//	verified status=S [reason=(...)]    the phase verification's result
//	state                               the plans' states and the checkpoint queue
//
// run also takes team (live sessions), yes (--yes), retries=N and, for
// worktree mode, worktrees, resolver, gate and verify.
//
// Events name the plan's current attempt unless attempt=N is given. A run
// and a resume are attended (a human answers in the process) unless they
// say unattended, with wait=DURATION for `hive answer`; they name this
// engine's version unless they say version=N (a journal of an older hive).
package enginescript
