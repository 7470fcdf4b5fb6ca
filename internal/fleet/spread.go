package fleet

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"
)

// The Spread protocol, the same in both backends: a write call runs
// attempts; an attempt leases the keys a page's near-duplicates must share
// with it (Attempt.Lease), reads under them, writes the page pending, files
// it under its keys (each filing only while the lease is still the
// attempt's: the fencing check) and commits it, the one step that makes it
// kept. A reader holding a lease that finds a pending page under the leased
// key aborts it: its writer lost that lease, and its commit is refused. An
// attempt whose commit was refused, or that lost a lease, returns
// ErrAborted and the call starts a new one. Nothing compares clocks. What
// differs between the backends (which keys, how a page's candidates are
// found and judged, where a page's state lives) is theirs.

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

// Lease takes the attempt's leases, sorted by name, with take, as Acquire
// does. The attempt's end gives them back.
func (a *Attempt) Lease(ctx context.Context, leases []string, take func(i int) (bool, error)) error {
	var err error
	a.leases = leases
	a.held, err = a.core.Acquire(ctx, a.Token, leases, take)
	return err
}

// OnEnd sets the rest of the attempt's clean-up, run as it ends beside the
// release of its leases.
func (a *Attempt) OnEnd(f func(ctx context.Context) error) { a.undo = f }

// Die ends the attempt as if its process had died: nothing is cleaned up
// (for tests).
func (a *Attempt) Die() { a.died = true }

// Spread runs the attempts of a Spread write call until one returns
// anything but ErrAborted, which starts a new attempt after a pause of up
// to a millisecond. Each attempt ends before the next starts, and the last
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
			return a.core.Release(rctx, a.Token, a.leases, a.held)
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
