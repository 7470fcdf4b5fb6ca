package neardup

import (
	"context"
)

// The Context interfaces are implemented by detectors whose calls wait on a
// server (simhash/redisindex, simhash/pgindex): each method is the plain
// method of the same name with a context that bounds the call and cancels
// it. When a Context method returns the context's error, the plain method's
// contract on a failed call applies (for a server backend: the write may or
// may not have happened).
//
// Cascade, Window and Partitioned implement every one of them that matches
// a plain method they have, and forward the context to each stage, window or
// part detector that implements the matching interface; a stage that does
// not is called through its plain method, after a check that the context is
// not done. Between stages the context is checked again, so a cancelled call
// stops at the next stage. The plain methods of a composition call the
// plain methods of its stages, so that each backend applies its own default
// timeout. Two things do not take the caller's context: a Cascade's
// best-effort rollback of a failed Add (it calls Remove, which applies the
// stage's own timeout, so that a cancelled context cannot leave a half-added
// page), and the Persister methods.

// ContextDetector is Detector with a context.
type ContextDetector interface {
	MatchContext(ctx context.Context, d *Document) ([]Match, error)
	AddContext(ctx context.Context, d *Document) error
}

// ContextVerifier is Verifier with a context.
type ContextVerifier interface {
	VerifyContext(ctx context.Context, d *Document, candidates []Match) ([]Match, error)
}

// ContextRemover is Remover with a context.
type ContextRemover interface {
	RemoveContext(ctx context.Context, id string) error
}

// ContextMatchAdder is MatchAdder with a context.
type ContextMatchAdder interface {
	MatchOrAddContext(ctx context.Context, d *Document) (matches []Match, added bool, err error)
}

// ContextReplacer is Replacer with a context.
type ContextReplacer interface {
	ReplaceContext(ctx context.Context, d *Document) (matches []Match, kept bool, err error)
}

// The helpers below call a stage with ctx. Inside this package a nil ctx
// means "the plain method was called": the stage's plain method is used, so
// that it applies its own defaults (a server backend's Timeout).

// ctxErr returns ctx's error, wrapped, when ctx is not nil and done.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return errorf("neardup: %w", err)
	}
	return nil
}

func matchWith(ctx context.Context, det Detector, d *Document) ([]Match, error) {
	if ctx == nil {
		return det.Match(d)
	}
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if c, ok := det.(ContextDetector); ok {
		return c.MatchContext(ctx, d)
	}
	return det.Match(d)
}

func addWith(ctx context.Context, det Detector, d *Document) error {
	if ctx == nil {
		return det.Add(d)
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if c, ok := det.(ContextDetector); ok {
		return c.AddContext(ctx, d)
	}
	return det.Add(d)
}

func verifyWith(ctx context.Context, v Verifier, d *Document, candidates []Match) ([]Match, error) {
	if ctx == nil {
		return v.Verify(d, candidates)
	}
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if c, ok := v.(ContextVerifier); ok {
		return c.VerifyContext(ctx, d, candidates)
	}
	return v.Verify(d, candidates)
}

func removeWith(ctx context.Context, r Remover, id string) error {
	if ctx == nil {
		return r.Remove(id)
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if c, ok := r.(ContextRemover); ok {
		return c.RemoveContext(ctx, id)
	}
	return r.Remove(id)
}

// Interface checks.
var (
	_ ContextDetector   = (*Cascade)(nil)
	_ ContextVerifier   = (*Cascade)(nil)
	_ ContextRemover    = (*Cascade)(nil)
	_ ContextMatchAdder = (*Cascade)(nil)
	_ ContextReplacer   = (*Cascade)(nil)
	_ ContextDetector   = (*Window)(nil)
	_ ContextVerifier   = (*Window)(nil)
	_ ContextRemover    = (*Window)(nil)
	_ ContextMatchAdder = (*Window)(nil)
	_ ContextReplacer   = (*Window)(nil)
	_ ContextDetector   = (*Partitioned)(nil)
	_ ContextRemover    = (*Partitioned)(nil)
	_ ContextMatchAdder = (*Partitioned)(nil)
	_ ContextReplacer   = (*Partitioned)(nil)
)
