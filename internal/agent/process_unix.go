//go:build unix

package agent

import "syscall"

// KillGroup kills the process group led by pid: the agent and its children.
func KillGroup(pid int) {
	if pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// GroupAlive reports whether a process group led by pid still exists, so a
// resumed run can end the agents a killed hive left behind.
func GroupAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	return syscall.Kill(-pid, 0) == nil
}
