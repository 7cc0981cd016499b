//go:build !unix

package runnerbench

import "time"

func cpuTimes() (self, children time.Duration) { return 0, 0 }

func peakRSS() int64 { return 0 }
