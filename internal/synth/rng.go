package synth

import "math"

// rng is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014): 64 bits of state, a fixed algorithm, so
// a seed gives the same stream in every Go release. Each page, host and
// shared block draws from its own stream, derived from the crawl's seed and
// its own number, so that any of them can be generated again on its own.
type rng struct{ s uint64 }

const golden = 0x9e3779b97f4a7c15

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// stream returns the stream of (seed, kind, n): kind separates pages, hosts
// and shared blocks, n numbers them.
func stream(seed int64, kind, n uint64) rng {
	return rng{mix64(mix64(uint64(seed)^kind*golden) + n*0xd1b54a32d192ed03)}
}

func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// intn returns a number in [0, n) for 0 < n < 2^32 (Lemire's multiply and
// shift, without the rejection step: a bias below n/2^32).
func (r *rng) intn(n int) int {
	return int((r.next() >> 32) * uint64(n) >> 32)
}

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// normal returns a standard normal deviate (Box-Muller).
func (r *rng) normal() float64 {
	u := 1 - r.float() // (0, 1]
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*r.float())
}

// pick returns one of xs.
func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }
