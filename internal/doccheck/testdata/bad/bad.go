// Package bad breaks the rules: Match takes 12 µs on this machine
// (an AMD EPYC VM under load, two shared cores), and a session measured an F1 of 0.97.
package bad

// Fast is the helper a session wrote; internal comments are not read.
func Fast() {
	// 5 ms, in a session.
}

// Options configures nothing.
type Options struct {
	// Window is how far back to look: 3 ms measured.
	Window int
	// hidden is not shown by go doc: 9 ms.
	hidden int
}

// unexported is not shown by go doc: 7 ns.
func unexported() {}
