module github.com/neardup/neardup

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/kljensen/snowball v0.10.0
	golang.org/x/net v0.62.0
)

require golang.org/x/sys v0.49.0
