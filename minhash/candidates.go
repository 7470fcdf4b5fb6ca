package minhash

import "slices"

// rareKey is the most sketches a key may be filed under for one shared
// key to make a candidate (see candidatesShared). On the generated crawl
// with bigram text at 30,000 pages (BenchmarkScale), 4, 8 and 16 give 5.2,
// 8.2 and 13.3 pages compared per page, all at F1 0.9956, that of any
// shared key (53 pages compared per page); looking up 8 keys instead of 16
// loses a pair or two (F1 0.9954 at 16, 0.9955 at 64).
const rareKey = 4

// queryWidth is how many times Keys a query looks up: a query's further
// smallest hashes are often the keys of a near sketch whose own smallest
// differ, and they give a near sketch found through one common key its
// second coincidence.
const queryWidth = 2

// queryKeys returns the keys a sketch is looked up under: its first
// queryWidth × Keys hashes.
func (x *Index) queryKeys(s Sketch) []uint32 {
	x.ready()
	return s[:min(len(s), queryWidth*x.keys)]
}

// candidatesShared appends to dst, once each and ascending, the IDs filed
// under two or more of keys, or under one key filed under at most rare
// IDs, and returns the extended slice.
//
// A key most sketches do not share (a rare one) is evidence enough; a key
// filed under many (a common phrase, boilerplate that is not yet
// template) is shared by chance the more often the more sketches there are,
// so through it a sketch is a candidate only with a second coincidence:
// the chance candidates of a query do not grow with the index, as those of
// Candidates do until each key reaches MaxPostings, while a near sketch
// almost always shares several of its smallest hashes.
func (x *Index) candidatesShared(keys []uint32, rare int, dst []uint32) []uint32 {
	if x.lists == nil {
		return dst
	}
	n := len(dst)
	for _, k := range keys {
		var filed int
		if dst, filed = x.appendFiled(dst, k); filed > 0 && filed <= rare {
			dst = append(dst, dst[len(dst)-filed:]...) // rare: each counts twice
		}
	}
	s := dst[n:]
	slices.Sort(s)
	out := n
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i >= 2 {
			dst[out] = s[i]
			out++
		}
		i = j
	}
	return dst[:out]
}
