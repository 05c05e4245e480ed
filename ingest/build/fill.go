package build

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
	"github.com/duckdb/duckdb-go/v2"
)

// fill computes the stored relations of a main database from its tables: first the values Go computes
// (migrations/derive.go), those given and the rest, then each relation that ctool_meta.derived lists
// is emptied and written again from the view that derives it, in the listed order. Call it once, when
// the tables hold their final rows (after the load and any rewrite of their cells): queries read what
// fill stored, never the tables' JSON and text again.
func fill(ctx context.Context, db *sql.DB, given migrations.Given) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := fillComputed(ctx, conn, given); err != nil {
		return err
	}
	pairs, err := derived(ctx, conn)
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, p := range pairs {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`DELETE FROM %s; INSERT INTO %s SELECT * FROM %s`, p.target, p.target, p.source)); err != nil {
			return fmt.Errorf("fill %s: %w", p.target, err)
		}
	}
	return tx.Commit()
}

type derivation struct{ target, source string }

// derived reads what fill copies. The names come from the migrations, never from input; each is
// still quoted part by part.
func derived(ctx context.Context, conn *sql.Conn) ([]derivation, error) {
	rows, err := conn.QueryContext(ctx, `SELECT target, source FROM ctool_meta.derived ORDER BY position`)
	if err != nil {
		return nil, fmt.Errorf("read ctool_meta.derived: %w", err)
	}
	defer rows.Close()
	var out []derivation
	for rows.Next() {
		var d derivation
		if err := rows.Scan(&d.target, &d.source); err != nil {
			return nil, err
		}
		d.target, d.source = quoteQualified(d.target), quoteQualified(d.source)
		out = append(out, d)
	}
	return out, rows.Err()
}

// quoteQualified quotes schema.name as two identifiers.
func quoteQualified(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = schema.QuoteIdent(p)
	}
	return strings.Join(parts, ".")
}

// fillComputed writes the Go-computed tables of ctool_derive (and ctool_meta) on conn: the rows the
// functions of migrations/derive.go make of the cells read here (derive.go).
func fillComputed(ctx context.Context, conn *sql.Conn, given migrations.Given) error {
	prices := given.Prices
	var rows int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM main.products`).Scan(&rows); err != nil {
		return err
	}
	if prices == nil {
		var err error
		if prices, err = pricesOf(ctx, conn); err != nil {
			return err
		}
	}
	// The join is by position: one price per products row, in the table's order.
	if len(prices) != rows {
		return fmt.Errorf("fill products_typed: %d prices for %d products rows", len(prices), rows)
	}
	if err := appendRows(ctx, conn, "product_prices", len(prices), func(i int) []any { return prices[i].Values() }); err != nil {
		return err
	}
	if err := fillUnknown(ctx, conn, given.Unknown); err != nil {
		return err
	}
	holidays := migrations.HolidayRows()
	if err := appendRowsTo(ctx, conn, "ctool_meta", "public_holidays", len(holidays), func(i int) []any { return holidays[i] }); err != nil {
		return err
	}
	for _, c := range []struct {
		table string
		rows  func(context.Context, *sql.Conn) ([][]any, error)
	}{
		{"hours", hoursOf},
		{"store_offers", offersOf},
		{"event_weekdays", eventWeekdaysOf},
		{"event_stores", eventStoresOf},
	} {
		rows, err := c.rows(ctx, conn)
		if err != nil {
			return err
		}
		if err := appendRows(ctx, conn, c.table, len(rows), func(i int) []any { return rows[i] }); err != nil {
			return err
		}
	}
	return nil
}

// appendRows appends n rows to a table of ctool_derive through DuckDB's appender.
func appendRows(ctx context.Context, conn *sql.Conn, table string, n int, row func(i int) []any) error {
	return appendRowsTo(ctx, conn, "ctool_derive", table, n, row)
}

// appendRowsTo is appendRows into a table of another schema.
func appendRowsTo(ctx context.Context, conn *sql.Conn, schemaName, table string, n int, row func(i int) []any) error {
	return conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppender(dc.(driver.Conn), "", schemaName, table)
		table := schemaName + "." + table // for the errors
		if err != nil {
			return fmt.Errorf("fill %s: %w", table, err)
		}
		var values []driver.Value // one row's, as the appender takes them (it copies them)
		for i := 0; i < n; i++ {
			values = values[:0]
			for _, v := range row(i) {
				values = append(values, v)
			}
			if err := a.AppendRow(values...); err != nil {
				a.Close()
				return fmt.Errorf("fill %s: %w", table, err)
			}
		}
		if err := a.CloseWithCancel(ctx); err != nil {
			return fmt.Errorf("fill %s: %w", table, err)
		}
		return nil
	})
}

// fillUnknown records the cells validation could not type (ctool_meta.unknown_cells) and writes the
// masks the *_known views read: one row per row of events and stores, listing its unknown columns.
func fillUnknown(ctx context.Context, conn *sql.Conn, cells []migrations.UnknownCell) error {
	if err := appendRowsTo(ctx, conn, "ctool_meta", "unknown_cells", len(cells), func(i int) []any { return cells[i].Values() }); err != nil {
		return err
	}
	for _, m := range []struct{ table, count string }{
		{"events", `SELECT count(*) FROM main.events`},
		{"stores", `SELECT count(*) FROM main.stores`},
	} {
		var rows int
		if err := conn.QueryRowContext(ctx, m.count).Scan(&rows); err != nil {
			return err
		}
		masks := migrations.UnknownMasks(cells, m.table, rows)
		if err := appendRows(ctx, conn, m.table+"_unknown", rows, func(i int) []any { return masks[i] }); err != nil {
			return err
		}
	}
	return nil
}
