module github.com/neardup/neardup

go 1.26.8

require (
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/bits-and-blooms/bitset v1.29.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	golang.org/x/net v0.62.0 // indirect
)
