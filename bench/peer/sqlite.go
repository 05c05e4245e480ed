// The SQLite copy of the build that the peer serves.

package main

import (
	"bufio"
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
// and structs their text, so that the benchmark's WHERE clauses mean the same on both engines. A typed
// relation (events_typed, products_typed) becomes a table holding the values ctool's build computes,
// whether the build stores them or computes them in a view, so both sides run the same SQL text.
func sqliteMain(args []string) error {
	fs := flag.NewFlagSet("sqlite", flag.ExitOnError)
	dbPath := fs.String("db", "", "the ctool build")
	out := fs.String("out", "", "the SQLite file to write (replaced)")
	list := fs.String("tables", strings.Join(tables, ","), "the build's relations to copy, comma-separated")
	var indexes []string
	fs.Func("index", "an index to create after the copy, as table(column); repeatable", func(s string) error {
		table, col, ok := strings.Cut(strings.TrimSuffix(s, ")"), "(")
		if !ok || table == "" || col == "" || !strings.HasSuffix(s, ")") {
			return fmt.Errorf("%q is not table(column)", s)
		}
		indexes = append(indexes, fmt.Sprintf("CREATE INDEX %s_%s ON %s (%s);\n", table, col, table, col))
		return nil
	})
	analyze := fs.Bool("analyze", false, "run ANALYZE after the copy, as a careful SQLite user would")
	fs.Parse(args)
	if *dbPath == "" || *out == "" {
		usage()
	}
	db, err := sql.Open("duckdb", *dbPath+"?access_mode=read_only")
	if err != nil {
		return err
	}
	defer db.Close()
	os.Remove(*out)
	// The script streams into sqlite3: a million rows of SQL would not fit comfortably in memory twice.
	cmd := exec.Command("sqlite3", *out)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	copyErr := func() error {
		w.WriteString("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\nBEGIN;\n")
		for _, t := range strings.Split(*list, ",") {
			if err := copyTable(db, t, w); err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
		}
		w.WriteString("COMMIT;\n")
		for _, ix := range indexes {
			w.WriteString(ix)
		}
		if *analyze {
			w.WriteString("ANALYZE;\n")
		}
		return w.Flush()
	}()
	stdin.Close()
	return errors.Join(copyErr, cmd.Wait())
}

func copyTable(db *sql.DB, table string, w *bufio.Writer) error {
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
