// The SQLite copy of the build that the peer serves.

package main

import (
	"bytes"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"
)

// sqliteMain writes the SQLite copy by piping SQL to the sqlite3 command: booleans become 0/1, lists
// and structs their text, so that the benchmark's WHERE clauses mean the same on both engines.
func sqliteMain(args []string) error {
	fs := flag.NewFlagSet("sqlite", flag.ExitOnError)
	dbPath := fs.String("db", "", "the ctool build")
	out := fs.String("out", "", "the SQLite file to write (replaced)")
	fs.Parse(args)
	if *dbPath == "" || *out == "" {
		usage()
	}
	db, err := sql.Open("duckdb", *dbPath+"?access_mode=read_only")
	if err != nil {
		return err
	}
	defer db.Close()
	var script bytes.Buffer
	script.WriteString("PRAGMA journal_mode=OFF;\nBEGIN;\n")
	for _, t := range tables {
		if err := copyTable(db, t, &script); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	script.WriteString("COMMIT;\n")
	os.Remove(*out)
	cmd := exec.Command("sqlite3", *out)
	cmd.Stdin = &script
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	return cmd.Run()
}

func copyTable(db *sql.DB, table string, w *bytes.Buffer) error {
	rows, err := db.Query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position", table)
	if err != nil {
		return err
	}
	var cols, exprs, defs []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return err
		}
		q := `"` + name + `"`
		cols = append(cols, q)
		switch {
		case typ == "BOOLEAN":
			exprs, defs = append(exprs, "CAST("+q+" AS INTEGER)"), append(defs, q+" INTEGER")
		case typ == "INTEGER" || typ == "BIGINT" || typ == "SMALLINT":
			exprs, defs = append(exprs, "CAST("+q+" AS BIGINT)"), append(defs, q+" INTEGER")
		case typ == "DOUBLE" || typ == "FLOAT" || strings.HasPrefix(typ, "DECIMAL"):
			exprs, defs = append(exprs, "CAST("+q+" AS DOUBLE)"), append(defs, q+" REAL")
		default:
			exprs, defs = append(exprs, "CAST("+q+" AS VARCHAR)"), append(defs, q+" TEXT")
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	if len(cols) == 0 {
		return errors.New("no such table in the build")
	}
	fmt.Fprintf(w, "CREATE TABLE %s (%s);\n", table, strings.Join(defs, ", "))
	rows, err = db.Query("SELECT " + strings.Join(exprs, ", ") + " FROM " + table)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		lits := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				lits[i] = "NULL"
			case int32, int64:
				lits[i] = fmt.Sprint(v)
			case float64:
				lits[i] = strconv.FormatFloat(v, 'g', -1, 64)
			case string:
				lits[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			default:
				return fmt.Errorf("unexpected %T", v)
			}
		}
		fmt.Fprintf(w, "INSERT INTO %s VALUES (%s);\n", table, strings.Join(lits, ", "))
	}
	return rows.Err()
}

// query is one of the compared queries: SQL with a %d where a literal varies, so that no two calls send
// the same text, and the tool and argument each server answers it with.
type query struct {
	name string
	sql  string
}

var queries = []query{
	{"stores", "SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'"},
	{"events (ORDER BY)", "SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> 'X-%d' ORDER BY start_date"},
	{"products", "SELECT product_name, product_description FROM products WHERE product_description LIKE '%%1,000円%%' AND product_name <> 'X-%d'"},
}
