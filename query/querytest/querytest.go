// Package querytest holds what tests and benchmarks share to read query results: every row of a
// database/sql result, and the JSON answer of `ctool query --format json` and the search tools.
package querytest

import "database/sql"

// Doc is the JSON answer of `ctool query --format json` and of the MCP search tools (their structured
// content); Error is set only on `ctool query`'s error document.
type Doc struct {
	Results   []map[string]any `json:"results"`
	Count     *int             `json:"count"`
	Truncated *bool            `json:"truncated"`
	Message   string           `json:"message"`
	Hint      string           `json:"hint"`
	Note      string           `json:"note"`
	Error     *string          `json:"error"`
}

// Rows reads every row of rows, each value as the driver gives it, and closes rows.
func Rows(rows *sql.Rows) (cols []string, out [][]any, err error) {
	defer rows.Close()
	if cols, err = rows.Columns(); err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
	}
	return cols, out, rows.Err()
}
