// Command plainquery is the CLI query benchmark's baseline: the plainest Go program with the same
// driver that opens a ctool build read-only and runs one SELECT, printing the rows as JSON. It has no
// guard, no lock-down, no worker and no row cap; `ctool query` is measured against it.
//
//	plainquery bench/out/query-cli.duckdb "SELECT store_name FROM stores WHERE category = 'cafe'"
package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"

	"github.com/azabudai/ctool/query/querytest"
	"github.com/azabudai/ctool/textout"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: plainquery DB SQL")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "plainquery:", err)
		os.Exit(1)
	}
}

func run(path, query string) error {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		return err
	}
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
	return textout.JSON(os.Stdout, map[string]any{"results": results, "count": len(results)})
}
