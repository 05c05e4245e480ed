package benchkit

import (
	"database/sql"
	"encoding/json"
	"io"

	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query/querytest"
)

// PrintRows writes rows as ctool query prints a result, {"results": [...], "count": N}, so that a plain
// program's work compares with ctool's, printing included.
func PrintRows(w io.Writer, rows *sql.Rows) error {
	cols, values, err := querytest.Rows(rows)
	if err != nil {
		return err
	}
	// Ordered pairs rather than a map keep the columns in SELECT order, as ctool prints them.
	var results []json.RawMessage
	for _, vals := range values {
		obj := []byte{'{'}
		for i, c := range cols {
			k, _ := textout.Marshal(c)
			v, err := textout.Marshal(vals[i])
			if err != nil {
				return err
			}
			if i > 0 {
				obj = append(obj, ',')
			}
			obj = append(append(append(obj, k...), ':'), v...)
		}
		results = append(results, append(obj, '}'))
	}
	return textout.JSON(w, map[string]any{"results": results, "count": len(results)})
}
