module github.com/neardup/neardup

go 1.26.0

require (
	github.com/bits-and-blooms/bitset v1.29.0
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/kljensen/snowball v0.10.0
	golang.org/x/net v0.62.0
)

require (
	github.com/agnivade/levenshtein v1.2.2
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.43.0
)
