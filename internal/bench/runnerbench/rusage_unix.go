//go:build unix

package runnerbench

import (
	"syscall"
	"time"
)

// cpuTimes returns the CPU time (user + system) used so far by this process
// and by its waited-for children.
func cpuTimes() (self, children time.Duration) {
	return rusageCPU(syscall.RUSAGE_SELF), rusageCPU(syscall.RUSAGE_CHILDREN)
}

func rusageCPU(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is this process's peak resident set size in bytes (Linux reports
// ru_maxrss in KiB, the same figure as VmHWM in /proc/self/status).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024
}
