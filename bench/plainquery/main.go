// Command plainquery is the CLI query benchmark's baseline: the plainest Go program with the same
// driver that opens a ctool build read-only and runs one SELECT, printing the rows as JSON. It has no
// guard, no lock-down, no worker and no row cap; `ctool query` is measured against it.
//
//	plainquery bench/out/query-cli.duckdb "SELECT store_name FROM stores WHERE category = 'cafe'"
package main

import (
	"database/sql"
	"fmt"
	"os"

	"github.com/azabudai/ctool/bench/internal/benchkit"
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
	return benchkit.PrintRows(os.Stdout, rows)
}
