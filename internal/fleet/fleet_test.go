package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
)

// TestNewInvalid: every option out of range is refused with an error
// wrapping neardup.ErrInvalidOption (a check dropped from New fails its
// row).
func TestNewInvalid(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	for _, cfg := range []Config{
		{},
		{Client: c, Prefix: "a{b"},
		{Client: c, Prefix: "a}b"},
		{Client: c, Timeout: -1},
		{Client: c, CallTTL: -1},
		{Client: c, CallTTL: time.Microsecond},
		{Client: c, Spread: true, SingleSlot: true},
		{Client: c, Spread: true, LeaseTTL: -1},
		{Client: c, Spread: true, LeaseTTL: MinLeaseTTL - 1},
		{Client: c, ReplicaAck: -1},
		{Client: c, ReplicaTimeout: -1},
		{Client: c, ReplicaAck: 1, ReplicaTimeout: time.Microsecond},
		{Client: ring, ReplicaAck: 1},
	} {
		if core, err := New(cfg); !errors.Is(err, neardup.ErrInvalidOption) || core != nil {
			t.Errorf("New(%+v) = %v, %v; want an error wrapping ErrInvalidOption", cfg, core, err)
		}
	}
}

// TestNewDefaults: zero options get their defaults, LeaseTTL only with
// Spread and ReplicaTimeout only with ReplicaAck; set ones are kept.
func TestNewDefaults(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, tc := range []struct{ in, want Config }{
		{Config{Client: c}, Config{Client: c, Prefix: "neardup", Timeout: DefaultTimeout, CallTTL: DefaultCallTTL}},
		{Config{Client: c, Spread: true}, Config{Client: c, Prefix: "neardup", Spread: true, Timeout: DefaultTimeout, CallTTL: DefaultCallTTL, LeaseTTL: DefaultLeaseTTL}},
		{Config{Client: c, ReplicaAck: 2}, Config{Client: c, Prefix: "neardup", Timeout: DefaultTimeout, CallTTL: DefaultCallTTL, ReplicaAck: 2, ReplicaTimeout: DefaultReplicaTimeout}},
		{Config{Client: c, Prefix: "p", SingleSlot: true, Timeout: time.Second, CallTTL: time.Hour, LeaseTTL: MinLeaseTTL, ReplicaAck: 1, ReplicaTimeout: time.Millisecond},
			Config{Client: c, Prefix: "p", SingleSlot: true, Timeout: time.Second, CallTTL: time.Hour, LeaseTTL: MinLeaseTTL, ReplicaAck: 1, ReplicaTimeout: time.Millisecond}},
	} {
		core, err := New(tc.in)
		if err != nil {
			t.Fatalf("New(%+v): %v", tc.in, err)
		}
		if core.Config != tc.want {
			t.Errorf("New(%+v) = %+v, want %+v", tc.in, core.Config, tc.want)
		}
		again, err := New(core.Config)
		if err != nil || again.Config != core.Config {
			t.Errorf("New of the options in effect = %+v, %v; want %+v", again, err, core.Config)
		}
	}
}

func TestKeyPrefix(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, tc := range []struct {
		single bool
		want   string
	}{{false, "p:2"}, {true, "{p}:2"}} {
		core, err := New(Config{Client: c, Prefix: "p", SingleSlot: tc.single})
		if err != nil {
			t.Fatal(err)
		}
		if got := core.KeyPrefix("2"); got != tc.want {
			t.Errorf("SingleSlot %v: KeyPrefix = %q, want %q", tc.single, got, tc.want)
		}
	}
}

// TestNilCore: the core of a Detector not made by New refuses every call
// and gives a context that is not yet done.
func TestNilCore(t *testing.T) {
	var c *Core
	if err := c.Ready(); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("nil Core: Ready = %v, want ErrInvalidOption", err)
	}
	ctx, cancel := c.Ctx(context.Background())
	defer cancel()
	if ctx.Err() != nil {
		t.Errorf("nil Core: Ctx is done: %v", ctx.Err())
	}
	core := &Core{Config{Timeout: time.Hour}}
	if err := core.Ready(); err != nil {
		t.Errorf("Ready = %v", err)
	}
}

// TestRecordTTL: CallTTL, or the context's deadline and a second when that
// is later.
func TestRecordTTL(t *testing.T) {
	core := &Core{Config{CallTTL: time.Minute}}
	if got := core.RecordTTL(context.Background()); got != time.Minute {
		t.Errorf("no deadline: %v, want 1m", got)
	}
	short, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if got := core.RecordTTL(short); got != time.Minute {
		t.Errorf("deadline in 1s: %v, want 1m", got)
	}
	long, cancel2 := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel2()
	if got := core.RecordTTL(long); got < 5*time.Minute || got > 5*time.Minute+time.Second {
		t.Errorf("deadline in 5m: %v, want 5m and up to a second", got)
	}
}

func TestNewCall(t *testing.T) {
	a, b := NewCall(), NewCall()
	if len(a) != 16 || len(b) != 16 || a == b {
		t.Errorf("NewCall gave %x and %x; want two different 16-byte IDs", a, b)
	}
}

// TestCheckID: the empty ID and IDs over neardup.MaxIDLen are refused,
// quoting at most 64 bytes of the ID.
func TestCheckID(t *testing.T) {
	for _, id := range []string{"a", strings.Repeat("x", neardup.MaxIDLen)} {
		if err := CheckID("Add", id); err != nil {
			t.Errorf("CheckID of %d bytes: %v", len(id), err)
		}
	}
	for _, id := range []string{"", strings.Repeat("y", neardup.MaxIDLen+1), strings.Repeat("z", 1<<20)} {
		err := CheckID("MatchOrAdd", id)
		if !errors.Is(err, neardup.ErrInvalidID) {
			t.Errorf("CheckID of %d bytes = %v, want ErrInvalidID", len(id), err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "redisindex: MatchOrAdd ") || len(id) > 0 && strings.Contains(err.Error(), strings.Repeat(id[:1], 65)) {
			t.Errorf("CheckID of %d bytes: message %.200q names the call wrongly or quotes over 64 bytes", len(id), err)
		}
	}
}

// TestWrap: a script's coded error stands for what its code does, the
// documents' own errors and errors already wrapping ErrRedis keep their
// sentinel without a second ErrRedis, and the client's errors wrap
// ErrRedis; each names the call and quotes at most 64 bytes of the ID.
func TestWrap(t *testing.T) {
	long := strings.Repeat("u", 1000)
	for _, tc := range []struct {
		err   error
		want  error
		redis bool
	}{
		{errors.New("ERR user_script:1: NDCFG the repository was made with options x"), neardup.ErrInvalidOption, false},
		{errors.New("ERR NDK the repository was made with T_B = 6, not 3"), neardup.ErrInvalidOption, false},
		{errors.New("ERR NDCORRUPT a handle with no ID"), neardup.ErrCorrupt, false},
		{fmt.Errorf("%w: cut short", neardup.ErrCorrupt), neardup.ErrCorrupt, false},
		{neardup.ErrDuplicateID, neardup.ErrDuplicateID, false},
		{neardup.ErrUnknownID, neardup.ErrUnknownID, false},
		{fmt.Errorf("%w: 0 of 1 replicas", ErrNotReplicated), ErrNotReplicated, true},
		{fmt.Errorf("%w: unexpected reply", ErrRedis), ErrRedis, true},
		{context.DeadlineExceeded, context.DeadlineExceeded, true},
	} {
		err := Wrap("Replace", long, tc.err)
		if !errors.Is(err, tc.want) || errors.Is(err, ErrRedis) != tc.redis {
			t.Errorf("Wrap(%v) = %v; want %v, ErrRedis %v", tc.err, err, tc.want, tc.redis)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "redisindex: Replace ") || strings.Contains(msg, strings.Repeat("u", 65)) {
			t.Errorf("Wrap(%v): message %.200q names the call wrongly or quotes over 64 bytes of the ID", tc.err, msg)
		}
		if strings.Count(err.Error(), ErrRedis.Error()) > 1 {
			t.Errorf("Wrap(%v) = %v: ErrRedis twice", tc.err, err)
		}
	}
}

func TestWrapNil(t *testing.T) {
	if err := Wrap("Len", "", nil); err != nil {
		t.Errorf("Wrap(nil) = %v", err)
	}
}

// TestParallel: every f runs, and their errors are joined.
func TestParallel(t *testing.T) {
	var ran atomic.Int64
	e3, e5 := errors.New("3"), errors.New("5")
	err := Parallel(8, func(i int) error {
		ran.Add(1)
		switch i {
		case 3:
			return e3
		case 5:
			return e5
		}
		return nil
	})
	if ran.Load() != 8 || !errors.Is(err, e3) || !errors.Is(err, e5) {
		t.Errorf("Parallel ran %d of 8, err %v; want all, both errors", ran.Load(), err)
	}
	if err := Parallel(1, func(int) error { return nil }); err != nil {
		t.Errorf("Parallel(1) = %v", err)
	}
}

// TestSleep: Sleep ends with the context.
func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Minute {
		t.Errorf("Sleep with a done context = %v after %v; want context.Canceled at once", err, time.Since(start))
	}
}

// TestPipeErr: a pipeline's missing keys and scripts are no error, any
// other command error is.
func TestPipeErr(t *testing.T) {
	ctx := context.Background()
	missing, noscript, bad := redis.NewStringCmd(ctx), redis.NewCmd(ctx), redis.NewCmd(ctx)
	missing.SetErr(redis.Nil)
	noscript.SetErr(redisError("NOSCRIPT No matching script"))
	bad.SetErr(redisError("ERR wrong"))
	pipeFailed := errors.New("pipeline")
	if err := PipeErr([]redis.Cmder{missing, noscript}, pipeFailed); err != nil {
		t.Errorf("PipeErr of a missing key and script = %v, want nil", err)
	}
	if err := PipeErr([]redis.Cmder{missing, bad}, pipeFailed); err == nil || err.Error() != "ERR wrong" {
		t.Errorf("PipeErr = %v, want ERR wrong", err)
	}
	if err := PipeErr([]redis.Cmder{bad}, nil); err != nil {
		t.Errorf("PipeErr of a pipeline without error = %v", err)
	}
	if !NoScript(noscript.Err()) || NoScript(bad.Err()) || NoScript(nil) {
		t.Error("NoScript tells a missing script wrongly")
	}
}

// redisError is an error the server answered.
type redisError string

func (e redisError) Error() string { return string(e) }
func (redisError) RedisError()     {}
