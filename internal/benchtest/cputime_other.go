//go:build !linux

package benchtest

import "time"

// CPUTime and ThreadCPU measure CPU time on Linux only; elsewhere the
// benchmarks' CPU metrics read 0.
func CPUTime() time.Duration   { return 0 }
func ThreadCPU() time.Duration { return 0 }
