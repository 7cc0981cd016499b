//go:build faults

package planning

// CrashAt is a test's hook at the planning files' crash point, built only
// with the faults tag (make test): "write" at a view's or a tracking
// file's write, its temporary file written and not yet renamed into place
// (ids: the file's name). runner.CrashAt has the run's other crash points.
// The kill tests set it to SIGKILL hive where no event would let them
// stop it.
var CrashAt func(point string, ids ...string)

func crashPoint(point string, ids ...string) {
	if CrashAt != nil {
		CrashAt(point, ids...)
	}
}
