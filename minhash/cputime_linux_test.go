package minhash_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used (user and system).
func cpuTime() time.Duration { return rusage(syscall.RUSAGE_SELF) }

// threadCPU returns the CPU time of the calling thread.
func threadCPU() time.Duration { return rusage(1) } // RUSAGE_THREAD

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
