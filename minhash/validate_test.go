package minhash

import (
	"errors"
	"strconv"
	"testing"

	"github.com/neardup/neardup"
)

// TestSketchOfClamps: a k above MaxSketchSize is lowered to it and k < 1
// raised to 1 (minhash/internal/sketch's TestBuilderClampsK checks that
// the Builder allocates by the k clamped).
func TestSketchOfClamps(t *testing.T) {
	words := make([]string, 1000)
	for i := range words {
		words[i] = "w" + strconv.Itoa(i)
	}
	if s := SketchOf(words, 1<<22, 1); len(s) != MaxSketchSize {
		t.Errorf("SketchOf(1000 words, 1<<22, 1) has %d hashes, want MaxSketchSize", len(s))
	}
	if s := SketchOf(words, 0, 0); len(s) != 1 {
		t.Errorf("SketchOf(1000 words, 0, 0) has %d hashes, want 1", len(s))
	}
}

// TestNegativeOptions: a negative TemplatePages or MaxPostings other than
// its named constant is invalid (it was taken as "off" or "no bound").
func TestNegativeOptions(t *testing.T) {
	for _, o := range []Options{{TemplatePages: -3}, {TemplatePages: -2}, {MaxPostings: -2}, {MaxPostings: -100}} {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	for _, o := range []Options{{TemplatePages: NoTemplates}, {MaxPostings: NoLimit}, {TemplatePages: NoTemplates, MaxPostings: NoLimit}} {
		det, err := New(o)
		if err != nil {
			t.Errorf("New(%+v): %v", o, err)
			continue
		}
		if got := det.Options(); got.TemplatePages != o.TemplatePages && o.TemplatePages != 0 || got.MaxPostings != o.MaxPostings && o.MaxPostings != 0 {
			t.Errorf("New(%+v).Options() = %+v: the named constant is not kept", o, got)
		}
	}
}
