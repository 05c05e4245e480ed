// The floor: plain DuckDB on ctool's build, in this process, with nothing between the SQL and the engine.

package main

import (
	"database/sql"
	"encoding/json"
	"fmt"

	_ "github.com/duckdb/duckdb-go/v2"
)

// floor runs a query's text on ctool's build file through database/sql, opened read-only: no guard, no
// worker, no row cap, no JSON. DuckDB lets a process open a file once per configuration, so the floors
// of different thread counts share one instance and each sets its count before its block.
type floor struct {
	db      *sql.DB
	threads int
}

func openFloor(path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, db.Ping()
}

func (f floor) begin() error {
	_, err := f.db.Exec(fmt.Sprintf("SET threads = %d", f.threads))
	return err
}

// run executes text and reads every row, the least any client does.
func (f floor) run(text string) (rows int, err error) {
	err = f.each(text, func([]string, []any) error { rows++; return nil })
	return rows, err
}

// rows returns the answer as JSON values, as the servers' answers decode, for the same-rows check.
func (f floor) rows(text string) ([]map[string]any, error) {
	var out []map[string]any
	err := f.each(text, func(cols []string, vals []any) error {
		row := map[string]any{}
		for i, v := range vals {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			var j any
			if err := json.Unmarshal(b, &j); err != nil {
				return err
			}
			row[cols[i]] = j
		}
		out = append(out, row)
		return nil
	})
	return out, err
}

func (f floor) each(text string, fn func(cols []string, vals []any) error) error {
	rs, err := f.db.Query(text)
	if err != nil {
		return err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(cols, vals); err != nil {
			return err
		}
	}
	return rs.Err()
}
