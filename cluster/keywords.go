package cluster

import (
	"fmt"
	"slices"

	"github.com/neardup/neardup"
)

type keywordsKey struct{ f int }

// KeywordsOf returns the representatives R_i of d: the texts of its f most
// frequent terms (d.Page.Top(f): count descending, then text ascending),
// computed once per Document and f through neardup.Feature. A nil document or
// page returns an error wrapping neardup.ErrNilDocument; a page without terms
// (empty, or only stop words), one wrapping neardup.ErrNoFeatures; f < 1, one
// wrapping neardup.ErrInvalidOption. The slice is shared: do not modify it.
func KeywordsOf(d *neardup.Document, f int) ([]string, error) {
	if f < 1 {
		return nil, fmt.Errorf("cluster: KeywordsOf: f = %d, want at least 1: %w", f, neardup.ErrInvalidOption)
	}
	if err := neardup.Check(d); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return neardup.Feature(d, keywordsKey{f}, func(d *neardup.Document) ([]string, error) {
		top := d.Page.Top(f)
		if len(top) == 0 {
			return nil, fmt.Errorf("cluster: document %q has no keywords: %w", d.ID, neardup.ErrNoFeatures)
		}
		words := make([]string, len(top))
		for i, t := range top {
			words[i] = t.Text
		}
		return words, nil
	})
}

// vocab gives keys (keyword texts) dense ids
// 0, 1, 2, ... in the order they are first seen, so that modes are bitsets
// no larger than the vocabulary.
type vocab[K comparable] struct {
	ids  map[K]uint32
	keys []K
}

func newVocab[K comparable]() vocab[K] { return vocab[K]{ids: make(map[K]uint32)} }

func (v *vocab[K]) len() int { return len(v.keys) }

// intern returns the id of key, giving it the next id when it is new.
func (v *vocab[K]) intern(key K) uint32 {
	if id, ok := v.ids[key]; ok {
		return id
	}
	id := uint32(len(v.keys))
	v.ids[key] = id
	v.keys = append(v.keys, key)
	return id
}

// internItem returns the item of keys (ids ascending, each once), interning
// new keys.
func (v *vocab[K]) internItem(keys []K) item {
	ids := make([]uint32, 0, len(keys))
	for _, k := range keys {
		ids = append(ids, v.intern(k))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return item{ids: ids, size: len(ids)}
}

// lookupItem returns the item of keys (distinct) without changing the
// vocabulary: keys it does not know are counted in the size but have no id.
func (v *vocab[K]) lookupItem(keys []K) item {
	ids := make([]uint32, 0, len(keys))
	for _, k := range keys {
		if id, ok := v.ids[k]; ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return item{ids: ids, size: len(keys)}
}
