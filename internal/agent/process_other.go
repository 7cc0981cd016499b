//go:build unix && !linux

package agent

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// IsAgentOf reports whether pid leads a live process group. Without /proc
// the plan cannot be confirmed.
func IsAgentOf(pid int, planID string) bool { return GroupAlive(pid) }
