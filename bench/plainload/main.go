// Command plainload is the ingest benchmark's baseline: the plainest way to put a CSV file into a
// DuckDB file, with no validation and no cross-checks. ctool ingest is measured against it.
//
//	plainload DIR/filtered_product_data.csv bench/out/plain.duckdb
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: plainload CSV DB")
		os.Exit(2)
	}
	if err := load(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "plainload:", err)
		os.Exit(1)
	}
}

func load(csvPath, dbPath string) error {
	// A fresh file each time, as ctool ingest builds one: an old table would make CREATE fail anyway.
	if _, err := os.Stat(dbPath); err == nil {
		return fmt.Errorf("%s exists; delete it first", dbPath)
	}
	db, err := sql.Open("duckdb", dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	// all_varchar matches ctool's all-text tables; the path is a literal because table functions
	// take no bound parameters here.
	path := "'" + strings.ReplaceAll(csvPath, "'", "''") + "'"
	if _, err := db.Exec("CREATE TABLE products AS SELECT * FROM read_csv(" + path + ", header = true, all_varchar = true)"); err != nil {
		return err
	}
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM products").Scan(&n); err != nil {
		return err
	}
	// Closing checkpoints the file, so the timed run includes writing it out, as ctool's does.
	if err := db.Close(); err != nil {
		return err
	}
	fmt.Printf("plainload: %d rows into %s\n", n, dbPath)
	return nil
}
