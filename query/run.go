package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/schema"
)

// RowCap is the most rows a query returns; one more is read to know whether more matched.
const RowCap = schema.RowCap

// MaxResultBytes caps the text a result may carry: ten rows can still hold huge cells (list(),
// string_agg), and an agent's context is not the place for them.
const MaxResultBytes = 1 << 20

// Column is a result column.
type Column struct {
	Name string
	Type string // DuckDB's type name
}

// Sink receives a result: the columns, each row (values already converted to JSON-ready Go values),
// then whether more rows matched than were returned. Rows arrive once all are read and checked: at
// most RowCap of them.
type Sink interface {
	Begin(cols []Column) error
	Row(values []any) error
	End(count int, truncated bool) error
}

// SQLError is a query DuckDB refused or failed to run; its message is DuckDB's own.
type SQLError struct{ Message string }

func (e *SQLError) Error() string { return e.Message }

// Run checks sqlText with the guard, runs it with the row cap and streams the result into sink.
// Errors are *Rejection (refused by the guard), *SQLError (DuckDB's own message) or other failures.
func (d *DB) Run(ctx context.Context, dataset *schema.Dataset, sqlText string, sink Sink) error {
	if strings.TrimSpace(sqlText) == "" {
		return &Rejection{Refused: "empty query", Reason: "No SQL was given.", Hint: "Pass one SELECT statement, e.g. SELECT * FROM " + dataset.Table + " LIMIT 5."}
	}
	final, err := Check(ctx, d.conn, sqlText, DefaultPolicy(), RowCap)
	if err != nil {
		return err
	}
	if err := checkHidden(ctx, d.conn, dataset, sqlText); err != nil {
		return err
	}
	rows, err := d.conn.QueryContext(ctx, final)
	if err != nil {
		return sqlError(ctx, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return sqlError(ctx, err)
	}
	hidden := hiddenColumns(dataset)
	var cols []Column
	var keep []int
	for i, t := range types {
		if isHidden(t.Name(), hidden) {
			continue
		}
		cols = append(cols, Column{Name: t.Name(), Type: t.DatabaseTypeName()})
		keep = append(keep, i)
	}
	raw := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	var rowsRead [][]any
	size, truncated := 0, false
	for rows.Next() {
		if len(rowsRead) == RowCap {
			truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return sqlError(ctx, err)
		}
		values := make([]any, len(keep))
		for j, i := range keep {
			values[j] = jsonValue(raw[i], cols[j].Type)
			size += approxSize(values[j])
		}
		if size > MaxResultBytes {
			return &SQLError{Message: fmt.Sprintf("the result is too large (over %d KiB in %d rows): select fewer or shorter columns, or use left(column, 200)", MaxResultBytes>>10, len(rowsRead)+1)}
		}
		rowsRead = append(rowsRead, values)
	}
	if err := rows.Err(); err != nil {
		return sqlError(ctx, err)
	}
	if len(hidden) > 0 {
		// Dropping columns by name is not enough: a renamed, computed or nested copy of a hidden column
		// must not reach the results either, so its values are looked for in what is about to be shown.
		if err := d.checkHiddenValues(ctx, cols, rowsRead); err != nil {
			return err
		}
	}
	if err := sink.Begin(cols); err != nil {
		return err
	}
	for _, values := range rowsRead {
		if err := sink.Row(values); err != nil {
			return err
		}
	}
	return sink.End(len(rowsRead), truncated)
}

// isHidden matches a hidden column's name, including the store_id_1 DuckDB gives a second store_id.
func isHidden(name string, hidden map[string]bool) bool {
	name = strings.ToLower(name)
	if hidden[name] {
		return true
	}
	base := strings.TrimRight(name, "0123456789")
	return base != name && strings.HasSuffix(base, "_") && hidden[strings.TrimSuffix(base, "_")]
}

// checkHiddenValues refuses a result that shows a store id in any form.
func (d *DB) checkHiddenValues(ctx context.Context, cols []Column, rows [][]any) error {
	var ids []string
	r, err := d.conn.QueryContext(ctx, "SELECT DISTINCT store_id FROM stores WHERE store_id <> ''")
	if err != nil {
		return sqlError(ctx, err)
	}
	defer r.Close()
	for r.Next() {
		var id string
		if err := r.Scan(&id); err != nil {
			return sqlError(ctx, err)
		}
		ids = append(ids, id)
	}
	if err := r.Err(); err != nil {
		return sqlError(ctx, err)
	}
	for _, row := range rows {
		for j, v := range row {
			if containsAny(v, ids) {
				return &Rejection{Refused: "store_id values in column " + cols[j].Name,
					Reason: "store_id is internal to products and never appears in its results, under any name.",
					Hint:   "Use store_id only in WHERE or JOIN; show store_name instead."}
			}
		}
	}
	return nil
}

// containsAny reports whether a result value, or any string nested in it, contains one of ids.
func containsAny(v any, ids []string) bool {
	switch x := v.(type) {
	case string:
		for _, id := range ids {
			if strings.Contains(x, id) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if containsAny(e, ids) {
				return true
			}
		}
	case orderedObject:
		for _, m := range x {
			if containsAny(m.key, ids) || containsAny(m.value, ids) {
				return true
			}
		}
	}
	return false
}

func sqlError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &SQLError{Message: "the query was stopped: " + ctx.Err().Error() + "; make it cheaper (filter first, avoid large cross joins) or raise --timeout"}
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "Out of Memory Error") {
		// DuckDB suggests changing settings; an agent cannot, so say what it can do.
		msg += "\n(settings cannot be changed here: select fewer rows or shorter values, filter before aggregating)"
	}
	return &SQLError{Message: msg}
}

// hiddenColumns are the dataset's columns that never appear in its results.
func hiddenColumns(d *schema.Dataset) map[string]bool {
	hidden := map[string]bool{}
	for _, c := range d.Columns {
		if c.Hidden {
			hidden[strings.ToLower(c.Name)] = true
		}
	}
	return hidden
}

// checkHidden refuses a query that would show a hidden column under another name: rows drop hidden
// columns by name, so `SELECT store_id AS sid` must not get through. It reads the outermost select
// lists (both sides of a UNION too) from DuckDB's own parse.
func checkHidden(ctx context.Context, conn *sql.Conn, d *schema.Dataset, sqlText string) error {
	hidden := hiddenColumns(d)
	if len(hidden) == 0 {
		return nil
	}
	res, err := serializeText(ctx, conn, sqlText)
	if err != nil {
		return err
	}
	var stmt struct {
		Node json.RawMessage `json:"node"`
	}
	if res.Error || len(res.Statements) != 1 || json.Unmarshal(res.Statements[0], &stmt) != nil {
		return &SQLError{Message: "could not read the query's parse"}
	}
	return hiddenInSelect(stmt.Node, hidden)
}

func hiddenInSelect(raw json.RawMessage, hidden map[string]bool) error {
	var node struct {
		Type       string          `json:"type"`
		Left       json.RawMessage `json:"left"`
		Right      json.RawMessage `json:"right"`
		SelectList []struct {
			Class       string   `json:"class"`
			Alias       string   `json:"alias"`
			ColumnNames []string `json:"column_names"`
		} `json:"select_list"`
	}
	if err := json.Unmarshal(raw, &node); err != nil {
		return nil
	}
	if node.Type == "SET_OPERATION_NODE" {
		if err := hiddenInSelect(node.Left, hidden); err != nil {
			return err
		}
		return hiddenInSelect(node.Right, hidden)
	}
	for _, e := range node.SelectList {
		if e.Class != "COLUMN_REF" || len(e.ColumnNames) == 0 {
			continue
		}
		name := strings.ToLower(e.ColumnNames[len(e.ColumnNames)-1])
		if hidden[name] && e.Alias != "" && !strings.EqualFold(e.Alias, name) {
			return &Rejection{Refused: name + " AS " + e.Alias,
				Reason: name + " is internal to this dataset and never appears in its results.",
				Hint:   "Use " + name + " only in WHERE, JOIN or GROUP BY; show store_name instead."}
		}
	}
	return nil
}

// approxSize is roughly how many bytes a value takes in JSON.
func approxSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case json.Number:
		return len(x)
	case []any:
		n := 2
		for _, e := range x {
			n += approxSize(e) + 1
		}
		return n
	case orderedObject:
		n := 2
		for _, kv := range x {
			n += len(kv.key) + 4 + approxSize(kv.value)
		}
		return n
	default:
		return 8
	}
}
