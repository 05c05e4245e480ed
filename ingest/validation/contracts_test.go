package validation

import (
	"strings"
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
		res, err := Run("../../input", Options{Contracts: &Contracts{MaxRemoved: 0.1, Strict: tt.strict, Today: tt.today}})
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

func TestPercent(t *testing.T) {
	for share, want := range map[float64]string{0.1: "10%", 0.5: "50%", 0.125: "12.5%", 0.5057: "50.6%", 0: "0%"} {
		if got := percent(share); got != want {
			t.Errorf("percent(%v) = %q, want %q", share, got, want)
		}
	}
}

// Without OpenPrevious, nothing can read the build Contracts.Against names: Run says so, rather than
// validate without the comparison.
func TestAgainstNeedsOpenPrevious(t *testing.T) {
	_, err := Run("../../input", Options{Contracts: &Contracts{Against: "../../input"}})
	if err == nil || !strings.Contains(err.Error(), "OpenPrevious") {
		t.Errorf("err %v, want one naming OpenPrevious", err)
	}
}
