package preprocess

import (
	"hash/maphash"
	"sync"
)

const stemShards = 16

// stemCache is a bounded, concurrency-safe memo from word to stem for one
// language. Snowball allocates several times per word, and a site's
// vocabulary repeats from page to page, so most lookups hit. Each shard holds
// at most perShard entries; a full shard is emptied and starts again, which
// bounds memory without bookkeeping on the hit path.
type stemCache struct {
	seed     maphash.Seed
	perShard int
	shards   [stemShards]stemShard
}

type stemShard struct {
	mu sync.RWMutex
	m  map[string]string
	_  [40]byte // keep shards on separate cache lines
}

func newStemCache(size int) *stemCache {
	return &stemCache{seed: maphash.MakeSeed(), perShard: max(1, size/stemShards)}
}

func (c *stemCache) shard(w string) *stemShard {
	return &c.shards[maphash.String(c.seed, w)%stemShards]
}

// get returns the cached stem of w.
func (c *stemCache) get(w string) (string, bool) {
	s := c.shard(w)
	s.mu.RLock()
	stem, ok := s.m[w]
	s.mu.RUnlock()
	return stem, ok
}

// put records stem as the stem of w. Both must be strings the cache may keep
// (not sub-strings of a page's text, which would pin the page in memory).
func (c *stemCache) put(w, stem string) {
	s := c.shard(w)
	s.mu.Lock()
	if s.m == nil || len(s.m) >= c.perShard {
		s.m = make(map[string]string, min(c.perShard, 1024))
	}
	s.m[w] = stem
	s.mu.Unlock()
}
