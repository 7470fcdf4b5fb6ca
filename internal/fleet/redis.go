package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Run runs the script s, which may write. With ReplicaAck it sends, on the
// same connection, WAIT for that many replicas (a WAIT on another
// connection would not wait for this one's writes): the script and WAIT in
// one pipeline on the primary that serves keys[0]. When fewer replicas
// acknowledged within ReplicaTimeout the command's error wraps
// ErrNotReplicated.
func (c *Core) Run(ctx context.Context, s *redis.Script, keys []string, args ...any) *redis.Cmd {
	if c.ReplicaAck == 0 {
		return s.Run(ctx, c.Client, keys, args...)
	}
	var node *redis.Client
	switch cl := c.Client.(type) {
	case *redis.Client:
		node = cl
	case *redis.ClusterClient: // New allows no other
		n, err := cl.MasterForKey(ctx, keys[0])
		if err != nil {
			cmd := redis.NewCmd(ctx)
			cmd.SetErr(err)
			return cmd
		}
		node = n
	}
	pipe := func() (ev, w *redis.Cmd) {
		node.Pipelined(ctx, func(p redis.Pipeliner) error { // the errors are ev's and w's
			ev = p.EvalSha(ctx, s.Hash(), keys, args...)
			w = p.Do(ctx, "WAIT", c.ReplicaAck, c.ReplicaTimeout.Milliseconds())
			return nil
		})
		return ev, w
	}
	ev, w := pipe()
	if NoScript(ev.Err()) {
		if err := s.Load(ctx, node).Err(); err != nil {
			ev.SetErr(err)
			return ev
		}
		ev, w = pipe()
	}
	if err := ev.Err(); err != nil && !errors.Is(err, redis.Nil) {
		return ev
	}
	switch n, err := w.Int64(); {
	case err != nil:
		ev.SetErr(fmt.Errorf("WAIT: %w", err))
	case n < int64(c.ReplicaAck):
		ev.SetErr(fmt.Errorf("%w: %d of %d replicas within %v", ErrNotReplicated, n, c.ReplicaAck, c.ReplicaTimeout))
	}
	return ev
}

// NoScript reports whether err is the server's answer to a script it does
// not have (a pipeline sends scripts by their hash).
func NoScript(err error) bool { return err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") }

// ReadPipelined runs the reads fn queues in one pipeline and then, up to
// eight rounds while ctx lasts, the reads whose reply was lost again in a
// pipeline of their own: a lost reply (a broken connection) fails the
// command it answered and those after it, while those before keep their
// replies, so under faults a long pipeline costs a few more round trips
// instead of failing whole each time go-redis re-sends it. Only for
// commands that may be sent twice (reads). It returns the first error of
// the commands but a missing key's.
func (c *Core) ReadPipelined(ctx context.Context, fn func(p redis.Pipeliner) error) ([]redis.Cmder, error) {
	cmds, _ := c.Client.Pipelined(ctx, fn) // the commands' errors are read below
	for range 8 {
		var lost []redis.Cmder
		for _, cmd := range cmds {
			var reply redis.Error // an error the server answered: not lost
			if e := cmd.Err(); e != nil && !errors.Is(e, redis.Nil) && !errors.As(e, &reply) {
				lost = append(lost, cmd)
			}
		}
		if len(lost) == 0 || ctx.Err() != nil {
			break
		}
		c.Client.Pipelined(ctx, func(p redis.Pipeliner) error { // the errors are the commands'
			for _, cmd := range lost {
				p.Process(ctx, cmd)
			}
			return nil
		})
	}
	for _, cmd := range cmds {
		if e := cmd.Err(); e != nil && !errors.Is(e, redis.Nil) {
			return cmds, e
		}
	}
	return cmds, nil
}

// PipeErr returns the first error of a pipeline's commands but a missing
// key's and a missing script's (err is the pipeline's).
func PipeErr(cmds []redis.Cmder, err error) error {
	if err == nil {
		return nil
	}
	for _, c := range cmds {
		if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) && !NoScript(e) {
			return e
		}
	}
	return nil
}

// releaseScript deletes a lease key if it still holds the token ARGV[1] (a
// lease that passed to another call stays).
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// Release gives back the leases of token on the lease keys marked held
// (all when held is nil), at once, and joins the errors. A lease not given
// back (its error returned) expires after LeaseTTL: it delays the calls
// that need it, and cannot let two near-duplicates be kept, since every
// write checks its lease first.
func (c *Core) Release(ctx context.Context, token string, leases []string, held []bool) error {
	var ks []string
	for i, k := range leases {
		if held == nil || held[i] {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	return Parallel(len(ks), func(i int) error {
		return releaseScript.Run(ctx, c.Client, ks[i:i+1], token).Err()
	})
}

// ErrAborted ends an attempt of a Spread call that lost a lease (it
// expired and another attempt took it) or whose pending page another
// attempt aborted; the call starts a new attempt.
var ErrAborted = errors.New("redisindex: attempt aborted")

// Acquire takes the leases of an attempt under token, which the caller
// sorted by name, with take(i), which takes or renews leases[i] and
// reports false when another attempt holds it. It takes them all at once
// first; on a conflict it gives back those after the first lease another
// attempt holds, and takes the rest one at a time in order, waiting with a
// jittered backoff that doubles up to a bound while one is held,
// until ctx is done. An attempt that waits holds only leases before the
// one it waits for, so two attempts never wait for each other. When taking
// them took over half of LeaseTTL it renews them all at once, and returns
// ErrAborted when one was lost meanwhile. It returns the leases the
// attempt holds; after an error every one may be (a reply lost), and all
// are marked.
func (c *Core) Acquire(ctx context.Context, token string, leases []string, take func(i int) (bool, error)) (held []bool, err error) {
	n := len(leases)
	held = make([]bool, n)
	defer func() {
		if err != nil {
			for i := range held {
				held[i] = true
			}
		}
	}()
	start := time.Now()
	var mu sync.Mutex
	first := n
	err = Parallel(n, func(i int) error {
		ok, err := take(i)
		held[i] = ok && err == nil
		if err == nil && !ok {
			mu.Lock()
			first = min(first, i)
			mu.Unlock()
		}
		return err
	})
	if err != nil || first == n {
		return held, err
	}
	after := make([]bool, n)
	for i := first + 1; i < n; i++ {
		after[i], held[i] = held[i], false
	}
	_ = c.Release(ctx, token, leases, after) // a lease not given back is still the attempt's: taken again below
	wait := 50 * time.Microsecond
	for i := first; i < n; {
		ok, err := take(i)
		if err != nil {
			return held, err
		}
		if ok {
			held[i] = true
			i++
			wait = 50 * time.Microsecond
			continue
		}
		if err := Sleep(ctx, wait/2+time.Duration(rand.Int64N(int64(wait)))); err != nil {
			return held, err
		}
		wait = min(2*wait, 5*time.Millisecond)
	}
	if time.Since(start) > c.LeaseTTL/2 { // the first leases may be near their end
		return held, ParallelHeld(n, take)
	}
	return held, nil
}

// ParallelHeld runs f(0) … f(n-1) at once as Parallel does; when none
// fails but one reports its lease lost (false), it returns ErrAborted.
func ParallelHeld(n int, f func(i int) (bool, error)) error {
	var lost atomic.Bool
	err := Parallel(n, func(i int) error {
		held, err := f(i)
		if err == nil && !held {
			lost.Store(true)
		}
		return err
	})
	if err == nil && lost.Load() {
		return ErrAborted
	}
	return err
}
