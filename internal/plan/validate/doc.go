// Package validate checks a phase as a dependency graph before it runs:
// every depends_on names a plan of the phase (the fix names the closest id
// when it does not), a plan of an earlier phase that exists, found by
// InProject in the project or an archived milestone, or a whole earlier
// phase; no dependency cycle; declared waves agree with depends_on; no two
// plans of one wave modify the same file; every path a plan names stays in
// the repository; every task type is one hive can run. It sets the waves
// hive schedules with. Every finding is a Diagnostic with its file, line and
// fix: what would stop the run is an error, and for a plan its SUMMARY marks
// done, which never runs again, a warning instead. It reads nothing itself
// but the earlier phases InProject looks up (load).
package validate
