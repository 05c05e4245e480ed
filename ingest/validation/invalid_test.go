package validation

import (
	"errors"
	"testing"

	"github.com/azabudai/ctool/internal/fault"
)

func TestInvalidErrorIsInvalidData(t *testing.T) {
	var err error = &InvalidError{Dir: "in", Result: &Result{Report: &Report{Count: 2}}}
	ce := fault.Explain(err)
	var inv *InvalidError
	if ce.Kind != fault.KindInvalidData || ce.Message != "2 problems in in; the database was not changed" || !errors.As(ce, &inv) {
		t.Errorf("got %+v, want invalid_data that still carries the report", ce)
	}
}
