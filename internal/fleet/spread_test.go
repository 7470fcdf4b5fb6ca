package fleet

import (
	"context"
	"errors"
	"testing"
)

// Core.Spread runs attempts until one returns anything but ErrAborted,
// each under a token of its own and the call's one ID, and ends each
// (its OnEnd run, with a context still live) before the next starts; an
// attempt that dies is not cleaned up. Catches: a loop that stops at
// ErrAborted, reuses a token, skips or reorders the clean-up, or cleans up
// after a death.
func TestSpreadAttempts(t *testing.T) {
	c := &Core{}
	var tokens []string
	var log []string
	call := ""
	done := errors.New("done")
	err := c.Spread(context.Background(), func(a *Attempt) error {
		if call == "" {
			call = a.Call
		}
		if a.Call != call {
			t.Errorf("attempt %d: call %x, want %x", len(tokens), a.Call, call)
		}
		tokens = append(tokens, a.Token)
		n := len(tokens)
		a.OnEnd(func(ctx context.Context) error {
			if ctx.Err() != nil {
				t.Errorf("attempt %d cleaned up with a context done", n)
			}
			log = append(log, "end")
			return errors.New("clean-up failed")
		})
		log = append(log, "run")
		switch n {
		case 1:
			return ErrAborted
		case 2:
			return errors.Join(errors.New("lost"), ErrAborted)
		}
		return done
	})
	if !errors.Is(err, done) || len(tokens) != 3 {
		t.Fatalf("Spread = %v after %d attempts; want done after 3", err, len(tokens))
	}
	if tokens[0] == tokens[1] || tokens[1] == tokens[2] {
		t.Errorf("tokens %q: not one per attempt", tokens)
	}
	if got := len(log); got != 6 || log[0] != "run" || log[1] != "end" || log[4] != "run" || log[5] != "end" {
		t.Errorf("steps %v; want run and end in turn", log)
	}

	// A death is not cleaned up, and a success hides a failed clean-up.
	ended := false
	err = c.Spread(context.Background(), func(a *Attempt) error {
		a.OnEnd(func(context.Context) error { ended = true; return nil })
		a.Die()
		return done
	})
	if err != done || ended {
		t.Errorf("an attempt that died: %v, cleaned up %v; want done, not cleaned up", err, ended)
	}
	err = c.Spread(context.Background(), func(a *Attempt) error {
		a.OnEnd(func(context.Context) error { return errors.New("clean-up failed") })
		return nil
	})
	if err != nil {
		t.Errorf("a success whose clean-up failed: %v; want nil", err)
	}

	// A call whose context ends between attempts returns its error.
	ctx, cancel := context.WithCancel(context.Background())
	err = c.Spread(ctx, func(a *Attempt) error {
		cancel()
		return ErrAborted
	})
	if err != context.Canceled {
		t.Errorf("Spread after its context ended = %v; want context.Canceled", err)
	}
}
