package profile

import (
	"testing"
)

func TestProfileOf(t *testing.T) {
	row := func(age, visits any) []any {
		return []any{"u1", age, "f", "resident", "S1", "Cafe", visits, "likes tea"}
	}
	p, err := profileOf(row(int32(31), int64(4)))
	if err != nil || p.Age == nil || *p.Age != 31 || p.Visits == nil || *p.Visits != 4 || p.Narrative != "likes tea" {
		t.Errorf("profileOf = %+v, %v", p, err)
	}
	// A NULL number is unknown: its cell could not be read as a number, a warning at ingest.
	if p, err := profileOf(row(nil, int32(1))); err != nil || p.Age != nil || p.Visits == nil {
		t.Errorf("profileOf with a NULL age = %+v, %v", p, err)
	}
	for _, bad := range [][]any{
		row("31", int32(1)), // a string where a number belongs
		row(int32(1), 1.5),  // a float
		{nil, int32(1), "f", "r", "S", "C", int32(1), "n"}, // NULL id
	} {
		if _, err := profileOf(bad); err == nil {
			t.Errorf("profileOf(%v) accepted it", bad)
		}
	}
}
