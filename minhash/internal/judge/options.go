package judge

import (
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash/internal/sketch"
)

// Defaults of Options: minhash's, which documents them (its
// TestDefaults checks that the two agree).
const (
	DefaultContentDistance  = 0.62
	DefaultPageDistance     = 0.5
	DefaultContentGuard     = 0.7
	DefaultHostPageDistance = 0.55
	DefaultTemplatePages    = 3
	DefaultSketchSize       = 128
	DefaultPageSketchSize   = 128
	DefaultShingleWidth     = 4
	DefaultKeys             = 8
	DefaultMaxPostings      = 256
)

// Named negative values of options, whose zero means their default.
const (
	NoLimit     = -1 // Options.MaxPostings: no bound
	NoTemplates = -1 // Options.TemplatePages: no template model
)

// Options are minhash.Options, field for field, so that one converts to the
// other (judge.Options(o)); package minhash documents the fields.
type Options struct {
	ContentDistance            float64
	PageDistance, ContentGuard float64
	HostPageDistance           float64
	TemplatePages              int
	SketchSize, PageSketchSize int
	ShingleWidth               int
	Keys, MaxPostings          int
}

// Resolve returns o with the defaults filled in, or an error wrapping
// neardup.ErrInvalidOption for a field out of range. The rules (Near, Rule,
// Page) and the Judge take resolved options.
func (o Options) Resolve() (Options, error) {
	def := func(x *float64, d float64) {
		if *x == 0 {
			*x = d
		}
	}
	def(&o.ContentDistance, DefaultContentDistance)
	def(&o.PageDistance, DefaultPageDistance)
	def(&o.ContentGuard, DefaultContentGuard)
	def(&o.HostPageDistance, DefaultHostPageDistance)
	for _, x := range []float64{o.ContentDistance, o.PageDistance, o.ContentGuard, o.HostPageDistance} {
		if !(x > 0 && x <= 1) {
			return o, fmt.Errorf("minhash: Options: distance %v not in (0, 1]: %w", x, neardup.ErrInvalidOption)
		}
	}
	defInt := func(x *int, d int) {
		if *x == 0 {
			*x = d
		}
	}
	defInt(&o.TemplatePages, DefaultTemplatePages)
	defInt(&o.SketchSize, DefaultSketchSize)
	defInt(&o.PageSketchSize, DefaultPageSketchSize)
	defInt(&o.ShingleWidth, DefaultShingleWidth)
	defInt(&o.Keys, DefaultKeys)
	defInt(&o.MaxPostings, DefaultMaxPostings)
	for _, k := range []int{o.SketchSize, o.PageSketchSize} {
		if k < 1 || k > sketch.MaxSize {
			return o, fmt.Errorf("minhash: Options: sketch size %d not in 1..%d: %w", k, sketch.MaxSize, neardup.ErrInvalidOption)
		}
	}
	if o.ShingleWidth < 1 || o.ShingleWidth > 16 {
		return o, fmt.Errorf("minhash: Options.ShingleWidth = %d not in 1..16: %w", o.ShingleWidth, neardup.ErrInvalidOption)
	}
	if o.Keys < 1 || o.Keys > o.SketchSize {
		return o, fmt.Errorf("minhash: Options.Keys = %d not in 1..SketchSize: %w", o.Keys, neardup.ErrInvalidOption)
	}
	if o.TemplatePages < 0 && o.TemplatePages != NoTemplates {
		return o, fmt.Errorf("minhash: Options.TemplatePages = %d, want NoTemplates, 0 or more: %w", o.TemplatePages, neardup.ErrInvalidOption)
	}
	if o.MaxPostings < 0 && o.MaxPostings != NoLimit {
		return o, fmt.Errorf("minhash: Options.MaxPostings = %d, want NoLimit, 0 or more: %w", o.MaxPostings, neardup.ErrInvalidOption)
	}
	return o, nil
}
