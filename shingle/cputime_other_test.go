//go:build !linux

package shingle_test

import "time"

// threadCPU measures CPU time on Linux only; elsewhere BenchmarkScale's
// cpu-us/page reads 0.
func threadCPU() time.Duration { return 0 }
