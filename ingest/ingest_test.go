package ingest_test

import (
	"testing"

	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/ingest/validation"
)

// TestAgainstItself: the sample input compared with itself changes nothing and breaks no contract.
func TestAgainstItself(t *testing.T) {
	res, err := ingest.Validate("../input", validation.Options{Contracts: &validation.Contracts{Against: "../input", MaxRemoved: 0, Today: "2025-09-01"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Report.Valid() || res.Report.Comparison == nil {
		t.Fatalf("report %+v", res.Report)
	}
	for _, ch := range res.Report.Comparison.Datasets {
		if !ch.Compared || ch.Rows != ch.WasRows || ch.Rows == 0 || ch.Added+ch.Removed+ch.Changed != 0 {
			t.Errorf("%+v", ch)
		}
	}
}
