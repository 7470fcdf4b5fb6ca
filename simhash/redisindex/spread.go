package redisindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/simhash"
)

// The protocol of a spread repository (Options.Spread), whose keys lie in
// many hash slots, so that no one script can check and write a page; the
// package doc says why it keeps the guarantees of one slot. It is the
// Spread protocol of internal/fleet (fleet.Core.Spread), shared with
// minhash/redisindex: a write call (MatchOrAdd, Add, Replace) runs
// attempts, and an attempt, under a token (the call ID and the attempt's
// number):
//
//  1. leases the page's block keys in the order of their names
//     (fleet.Attempt.Lease), each lease read with the key's entries within
//     T_B (leaseScript); in the same round trip it reserves a pending
//     handle in the ID's bucket (reserveScript);
//  2. resolves the handles found (resolveScript, per bucket): a committed
//     page whose entry is the one found is a match, and a match ends the
//     call; a pending one is aborted, since its writer no longer holds the
//     lease of the key it was found in;
//  3. files the entry in every block key, each only while the lease is
//     still the attempt's (fileScript, the fencing check);
//  4. commits in the ID's bucket (commitScript): the one step that makes
//     the page kept, refused when a reader aborted the handle or the ID is
//     kept;
//  5. ends (fleet.Core.Spread): releases its leases, aborts its
//     reservation if it did not commit, and deletes its state
//     (finishScript), in one round trip before the call returns.
//
// An attempt that dies leaves a pending handle that no match counts and the
// next lease holder of one of its keys aborts, leases that expire after
// Options.LeaseTTL, and entries the next filing in their key drops. Each
// script is safe to send again: a lease, a filing, a reservation and a
// commit under one token happen once.

// buckets is the number of ID buckets (the bucket of a handle is handle mod
// buckets).
const buckets = 16384

// errDied is returned by an attempt the test hook stopped as if its process
// had died.
var errDied = errors.New("redisindex: attempt stopped by the test hook")

// hit is an entry within T_B bits found in a block key: its handle, the
// entry itself, and its distance.
type hit struct {
	h     uint64
	entry string
	d     int
}

// bucketOf returns the ID bucket of id.
func bucketOf(id string) uint64 {
	f := fnv.New64a()
	f.Write([]byte(id))
	return f.Sum64() % buckets
}

// bucketKey returns the key name of the bucket b's part (ids, names, ...).
func (det spread) bucketKey(b uint64, part string) string {
	return "{" + det.prefix + ":p:" + strconv.FormatUint(b, 10) + "}:" + part
}

// spread is the layout of a repository over every slot (the protocol
// above, the scripts in spread_script.go).
type spread struct{ *Detector }

// checkK checks the T_B the repository records, recording det's when there
// is none and write is set. Once it has agreed, det does not ask again.
func (det spread) checkK(ctx context.Context, write bool) error {
	if det.kChecked.Load() {
		return nil
	}
	c := det.fc.Client
	key := "{" + det.prefix + "}:k"
	want := strconv.Itoa(det.k)
	if write {
		if err := c.SetNX(ctx, key, want, 0).Err(); err != nil {
			return err
		}
	}
	got, err := c.Get(ctx, key).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil
	case err != nil:
		return err
	case got != want:
		return fmt.Errorf("NDK the repository was made with T_B = %s, not %s", got, want)
	}
	det.kChecked.Store(true)
	return nil
}

// hits parses a find reply {entry, distance, ...}.
func hits(res []any) ([]hit, error) {
	out := make([]hit, 0, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		e, ok1 := res[i].(string)
		d, ok2 := res[i+1].(int64)
		if !ok1 || !ok2 || len(e) != entrySize {
			return nil, fmt.Errorf("%w: unexpected reply %v", ErrRedis, res)
		}
		out = append(out, hit{binary.BigEndian.Uint64([]byte(e[8:])), e, int(d)})
	}
	return out, nil
}

// resolve returns the IDs of the committed pages among the entries of hs
// (each entry once, a distance being the entry's) as Matches, and the
// entries that are no committed page's. With abort, pending handles are
// aborted.
func (det spread) resolve(ctx context.Context, hs [][]hit, abort bool) ([]neardup.Match, map[string]bool, error) {
	byBucket := map[uint64][]hit{}
	seen := map[string]bool{}
	for _, x := range slices.Concat(hs...) {
		if !seen[x.entry] {
			seen[x.entry] = true
			byBucket[x.h%buckets] = append(byBucket[x.h%buckets], x)
		}
	}
	bs := slices.Collect(maps.Keys(byBucket))
	run := func(ctx context.Context, s *redis.Script, keys []string, args ...any) *redis.Cmd {
		return s.Run(ctx, det.fc.Client, keys, args...)
	}
	if abort {
		run = det.fc.Run // acknowledged with ReplicaAck, as the writes it lets through are
	}
	ids := make([][]any, len(bs))
	err := fleet.Parallel(len(bs), func(i int) error {
		b := bs[i]
		args := []any{abort}
		for _, x := range byBucket[b] {
			args = append(args, x.h, x.entry)
		}
		res, err := run(ctx, resolveScript, []string{det.bucketKey(b, "names"), det.bucketKey(b, "pend"), det.bucketKey(b, "ids")}, args...).Slice()
		if err == nil && len(res) != len(byBucket[b]) {
			err = fmt.Errorf("%w: unexpected reply %v", ErrRedis, res)
		}
		ids[i] = res
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	var ms []neardup.Match
	gone := map[string]bool{}
	for i, b := range bs {
		for j, x := range byBucket[b] {
			if id, ok := ids[i][j].(string); ok {
				ms = append(ms, neardup.Match{ID: id, Score: float64(x.d), Measure: simhash.Bits})
			} else {
				gone[x.entry] = true
			}
		}
	}
	neardup.SortMatches(ms)
	return ms, gone, nil
}

func (det spread) match(ctx context.Context, fp simhash.Fingerprint) ([]neardup.Match, error) {
	if err := det.checkK(ctx, false); err != nil {
		return nil, err
	}
	keys := det.blockKeys(nil, fp)
	hs := make([][]hit, len(keys))
	err := fleet.Parallel(len(keys), func(i int) error {
		res, err := leaseScript.Run(ctx, det.fc.Client, []string{keys[i], keys[i] + ":l"}, "", 0, uint32(fp>>32), uint32(fp), det.k).Slice() // no lease
		if err == nil {
			hs[i], err = hits(res)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	ms, _, err := det.resolve(ctx, hs, false)
	return ms, err
}

// write runs the attempts of a write call until one ends it.
func (det spread) write(ctx context.Context, d *neardup.Document, fp simhash.Fingerprint, mode string) ([]neardup.Match, bool, error) {
	if err := det.checkK(ctx, true); err != nil {
		return nil, false, err
	}
	if mode != modeAdd {
		// Its own page, committed (an ID's entry is written by the
		// commit): kept, nothing to change, no lease to take.
		own, ok, err := det.lookup(ctx, d.ID)
		if err != nil || ok && own == fp {
			return nil, err == nil, err
		}
	}
	keys := det.blockKeys(nil, fp)
	slices.Sort(keys)
	var ms []neardup.Match
	var kept bool
	err := det.fc.Spread(ctx, func(a *fleet.Attempt) (err error) {
		ms, kept, err = det.attempt(ctx, d, fp, keys, a, mode)
		return err
	})
	return ms, kept, err
}

// died reports whether the test hook stops the attempt at step.
func (det spread) died(step string) bool { return det.hook != nil && det.hook(step) }

func (det spread) attempt(ctx context.Context, d *neardup.Document, fp simhash.Fingerprint, keys []string, a *fleet.Attempt, mode string) (ms []neardup.Match, kept bool, err error) {
	token := a.Token
	b := bucketOf(d.ID)
	var h uint64 // the reserved handle, 0 before the reservation
	// Beside the release of the leases: abort a reservation not committed
	// and delete the attempt's state (no step of the attempt can be re-sent
	// any more). Left undone, the state expires with the call's record and
	// a pending handle is one no match counts.
	a.OnEnd(func(ctx context.Context) error {
		return finishScript.Run(ctx, det.fc.Client, []string{det.bucketKey(b, "names"), det.bucketKey(b, "pend"), det.bucketKey(b, "c:"+token)}, h, token).Err()
	})
	var rerr error
	reserved := make(chan struct{})
	go func() { // the reservation goes with the leases, in one round trip
		defer close(reserved)
		r, err := reserveScript.Run(ctx, det.fc.Client, []string{det.bucketKey(b, "names"), det.bucketKey(b, "pend"), det.bucketKey(b, "next"), det.bucketKey(b, "c:"+token)},
			d.ID, token, b, det.fc.RecordTTL(ctx).Milliseconds()).Text()
		if rerr = err; err == nil {
			h, rerr = strconv.ParseUint(strings.TrimPrefix(r, "r"), 10, 64)
		}
	}()
	hs, err := det.acquire(ctx, a, keys, fp)
	<-reserved
	if err != nil {
		return nil, false, err
	}
	var gone map[string]bool
	if mode != modeAdd {
		ms, gone, err = det.resolve(ctx, hs, true)
		if err != nil {
			return nil, false, err
		}
		if mode == modeReplace {
			ms = slices.DeleteFunc(ms, func(m neardup.Match) bool { return m.ID == d.ID })
		}
		if mode == modeMatchOrAdd && neardup.OwnPage(d.ID, ms) {
			return nil, true, nil // its own page, committed: nothing changes
		}
		if len(ms) > 0 {
			if mode == modeReplace {
				if err := det.remove(ctx, d.ID); err != nil && !errors.Is(err, neardup.ErrUnknownID) {
					return nil, false, err
				}
			}
			return ms, false, nil
		}
	}
	if rerr != nil {
		return nil, false, rerr
	}
	if det.died("reserved") {
		a.Die()
		return nil, false, errDied
	}
	entry := binary.BigEndian.AppendUint64(nil, uint64(fp))
	entry = binary.BigEndian.AppendUint64(entry, h)
	err = fleet.ParallelHeld(len(keys), func(i int) (bool, error) {
		args := []any{token, entry}
		for _, x := range hs[i] {
			if gone[x.entry] {
				args = append(args, x.entry)
			}
		}
		n, err := det.fc.Run(ctx, fileScript, []string{keys[i], keys[i] + ":l"}, args...).Int() // on the replicas before the commit, with ReplicaAck
		return n != 0, err
	})
	if err != nil {
		// The deferred clean-up aborts the handle, so that no later commit
		// of it (a re-sent one) can keep it; its entries are dropped by
		// later appends.
		return nil, false, err
	}
	if det.died("appended") {
		a.Die()
		return nil, false, errDied
	}
	res, err := det.fc.Run(ctx, commitScript, []string{det.bucketKey(b, "ids"), det.bucketKey(b, "names"), det.bucketKey(b, "pend"), det.bucketKey(b, "c:"+token)},
		d.ID, h, entry, token, det.fc.RecordTTL(ctx).Milliseconds(), mode).Text()
	switch {
	case err != nil:
		return nil, false, err
	case res == "aborted":
		return nil, false, fleet.ErrAborted
	case res == "dup":
		return nil, false, neardup.ErrDuplicateID
	case !strings.HasPrefix(res, "added"):
		return nil, false, fmt.Errorf("%w: unexpected reply %q", ErrRedis, res)
	}
	if old := res[len("added"):]; len(old) == entrySize {
		_ = det.clean(ctx, old) // its error is safe to ignore (clean)
	}
	return nil, true, nil
}

// acquire leases keys (sorted) for the attempt a (fleet.Attempt.Lease),
// and returns each key's entries within T_B, read under its lease.
func (det spread) acquire(ctx context.Context, a *fleet.Attempt, keys []string, fp simhash.Fingerprint) ([][]hit, error) {
	hs := make([][]hit, len(keys))
	ls := make([]string, len(keys)) // the lease keys
	for i, k := range keys {
		ls[i] = k + ":l"
	}
	err := a.Lease(ctx, ls, func(i int) (bool, error) {
		res, err := leaseScript.Run(ctx, det.fc.Client, []string{keys[i], ls[i]},
			a.Token, det.fc.LeaseTTL.Milliseconds(), uint32(fp>>32), uint32(fp), det.k).Slice()
		if errors.Is(err, redis.Nil) {
			return false, nil // another attempt's
		}
		if err == nil {
			hs[i], err = hits(res)
		}
		return err == nil, err
	})
	return hs, err
}

// clean drops entry from the block keys of its fingerprint. Its page is
// gone, so readers ignore what is left, and the next append to a key drops
// it: a failure is safe to ignore.
func (det spread) clean(ctx context.Context, entry string) error {
	keys := det.blockKeys(nil, simhash.Fingerprint(binary.BigEndian.Uint64([]byte(entry))))
	return fleet.Parallel(len(keys), func(i int) error {
		return fileScript.Run(ctx, det.fc.Client, []string{keys[i], keys[i] + ":l"}, "", "", entry).Err()
	})
}

// remove forgets id; ErrUnknownID when it is not kept.
func (det spread) remove(ctx context.Context, id string) error {
	b := bucketOf(id)
	call := fleet.NewCall()
	e, err := det.fc.Run(ctx, spreadRemoveScript, []string{det.bucketKey(b, "ids"), det.bucketKey(b, "names"), det.bucketKey(b, "c:"+call)},
		id, det.fc.RecordTTL(ctx).Milliseconds()).Text()
	switch {
	case errors.Is(err, redis.Nil):
		return neardup.ErrUnknownID
	case err != nil:
		return err
	case len(e) != entrySize:
		return fmt.Errorf("%w: entry of %d bytes", neardup.ErrCorrupt, len(e))
	}
	_ = det.clean(ctx, e) // its error is safe to ignore (clean)
	return nil
}

func (det spread) idsKey(id string) string { return det.bucketKey(bucketOf(id), "ids") }

// len counts the kept pages over every bucket.
func (det spread) len(ctx context.Context) (int, error) {
	cmds, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		for b := range uint64(buckets) {
			p.HLen(ctx, det.bucketKey(b, "ids"))
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cmds {
		n += int(c.(*redis.IntCmd).Val())
	}
	return n, nil
}
