//go:build linux

package agent

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sysProcAttr puts the agent in its own process group (so a kill reaches its
// children) and asks the kernel to kill it if hive dies, so a killed hive
// leaves no agent working behind its back.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// IsAgentOf reports whether pid leads a live process group whose leader hive
// started as planID's agent: its environment holds HIVE_AGENT_PLAN=planID.
// The check keeps a resumed run from killing an unrelated process that
// reused the PID.
func IsAgentOf(pid int, planID string) bool {
	if !GroupAlive(pid) {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return bytes.Contains(append([]byte{0}, env...), []byte("\x00HIVE_AGENT_PLAN="+planID+"\x00"))
}
