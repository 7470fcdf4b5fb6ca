module github.com/neardup/neardup/simhash/peer

go 1.26.0

require (
	github.com/mfonda/simhash v0.0.0-20151007195837-79f94a1100d6
	github.com/neardup/neardup v0.0.0-00010101000000-000000000000
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
