//go:build faults

package integration

// CrashAt is a test's hook at the integration branch's crash point, built
// only with the faults tag (make test): "merge" halfway through a merge,
// its commit not yet made (ids: the plan). runner.CrashAt has the run's
// other crash points. The kill tests set it to SIGKILL hive where no
// event would let them stop it.
var CrashAt func(point string, ids ...string)

func crashPoint(point string, ids ...string) {
	if CrashAt != nil {
		CrashAt(point, ids...)
	}
}
