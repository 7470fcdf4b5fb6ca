// Package peer measures package minhash against github.com/ekzhu/minhash-lsh,
// the Go MinHash LSH by the author of datasketch, on the same generated crawl
// in the same run. It holds tests and benchmarks only: it is a module of its
// own so that the library's go.mod does not require the peer.
//
// Run it with
//
//	go test github.com/neardup/neardup/minhash/peer -run '^$' -bench Peer -benchtime 1x -count 3 -cpu 1
//
// docs/BENCHMARKS.md has the measurements.
package peer
