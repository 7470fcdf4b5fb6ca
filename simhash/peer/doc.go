// Package peer compares package simhash with github.com/mfonda/simhash, a
// widely used Go SimHash, on the same text in the same run. It holds only
// benchmarks; it is a module of its own so that the library's go.mod never
// requires the peer.
//
// Run it from the repository root (the workspace supplies the library):
//
//	go test -run='^$' -bench=. -benchmem -count=6 ./simhash/peer/
package peer
