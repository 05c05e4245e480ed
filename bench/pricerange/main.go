// Command pricerange times one SELECT in plain DuckDB (database/sql and the duckdb driver, no guard, no
// worker) on a build opened read-only, with a given number of threads: the engine's part of a query,
// which bench/results/price-order.md compares between orders of products_typed. `%d` in the statement
// changes with every call, as in the peer benchmark; a statement holding `%d` is a format, so its other
// percent signs are written `%%` (LIKE '%%柚子%%').
//
//	pricerange -db X.duckdb -threads 1 -n 200 "SELECT ... WHERE product_name <> 'X-%d' ..."
//	pricerange -db copy.duckdb -exec "CREATE TABLE ... AS ..."
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

func main() {
	path := flag.String("db", "", "the build")
	threads := flag.Int("threads", 1, "DuckDB threads")
	dsn := flag.String("dsn", "", "more DuckDB settings for the read-only open, as URL query text (memory_limit=64MB)")
	n := flag.Int("n", 200, "timed calls")
	show := flag.Bool("show", false, "print the rows of the last call")
	exec := flag.Bool("exec", false, "open the file read-write and run SQL once, untimed (to make a variant of a build)")
	flag.Parse()
	if *path == "" || flag.NArg() != 1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: pricerange -db X.duckdb [-threads N] [-n N] SQL")
		os.Exit(2)
	}
	printRows = *show
	run := run
	if *exec {
		run = execute
	}
	settings := fmt.Sprintf("threads=%d", *threads)
	if *dsn != "" {
		settings += "&" + *dsn
	}
	if err := run(*path, settings, *n, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "pricerange:", err)
		os.Exit(1)
	}
}

var printRows bool // -show

func run(path, settings string, n int, query string) error {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only&"+settings)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	call := func(i int) (int, error) {
		q := query
		if strings.Contains(q, "%d") {
			q = fmt.Sprintf(q, i)
		}
		rows, err := db.Query(q)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for j := range vals {
			ptrs[j] = &vals[j]
		}
		got := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return 0, err
			}
			got++
			if printRows && i == n-1 {
				fmt.Println(vals...)
			}
		}
		return got, rows.Err()
	}
	for i := 0; i < 10; i++ { // untimed
		if _, err := call(-i - 1); err != nil {
			return err
		}
	}
	times := make([]time.Duration, n)
	got := 0
	for i := range times {
		start := time.Now()
		if got, err = call(i); err != nil {
			return err
		}
		times[i] = time.Since(start)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("p50 %.2f ms  min %.2f ms  p90 %.2f ms  rows %d  calls %d  %s\n",
		ms(times[n/2]), ms(times[0]), ms(times[n*9/10]), got, n, settings)
	return nil
}

func execute(path, settings string, _ int, query string) error {
	db, err := sql.Open("duckdb", path+"?"+settings)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	if _, err := db.Exec(query); err != nil {
		return err
	}
	fmt.Printf("ran in %.2f s\n", time.Since(start).Seconds())
	return nil
}
