package judge

import (
	"math"

	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/minhash/internal/sketch"
)

// A feature in a Detector's snapshot (docs/format.md), and in a record of
// version 1 (ParseRecord).

// EncodeFeature writes a kept page's feature: host, text hash, the two
// sketches (ascending, as gaps), the content hashes' block indexes, the
// content's share of the page and the block keys.
func EncodeFeature(sw *snapshot.Writer, f Feature) {
	sw.Text(f.Host)
	sw.Uint64(f.Exact)
	writeSketch(sw, f.Page)
	writeSketch(sw, f.Content)
	sw.Raw(f.Tags)
	sw.Raw([]byte{f.Share})
	sw.Uvarint(uint64(len(f.Blocks)))
	for _, b := range f.Blocks {
		sw.Uvarint(uint64(b))
	}
}

// DecodeFeature reads a feature EncodeFeature wrote, for sketches of o's
// sizes; on bad bytes it fails sr and returns the zero Feature.
func DecodeFeature(sr *snapshot.Reader, o Options) Feature {
	f := Feature{Host: sr.Text(), Exact: sr.Uint64()}
	f.Page = readSketch(sr, o.PageSketchSize)
	f.Content = readSketch(sr, o.SketchSize)
	if sr.Err() != nil {
		return Feature{}
	}
	if len(f.Page) == 0 {
		sr.Fail("empty page sketch")
		return Feature{}
	}
	f.Tags = append([]uint8(nil), sr.Raw(len(f.Content))...)
	if sh := sr.Raw(1); len(sh) == 1 {
		f.Share = sh[0]
	}
	nb := sr.Count()
	if nb > uint64(len(f.Content)) || (nb == 0) != (len(f.Content) == 0) {
		sr.Fail("%d blocks for %d content hashes", nb, len(f.Content))
		return Feature{}
	}
	f.Blocks = make([]uint32, 0, nb)
	for i := uint64(0); i < nb && sr.Err() == nil; i++ {
		b := sr.Uvarint()
		if b > math.MaxUint32 || i > 0 && uint32(b) <= f.Blocks[i-1] {
			sr.Fail("block keys not ascending")
			return Feature{}
		}
		f.Blocks = append(f.Blocks, uint32(b))
	}
	for _, t := range f.Tags {
		if int(t) >= len(f.Blocks) {
			sr.Fail("block index %d of %d", t, len(f.Blocks))
			return Feature{}
		}
	}
	return f
}

func writeSketch(sw *snapshot.Writer, s sketch.Sketch) {
	sw.Uvarint(uint64(len(s)))
	var prev uint32
	for _, h := range s {
		sw.Uvarint(uint64(h - prev))
		prev = h
	}
}

func readSketch(sr *snapshot.Reader, k int) sketch.Sketch {
	n := sr.Count()
	if n > uint64(k) {
		sr.Fail("sketch of %d hashes, more than %d", n, k)
		return nil
	}
	s := make(sketch.Sketch, 0, n)
	var h uint64
	for i := uint64(0); i < n && sr.Err() == nil; i++ {
		d := sr.Uvarint()
		if (i > 0 && d == 0) || h+d >= math.MaxUint32 {
			sr.Fail("sketch hashes not ascending")
			return nil
		}
		h += d
		s = append(s, uint32(h))
	}
	return s
}
