// Command csvquery is the query benchmark's baseline: the seeds' old approach, where every call opens
// a fresh in-memory DuckDB and reads the CSV file again (with type sniffing) to answer one query, then
// prints the rows as JSON. ctool query answers from a prebuilt database file instead.
//
//	csvquery DIR "SELECT product_name FROM read_csv('DIR/filtered_product_data.csv') WHERE ... LIMIT 10"
//
// DIR is DuckDB's file_search_path, so the seeds' own form FROM 'events.csv' works as well as a path.
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/azabudai/ctool/bench/internal/benchkit"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: csvquery DIR SQL")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "csvquery:", err)
		os.Exit(1)
	}
}

func run(dir, query string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	// One connection, so the setting below applies to the query.
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("SET file_search_path = '" + strings.ReplaceAll(dir, "'", "''") + "'"); err != nil {
		return err
	}
	rows, err := db.Query(query)
	if err != nil {
		return err
	}
	return benchkit.PrintRows(os.Stdout, rows)
}
