//go:build faults

package runner

// CrashAt is a test's hook at the run loop's crash points, built only with
// the faults tag (make test): "journal" after each journal append, "agent"
// once an agent's start is journaled (ids: PLAN/ATTEMPT and the role),
// "finished" once a finished run's work is delivered and before its end
// is recorded. integration.CrashAt has "merge" (halfway through a merge)
// and planning.CrashAt "write" (at a view's or a tracking file's write);
// gitx.AfterCommand is their twin after each git command. The kill tests
// set them to SIGKILL hive where no event would let them stop it.
var CrashAt func(point string, ids ...string)

func crashPoint(point string, ids ...string) {
	if CrashAt != nil {
		CrashAt(point, ids...)
	}
}
