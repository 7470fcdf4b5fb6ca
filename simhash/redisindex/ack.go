package redisindex

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultReplicaTimeout is Options.ReplicaTimeout when it is zero.
const DefaultReplicaTimeout = time.Second

// ErrNotReplicated reports a write call whose changes fewer replicas than
// Options.ReplicaAck acknowledged within Options.ReplicaTimeout. The
// changes are on the primary, and a failover before they reach a replica
// loses them; the error wraps ErrRedis too. Retry the call: a page that
// was kept is answered "added" (neardup.MatchAdder).
var ErrNotReplicated = errors.New("redisindex: write not acknowledged by enough replicas")

// run runs the write script s. With Options.ReplicaAck it sends, on the
// same connection, WAIT for that many replicas (a WAIT on another
// connection would not wait for this one's writes), and returns an error
// wrapping ErrNotReplicated when fewer acknowledged in time.
func (det *Detector) run(ctx context.Context, s *redis.Script, keys []string, args ...any) *redis.Cmd {
	if det.opts.ReplicaAck == 0 {
		return s.Run(ctx, det.client, keys, args...)
	}
	return runAcked(ctx, det.client, det.opts.ReplicaAck, det.opts.ReplicaTimeout, s, keys, args...)
}

// runAcked is run with WAIT: the script and WAIT in one pipeline on the
// node that serves keys[0].
func runAcked(ctx context.Context, c any, replicas int, timeout time.Duration, s *redis.Script, keys []string, args ...any) *redis.Cmd {
	var node *redis.Client
	switch c := c.(type) {
	case *redis.Client:
		node = c
	case *redis.ClusterClient:
		n, err := c.MasterForKey(ctx, keys[0])
		if err != nil {
			cmd := redis.NewCmd(ctx)
			cmd.SetErr(err)
			return cmd
		}
		node = n
	default:
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(fmt.Errorf("redisindex: ReplicaAck with a client of type %T", c))
		return cmd
	}
	pipe := func() (*redis.Cmd, *redis.Cmd) {
		var ev *redis.Cmd
		var w *redis.Cmd
		node.Pipelined(ctx, func(p redis.Pipeliner) error {
			ev = p.EvalSha(ctx, s.Hash(), keys, args...)
			w = p.Do(ctx, "WAIT", replicas, timeout.Milliseconds())
			return nil
		})
		return ev, w
	}
	ev, w := pipe()
	if err := ev.Err(); err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
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
	case n < int64(replicas):
		ev.SetErr(fmt.Errorf("%w: %d of %d replicas within %v", ErrNotReplicated, n, replicas, timeout))
	}
	return ev
}
