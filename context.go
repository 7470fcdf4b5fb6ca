package neardup

import (
	"context"
)

// The helpers below call a stage after checking that ctx is not done
// (see Detector on contexts).

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
