//go:build darwin && walkaround

package walkaround

import (
	"context"

	"github.com/duckdb/duckdb-go/v2"
)

// OnlyOnDarwin is never compiled on the machine that runs the tests: a fence that loads the files of
// one platform and no tags never sees it.
func OnlyOnDarwin(ctx context.Context) error {
	_, err := duckdb.NewConnector("", nil)
	return err
}
