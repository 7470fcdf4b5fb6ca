//go:build !extractors

package main

// optionalFamilies is the families built only with a build tag: none
// without -tags extractors (see method_extract.go).
func optionalFamilies() []family { return nil }
