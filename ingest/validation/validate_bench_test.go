package validation_test

import (
	"path/filepath"
	"testing"

	"github.com/azabudai/ctool/ingest/validation"
)

// BenchmarkValidateSample validates the sample data (input/) as ctool validate does: every check on
// every cell, the one for text addressed to an AI included.
func BenchmarkValidateSample(b *testing.B) {
	dir := filepath.Join("..", "..", "input") // the sample data
	b.ReportAllocs()
	for b.Loop() {
		res, err := validation.Run(dir, validation.Options{})
		if err != nil || !res.Report.Valid() {
			b.Fatalf("the sample data does not validate: %v", err)
		}
	}
}
