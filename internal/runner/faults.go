//go:build faults

package runner

// CrashAt is a test's hook at hive's crash points, built only with the
// faults tag (make test):
// "merge" halfway through a merge (ids: the plan), "write" at a view's or
// a tracking file's write (ids: the file's name), "agent" once an agent's
// start is journaled (ids: PLAN/ATTEMPT and the role), "journal" after each
// journal append. gitx.AfterCommand is its twin after each git command. The kill tests set
// it to SIGKILL hive where no event would let them stop it.
var CrashAt func(point string, ids ...string)

func crashPoint(point string, ids ...string) {
	if CrashAt != nil {
		CrashAt(point, ids...)
	}
}
