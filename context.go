package neardup

import (
	"context"
)

// Every method of the detector interfaces takes a context first. A detector
// whose calls wait on a server (minhash/redisindex, simhash/redisindex,
// simhash/pgindex) bounds and cancels the call with it; an in-process
// detector does not block and may ignore it. When a method returns the
// context's error, the method's contract on a failed call applies (for a
// server backend: the write may or may not have happened). A nil context is
// not allowed; pass context.Background() or context.TODO().
//
// Cascade, Window and Partitioned pass the context to each stage, window or
// part detector, and check it before each one, so a cancelled call stops at
// the next stage. A Cascade's best-effort rollback of a failed Add removes the
// page with the context's values but without its cancellation
// (context.WithoutCancel), so that a cancelled call cannot leave a half-added
// page. The Persister methods take no context.

// ctxErr returns ctx's error, wrapped, when ctx is done.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return errorf("neardup: %w", err)
	}
	return nil
}

func matchWith(ctx context.Context, det Detector, d *Document) ([]Match, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	return det.Match(ctx, d)
}

func addWith(ctx context.Context, det Detector, d *Document) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return det.Add(ctx, d)
}

func verifyWith(ctx context.Context, v Verifier, d *Document, candidates []Match) ([]Match, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	return v.Verify(ctx, d, candidates)
}

func removeWith(ctx context.Context, r Remover, id string) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return r.Remove(ctx, id)
}
