// Package pipelinescript reads the pipeline machine's event scripts
// (internal/pipeline/testdata/scripts) for tests: each directive becomes
// the event hive's shell would give the machine, and what the machine
// answers is printed as the scripts expect. The machine's own test and the
// Temporal backend's run the same scripts through it, so both must give
// the same commands and the same states.
//
// The directives:
//
//	start [workflow=NAME] [yes] [fix=N] [usd=F] [tokens=N] [roles=(role:F,...)] [est=(role:F/F/F,...)]
//	      [facts=(fact:true|false,...)] [nointerview]
//	                                             a run of "the objective" (classic: architect,
//	                                             implementer, comb, tester, reviewer, documenter; pair:
//	                                             implementer, tester; else a built-in workflow), with a
//	                                             budget: the run's
//	                                             ceilings, the roles' own, a role's estimates per rung
//	started JOB [pid=N]                          its agent started (current attempt)
//	report JOB status=S [to=ROLE] [issue=(...)] [options=(a,b)] [default=X] [proceed] [concerns=(a,b)]
//	       [findings=(severity:file:line:title,...)] [comments=(text,...)] [questions=(q,...)]
//	       [errors=(e,...) [attempts=N]]          the report breaks its contract so
//	exited JOB [code=N]                          its agent ended
//	usage JOB in=N out=N cost=F [attempt=N]      a turn's tokens, the session's cost so far
//	tool JOB name=T input=I                      its agent called tool T (I stands for the fingerprint)
//	linted [errors=(a,b)]                        the architect's plans linted
//	phase ok|fail [reason=(...)] [to=ROLE issue=(...)] [overbudget] [cost=F]
//	                                             the implementers' phase ended (to: a challenge;
//	                                             overbudget: at its allotment, having spent cost)
//	tests pass|fail|unrunnable|none [failed=N] [job=J] the test command's result (none: no test ran)
//	built JOB pass|fail|unrunnable|none          the build step's result (none: nothing to build)
//	answer text=(...)                            the human answers the open checkpoint
//	resume [after=DUR]                           a new hive process took over
//	limited JOB kind=K [reset=DUR] [text=(...)]  its turn ended on the provider's limit (reset: from now)
//	wake [after=DUR]                             a timer fired (after: the clock moves on first)
//	answer limit text=resume-now                 `hive answer limit resume-now`
//	delivered ok|fail [reason=(...)]             the run's pull request was opened (#9, head h1)
//	pr open|merged|closed head=H [ci=(WORKFLOW@HEAD,...)] [threads=(ID:FILE:LINE:COMMENTS[:resolved|:outdated],...)]
//	                                             a watch found the pull request so
//	pushed ok|fail head=H [reason=(...)]         the fix was pushed as H
//	state                                        the jobs, the agenda and the checkpoint
package pipelinescript
