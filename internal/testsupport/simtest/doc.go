// Package simtest runs the sim agent (package sim) as a real child process
// for the tests of the sim's packages: the test binary doubles as the sim
// (RunChild), so the tests exercise real process behaviour: exit codes,
// stdin EOF, kills. It makes the git repositories, GSD plans and prompts
// they run it on, and reads what it prints.
package simtest
