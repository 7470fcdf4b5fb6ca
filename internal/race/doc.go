// Package race reports whether the race detector is compiled in, so that a
// test can scale its largest inputs down under -race, which makes code
// several times slower and its memory several times larger, while still
// running every case it checks:
//
//	rounds := 1500
//	if race.Enabled {
//		rounds = 500 // same configurations, fewer rounds each
//	}
//
// Tests only; the library's behaviour never depends on it.
package race
