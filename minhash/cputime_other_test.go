//go:build !linux

package minhash_test

import "time"

// cpuTime and threadCPU measure CPU time on Linux only; elsewhere the
// benchmarks' CPU metrics read 0.
func cpuTime() time.Duration   { return 0 }
func threadCPU() time.Duration { return 0 }
