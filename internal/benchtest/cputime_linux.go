package benchtest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time the process has used (user and system).
func CPUTime() time.Duration { return rusage(syscall.RUSAGE_SELF) }

// ThreadCPU returns the CPU time of the calling thread (lock it to its
// goroutine: runtime.LockOSThread).
func ThreadCPU() time.Duration { return rusage(1) } // RUSAGE_THREAD

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
