package fleet

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The Spread protocol, one for both backends (docs/fleet.md): a write call
// runs attempts; an attempt leases the keys two near-duplicates must share
// (Attempt.Lease), reads and judges under them, writes its page pending,
// files it under its keys (each filing only while the lease is still the
// attempt's: the fencing check) and commits it, the one step that makes it
// kept. A reader holding a lease that finds a pending page under the leased
// key aborts it (its writer lost that lease), and that page's commit is
// refused. No step compares clocks. Which keys, how candidates are found
// and judged and where a page's state lives are each backend's.

// ErrAborted ends an attempt of a Spread call that lost a lease (it
// expired and another attempt took it) or whose pending page another
// attempt aborted; the call starts a new attempt.
var ErrAborted = errors.New("redisindex: attempt aborted")

// Attempt is one attempt of a Spread write call (Core.Spread).
type Attempt struct {
	// Call is the call's ID (NewCall), the same in each of its attempts;
	// Token is the attempt's own: Call and the attempt's number.
	Call, Token string
	core        *Core
	leases      []string
	held        []bool
	undo        func(ctx context.Context) error
	died        bool
}

// Spread runs the attempts of a Spread write call until one returns
// anything but ErrAborted, which starts a new attempt after a short random
// pause. Each attempt ends before the next starts, and the last
// before Spread returns (no goroutine outlives the call): its leases are
// given back — after an error every lease it may hold, since a lease whose
// reply was lost is its too — and its OnEnd run, with a context of its own
// (a call cut off by its context still cleans up when Redis answers). A
// clean-up that fails leaves what a client that dies leaves, leases that
// expire after LeaseTTL, so its error joins the attempt's own and never
// replaces a result. When ctx ends between attempts Spread returns
// ctx.Err().
func (c *Core) Spread(ctx context.Context, attempt func(a *Attempt) error) error {
	call := NewCall()
	for n := 0; ; n++ {
		a := &Attempt{Call: call, Token: call + strconv.Itoa(n), core: c}
		err := a.end(ctx, attempt(a))
		if !errors.Is(err, ErrAborted) {
			return err
		}
		if err := Sleep(ctx, time.Duration(rand.Int64N(int64(time.Millisecond)))); err != nil {
			return err
		}
	}
}

// OnEnd sets the rest of the attempt's clean-up, run as it ends beside the
// release of its leases.
func (a *Attempt) OnEnd(f func(ctx context.Context) error) { a.undo = f }

// Die ends the attempt as if its process had died: nothing is cleaned up
// (for tests).
func (a *Attempt) Die() { a.died = true }

// end cleans up after the attempt, whose result is err.
func (a *Attempt) end(ctx context.Context, err error) error {
	if a.died {
		return err
	}
	if err != nil {
		for i := range a.held {
			a.held[i] = true
		}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	cerr := Parallel(2, func(i int) error {
		switch {
		case i == 0:
			return a.release(rctx, a.held)
		case a.undo != nil:
			return a.undo(rctx)
		}
		return nil
	})
	if err != nil && cerr != nil {
		err = errors.Join(err, cerr)
	}
	return err
}

// releaseScript deletes a lease key if it still holds the token ARGV[1] (a
// lease that passed to another call stays).
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// release gives back the attempt's leases marked held, at once, and joins
// the errors. A lease not given back (its error returned) expires after
// LeaseTTL: it delays the calls that need it, and cannot let two
// near-duplicates be kept, since every write checks its lease first.
func (a *Attempt) release(ctx context.Context, held []bool) error {
	var ks []string
	for i, k := range a.leases {
		if held[i] {
			ks = append(ks, k)
		}
	}
	return Parallel(len(ks), func(i int) error { // none: nil
		return releaseScript.Run(ctx, a.core.Client, ks[i:i+1], a.Token).Err()
	})
}

// Lease takes the attempt's leases, sorted by name, with take(i), which
// takes or renews leases[i] and reports false when another attempt holds
// it. It takes them all at once first; on a conflict it gives back those
// after the first lease another attempt holds, and takes the rest one at a
// time in order, waiting with a jittered backoff that doubles up to a
// bound while one is held, until ctx is done. An attempt that waits holds
// only leases before the one it waits for, so two attempts never wait for
// each other. When taking them took over half of LeaseTTL it renews them
// all at once, and returns ErrAborted when one was lost meanwhile. The
// attempt's end gives back the leases it holds (after an error, every one:
// a reply may have been lost).
func (a *Attempt) Lease(ctx context.Context, leases []string, take func(i int) (bool, error)) error {
	n := len(leases)
	a.leases, a.held = leases, make([]bool, n)
	start := time.Now()
	err := Parallel(n, func(i int) error {
		ok, err := take(i)
		a.held[i] = ok && err == nil
		return err
	})
	first := slices.Index(a.held, false) // the first lease another attempt holds
	if err != nil || first < 0 {
		return err
	}
	after := make([]bool, n)
	for i := first + 1; i < n; i++ {
		after[i], a.held[i] = a.held[i], false
	}
	_ = a.release(ctx, after) // a lease not given back is still the attempt's: taken again below
	wait := 50 * time.Microsecond
	for i := first; i < n; {
		ok, err := take(i)
		if err != nil {
			return err
		}
		if ok {
			a.held[i] = true
			i++
			wait = 50 * time.Microsecond
			continue
		}
		if err := Sleep(ctx, wait/2+time.Duration(rand.Int64N(int64(wait)))); err != nil {
			return err
		}
		wait = min(2*wait, 5*time.Millisecond)
	}
	if time.Since(start) > a.core.LeaseTTL/2 { // the first leases may be near their end
		return ParallelHeld(n, take)
	}
	return nil
}

// ParallelHeld runs f(0) … f(n-1) at once as Parallel does; when none
// fails but one reports its lease lost (false), it returns ErrAborted.
func ParallelHeld(n int, f func(i int) (bool, error)) error {
	held := make([]bool, n)
	err := Parallel(n, func(i int) (err error) {
		held[i], err = f(i)
		return err
	})
	if err == nil && slices.Contains(held, false) {
		return ErrAborted
	}
	return err
}
