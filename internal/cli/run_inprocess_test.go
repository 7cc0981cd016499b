package cli

import "io"

// run is hive in this process with its own input and output, as the tests
// call it; its hints say "hive".
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return execute(&globalOptions{stdout: stdout, stderr: stderr, stdin: stdin}, args)
}
