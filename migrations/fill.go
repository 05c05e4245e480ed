package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Fill computes the stored relations of a main database from its tables: first the values Go computes
// (derive.go), those given and the rest, then each relation that ctool_meta.derived lists is emptied
// and written again from the view that derives it, in the listed order. Call it once, when the tables
// hold their final rows (after the load and any rewrite of their cells): queries read what Fill
// stored, never the tables' JSON and text again.
func Fill(ctx context.Context, db *sql.DB, given Given) error {
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

// derived reads what Fill copies. The names come from the migrations, never from input; each is
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
		parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(parts, ".")
}
