package fleet

import (
	"context"
	"errors"
	"fmt"

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
