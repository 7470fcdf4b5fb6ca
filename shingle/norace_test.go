//go:build !race

package shingle

// raceEnabled is true under the race detector (see race_test.go).
const raceEnabled = false
