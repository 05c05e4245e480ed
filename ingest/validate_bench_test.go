package ingest_test

import (
	"testing"

	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/ingest/ingesttest"
)

// BenchmarkValidateSample validates the sample data (input/) as ctool validate does: every check on
// every cell, the one for text addressed to an AI included.
func BenchmarkValidateSample(b *testing.B) {
	dir := ingesttest.SampleInput(b)
	b.ReportAllocs()
	for b.Loop() {
		res, err := ingest.Validate(dir, ingest.Options{})
		if err != nil || !res.Report.Valid() {
			b.Fatalf("the sample data does not validate: %v", err)
		}
	}
}
