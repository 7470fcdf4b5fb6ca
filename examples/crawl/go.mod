module github.com/neardup/neardup/examples/crawl

go 1.26.0

require (
	github.com/neardup/neardup v0.0.0-00010101000000-000000000000
	golang.org/x/net v0.62.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
