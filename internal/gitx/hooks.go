//go:build faults

package gitx

// AfterCommand is a test's hook, built only with the faults tag (make
// test): it is called after each git command hive runs, so that a crash
// test can kill hive there, and a test can count the commands.
var AfterCommand func()

func afterCommand() {
	if AfterCommand != nil {
		AfterCommand()
	}
}
