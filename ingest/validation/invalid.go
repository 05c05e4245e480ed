package validation

import (
	"fmt"

	"github.com/azabudai/ctool/internal/fault"
)

// InvalidError is input data that failed validation: nothing was built, and the report says where.
// errors.As finds it as a *fault.Error of kind invalid_data too.
type InvalidError struct {
	Dir string // the input directory
	*Result
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%s in %s; the database was not changed", Problems(e.Report.Count), e.Dir)
}

// As lets errors.As see the error as the *fault.Error every command returns.
func (e *InvalidError) As(target any) bool {
	t, ok := target.(**fault.Error)
	if ok {
		*t = &fault.Error{Kind: fault.KindInvalidData, Message: e.Error(), Err: e}
	}
	return ok
}
