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
	github.com/jackc/pgx/v5 v5.12.0
	github.com/nlnwa/gowarc/v2 v2.2.4
	github.com/redis/go-redis/v9 v9.23.0
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.43.0
	gonum.org/v1/plot v0.17.0
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/nlnwa/whatwg-url v0.6.2 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
