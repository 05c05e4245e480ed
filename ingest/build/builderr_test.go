package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/duckdb/duckdb-go/v2"
)

func TestBuildFailedKinds(t *testing.T) {
	usage := &fault.Error{Kind: fault.KindUsage, Message: "m"}
	for _, c := range []struct {
		err       error
		committed bool
		kind      fault.Kind
	}{
		{&fs.PathError{Op: "open", Path: "p", Err: fs.ErrPermission}, false, fault.KindIO},
		{fmt.Errorf("finish: %w", &os.LinkError{Op: "rename", Old: "a", New: "b", Err: fs.ErrExist}), false, fault.KindIO},
		{os.NewSyscallError("fsync", fs.ErrInvalid), true, fault.KindIO},
		{&duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: disk full"}, false, fault.KindIO},
		{fmt.Errorf("load: %w", context.DeadlineExceeded), false, fault.KindTimeout},
		{errors.New("load x: DuckDB read 2 rows, validation read 3"), false, fault.KindInternal},
		{&duckdb.Error{Type: duckdb.ErrorTypeConversion, Msg: "Conversion Error"}, false, fault.KindInternal},
		{usage, false, fault.KindUsage},
	} {
		err := buildFailed(c.err, c.committed)
		ce := fault.Explain(err)
		if ce.Kind != c.kind || !errors.Is(err, c.err) {
			t.Errorf("%v: kind %s, want %s, keeping the cause", c.err, ce.Kind, c.kind)
		}
	}
}
