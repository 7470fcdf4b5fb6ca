module github.com/neardup/neardup/internal/jepsen

go 1.26.0

require (
	github.com/neardup/neardup v0.0.0-00010101000000-000000000000
	github.com/neardup/neardup/minhash/redisindex v0.0.0-00010101000000-000000000000
	github.com/neardup/neardup/simhash/redisindex v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
