package ingest

import (
	"testing"
)

// TestUpcoming: the sample events' last one ends on 2027-03-20; "today" is set, never the real date.
func TestUpcoming(t *testing.T) {
	tests := []struct {
		today          string
		strict         bool
		errs, warnings int
	}{
		{"2025-09-01", false, 0, 0},
		{"2027-03-20", true, 0, 0}, // ends today: still upcoming
		{"2027-03-21", false, 0, 1},
		{"2027-03-21", true, 1, 0},
	}
	for _, tt := range tests {
		res, err := Validate("../input", Options{Contracts: &Contracts{MaxRemoved: 0.1, Strict: tt.strict, Today: tt.today}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Report.Count != tt.errs || res.Report.Warnings != tt.warnings {
			t.Errorf("today %s strict %v: %d errors, %d warnings; want %d and %d: %v", tt.today, tt.strict,
				res.Report.Count, res.Report.Warnings, tt.errs, tt.warnings, res.Report.Problems)
		}
		for _, p := range res.Report.Problems {
			if p.Rule != "upcoming" || p.Column != "date_time" || p.Warning() == tt.strict {
				t.Errorf("today %s: %+v", tt.today, p)
			}
		}
	}
}

// TestAgainstItself: the sample input compared with itself changes nothing and breaks no contract.
func TestAgainstItself(t *testing.T) {
	res, err := Validate("../input", Options{Contracts: &Contracts{Against: "../input", MaxRemoved: 0, Today: "2025-09-01"}})
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
