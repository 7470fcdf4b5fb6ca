// Package fleet is what the two Redis backends of neardup
// (minhash/redisindex and simhash/redisindex) share: the options every
// fleet repository takes (the client, the key prefix and its layout,
// timeouts, call records, leases, replica acknowledgement), checked and
// with their defaults; the errors and how a call wraps them; the record
// time of a write call's result; the acknowledged run of a write script
// (Redis WAIT in the script's pipeline); and the retry rules for lost
// replies: a pipeline of reads re-sends only the reads whose replies were
// lost, and a backoff ends with the call's context.
//
// Each backend keeps its own key layout, scripts and judging; the
// guarantees a crawler fleet relies on are in docs/fleet.md.
package fleet

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/sentinel"
	"github.com/neardup/neardup/internal/snapshot"
)

// Defaults of Config.
const (
	// DefaultTimeout is Timeout when it is zero.
	DefaultTimeout = 5 * time.Second
	// DefaultCallTTL is CallTTL when it is zero: a minute, beyond the
	// retries of a call under go-redis's default timeouts (about 32 s).
	DefaultCallTTL = time.Minute
	// DefaultLeaseTTL is LeaseTTL of a Spread repository when it is zero.
	DefaultLeaseTTL = 2 * time.Second
	// DefaultReplicaTimeout is ReplicaTimeout when it is zero and
	// ReplicaAck is not.
	DefaultReplicaTimeout = time.Second
	// MinLeaseTTL is the shortest LeaseTTL: a lease must outlive a few
	// round trips.
	MinLeaseTTL = 10 * time.Millisecond
)

// ErrRedis wraps every error of the Redis client (a lost connection, a
// timeout, a script error), so that a caller can tell them from the
// documents' own errors.
var ErrRedis = errors.New("redisindex: redis")

// ErrNotReplicated reports a write whose changes fewer replicas than
// ReplicaAck acknowledged within ReplicaTimeout. The changes are on the
// primary, and a failover before they reach a replica loses them; the
// error wraps ErrRedis too. Retry the call: a page that was kept is
// answered "added" (neardup.MatchAdder).
var ErrNotReplicated = errors.New("redisindex: write not acknowledged by enough replicas")

// errNotMade is the error of a method of a Detector not made by New.
var errNotMade = fmt.Errorf("redisindex: Detector not made by New: %w", sentinel.ErrInvalidOption)

// Config is the options every fleet backend takes (each backend's Options
// documents them for its users).
type Config struct {
	Client     redis.UniversalClient
	Prefix     string // zero: "neardup"; no braces
	SingleSlot bool   // the prefix in braces: every key in one hash slot
	Spread     bool   // keys over every slot; excludes SingleSlot
	Timeout    time.Duration
	CallTTL    time.Duration
	// LeaseTTL is filled in (and checked) with Spread only.
	LeaseTTL       time.Duration
	ReplicaAck     int
	ReplicaTimeout time.Duration // filled in with ReplicaAck only
}

// Core is a backend's shared part: its Config in effect, defaults filled
// in. A nil *Core is a Detector not made by New: Ready says so.
type Core struct{ Config }

// New checks c and returns the Core with the defaults filled in; options
// out of range return an error wrapping neardup.ErrInvalidOption. It does
// not contact Redis.
func New(c Config) (*Core, error) {
	bad := func(format string, a ...any) (*Core, error) {
		return nil, fmt.Errorf("redisindex: New: "+format+": %w", append(a, sentinel.ErrInvalidOption)...)
	}
	switch {
	case c.Client == nil:
		return bad("nil Client")
	case strings.ContainsAny(c.Prefix, "{}"):
		return bad("Prefix %q has braces", c.Prefix)
	case c.Timeout < 0:
		return bad("negative Timeout")
	case c.CallTTL < 0 || c.CallTTL > 0 && c.CallTTL < time.Millisecond:
		return bad("CallTTL %v below a millisecond", c.CallTTL)
	case c.Spread && c.SingleSlot:
		return bad("Spread and SingleSlot both set")
	case c.LeaseTTL < 0 || c.LeaseTTL > 0 && c.LeaseTTL < MinLeaseTTL:
		return bad("LeaseTTL %v below %v", c.LeaseTTL, MinLeaseTTL)
	case c.ReplicaAck < 0 || c.ReplicaTimeout < 0:
		return bad("negative ReplicaAck or ReplicaTimeout")
	case c.ReplicaAck > 0 && c.ReplicaTimeout > 0 && c.ReplicaTimeout < time.Millisecond: // WAIT 0 would wait for ever
		return bad("ReplicaTimeout %v below a millisecond", c.ReplicaTimeout)
	}
	if c.ReplicaAck > 0 {
		switch c.Client.(type) {
		case *redis.Client, *redis.ClusterClient:
		default:
			return bad("ReplicaAck needs a *redis.Client or *redis.ClusterClient, not %T", c.Client)
		}
		c.ReplicaTimeout = cmp.Or(c.ReplicaTimeout, DefaultReplicaTimeout)
	}
	c.Prefix = cmp.Or(c.Prefix, "neardup")
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.CallTTL = cmp.Or(c.CallTTL, DefaultCallTTL)
	if c.Spread {
		c.LeaseTTL = cmp.Or(c.LeaseTTL, DefaultLeaseTTL)
	}
	return &Core{c}, nil
}

// Ready returns nil, or for a nil Core (a Detector not made by New) an
// error wrapping neardup.ErrInvalidOption.
func (c *Core) Ready() error {
	if c == nil {
		return errNotMade
	}
	return nil
}

// KeyPrefix returns the start of a one-slot repository's keys: Prefix (in
// braces with SingleSlot), a colon and layout.
func (c *Core) KeyPrefix(layout string) string {
	if c.SingleSlot {
		return "{" + c.Prefix + "}:" + layout
	}
	return c.Prefix + ":" + layout
}

// Ctx returns the context of one call: parent bounded by Timeout (parent
// alone for a nil Core, whose methods fail at once).
func (c *Core) Ctx(parent context.Context) (context.Context, context.CancelFunc) {
	if c == nil {
		return context.WithCancel(parent)
	}
	return context.WithTimeout(parent, c.Timeout)
}

// RecordTTL is how long the record of a write call made with ctx lives:
// CallTTL, or ctx's deadline and a second more when that is later, so that
// the record outlives every retry the client can send within the call.
func (c *Core) RecordTTL(ctx context.Context) time.Duration {
	ttl := c.CallTTL
	if dl, ok := ctx.Deadline(); ok {
		ttl = max(ttl, time.Until(dl)+time.Second)
	}
	return ttl
}

// NewCall returns a new call ID: 16 random bytes.
func NewCall() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return string(b[:])
}

// CheckID returns nil when id may be kept, else an error wrapping
// neardup.ErrInvalidID that names op and quotes at most a prefix of id.
func CheckID(op, id string) error { return detector.CheckID("redisindex", op, id) }

// codes are the prefixes of the scripts' error replies and what they wrap:
// a repository made with other options (NDCFG: minhash's, NDK:
// simhash's T_B) and data the scripts found corrupt.
var codes = [...]struct {
	code string
	err  error
}{{"NDCFG ", sentinel.ErrInvalidOption}, {"NDK ", sentinel.ErrInvalidOption}, {"NDCORRUPT ", snapshot.ErrCorrupt}}

// Wrap names op and the document's ID in err: a script's coded error as
// what its code stands for, an error wrapping ErrRedis,
// neardup.ErrCorrupt, ErrDuplicateID or ErrUnknownID as it is, every other
// one (the client's) as ErrRedis too; nil as nil.
func Wrap(op, id string, err error) error {
	if err == nil {
		return nil
	}
	for _, c := range codes {
		if _, msg, ok := strings.Cut(err.Error(), c.code); ok {
			return fmt.Errorf("redisindex: %s %s: %s: %w", op, detector.QuoteID(id), msg, c.err)
		}
	}
	if errors.Is(err, ErrRedis) || errors.Is(err, snapshot.ErrCorrupt) || errors.Is(err, sentinel.ErrDuplicateID) || errors.Is(err, sentinel.ErrUnknownID) {
		return fmt.Errorf("redisindex: %s %s: %w", op, detector.QuoteID(id), err)
	}
	return fmt.Errorf("redisindex: %s %s: %w: %w", op, detector.QuoteID(id), ErrRedis, err)
}

// Sleep waits for d, or returns ctx's error when it is done first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Parallel runs f(0) … f(n-1) at once, waits for them all and joins their
// errors.
func Parallel(n int, f func(i int) error) error {
	if n == 1 {
		return f(0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
