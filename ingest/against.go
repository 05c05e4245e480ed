package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/schema"
)

// readAgainst reads the other side of a comparison: a built database file, or an input directory
// validated as input/ is. Call the snapshot's close when done with it.
func readAgainst(ctx context.Context, path string) (*snapshot, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, ctool.Errorf(ctool.KindIO, "--against %s: %v", path, err).WithHint("give a built ctool.duckdb or an input directory")
	}
	if info.IsDir() {
		snap := newSnapshot()
		res, err := Validate(path, Options{MaxErrors: 1, snap: snap})
		if err != nil {
			return nil, err
		}
		if !res.Report.Valid() {
			p := res.Report.Problems[0]
			return nil, ctool.Errorf(ctool.KindInvalidData, "--against %s is not valid (%s, the first: %s)", path, Problems(res.Report.Count), p).
				WithHint("compare against the last good input or build")
		}
		return snap, nil
	}
	return readBuild(ctx, path)
}

// readBuild reads every dataset's rows from a built database, opened read-only as every reader opens
// it, and keeps it open to fetch the keys of the rows a comparison names.
func readBuild(ctx context.Context, path string) (_ *snapshot, err error) {
	b, err := database.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	snap := newSnapshot()
	dbs := map[*table]*sql.DB{}
	for _, d := range schema.All() {
		db := b.DB()
		if d.Private {
			f, err := b.Profiles(ctx)
			if err != nil {
				return nil, err
			}
			db = f.DB()
		}
		t := snap.table(d)
		dbs[t] = db
		if err := readTable(ctx, db, t); err != nil {
			return nil, fmt.Errorf("--against %s: read %s: %w", path, d.Table, err)
		}
	}
	snap.keysOf = func(t *table, rows []int32) ([][]string, error) {
		return fetchKeys(ctx, dbs[t], t, rows)
	}
	snap.close = func() { b.Close() }
	return snap, nil
}

// readTable reads a table's rows as hashes that DuckDB computes: rowid, the key's hash, then a hash per
// column, in the table's order (a SELECT without ORDER BY keeps the order rows were inserted in).
func readTable(ctx context.Context, db *sql.DB, t *table) error {
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+database.QuoteIdent(t.d.Table)+" LIMIT 0")
	if err != nil {
		return err
	}
	names, err := rows.Columns()
	rows.Close()
	if err != nil {
		return err
	}
	t.columns(names)
	const low64 = " & 18446744073709551615::UHUGEINT AS UBIGINT)"
	text := func(col string) string { return "coalesce(CAST(" + database.QuoteIdent(col) + " AS VARCHAR), '')" }
	var key []string
	if t.fileKey {
		key = append(key, text("source_file"))
	}
	for _, k := range t.d.Key {
		key = append(key, text(k))
	}
	list := []string{"rowid", "CAST(md5_number(concat_ws(chr(31), " + strings.Join(key, ", ") + "))" + low64}
	var hashed []int // the schema columns DuckDB hashes; the others stay 0
	for j, c := range t.d.Columns {
		// A key column is equal in rows whose keys match: it is not hashed (0 on both sides).
		if t.present[j] && !slices.Contains(t.keyCols, j) {
			list = append(list, "CAST(md5_number("+text(c.Name)+")"+low64)
			hashed = append(hashed, j)
		}
	}
	var count int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+database.QuoteIdent(t.d.Table)).Scan(&count); err != nil {
		return err
	}
	t.keyHash = make([]uint64, 0, count)
	t.rowid = make([]int64, 0, count)
	t.hashes = make([]uint64, 0, count*len(t.d.Columns))
	rows, err = db.QueryContext(ctx, "SELECT "+strings.Join(list, ", ")+" FROM "+database.QuoteIdent(t.d.Table))
	if err != nil {
		return err
	}
	defer rows.Close()
	width := len(t.d.Columns)
	// Scanned as the driver's values and asserted here: scanning into *uint64 goes through reflection,
	// a tenth of the build side's CPU.
	got := make([]any, 2+len(hashed))
	dest := make([]any, len(got))
	for i := range got {
		dest[i] = &got[i]
	}
	cells := make([]uint64, width)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		rowid, ok := got[0].(int64)
		keyHash, ok2 := got[1].(uint64)
		if !ok || !ok2 {
			return fmt.Errorf("unexpected row %T %T", got[0], got[1])
		}
		t.addRow(keyHash)
		t.rowid = append(t.rowid, rowid)
		for i, j := range hashed {
			h, ok := got[2+i].(uint64)
			if !ok {
				return fmt.Errorf("unexpected hash %T", got[2+i])
			}
			cells[j] = h
		}
		t.hashes = append(t.hashes, cells...)
	}
	return rows.Err()
}

// fetchKeys reads the key values of a few rows of a table read from a database.
func fetchKeys(ctx context.Context, db *sql.DB, t *table, rows []int32) ([][]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, strconv.FormatInt(t.rowid[r], 10))
	}
	var cols []string
	for _, k := range t.d.Key {
		cols = append(cols, "coalesce(CAST("+database.QuoteIdent(k)+" AS VARCHAR), '')")
	}
	res, err := db.QueryContext(ctx, "SELECT rowid, "+strings.Join(cols, ", ")+" FROM "+database.QuoteIdent(t.d.Table)+
		" WHERE rowid IN ("+strings.Join(ids, ", ")+")")
	if err != nil {
		return nil, err
	}
	defer res.Close()
	byRowid := map[int64][]string{}
	for res.Next() {
		var id int64
		vals := make([]string, len(cols))
		dest := []any{&id}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := res.Scan(dest...); err != nil {
			return nil, err
		}
		byRowid[id] = vals
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = byRowid[t.rowid[r]]
	}
	return out, nil
}

// keyValues are the key values of rows, numbered when a key repeats.
func (s *snapshot) keyValues(t *table, rows []int32) [][]string {
	t.index() // numbers the occurrences of repeated keys
	var out [][]string
	if s.keysOf != nil {
		fetched, err := s.keysOf(t, rows)
		if err != nil {
			fetched = make([][]string, len(rows))
		}
		out = fetched
	} else {
		for _, r := range rows {
			start := uint32(0)
			if r > 0 {
				start = t.keyEnd[r-1]
			}
			vals := strings.Split(string(t.keyText[start:t.keyEnd[r]]), string(keySeparator))
			if t.fileKey {
				vals = vals[1:]
			}
			out = append(out, vals)
		}
	}
	for i, r := range rows {
		if t.occ == nil {
			break
		}
		if n := t.occ[r]; n > 1 && len(out[i]) > 0 {
			out[i] = slices.Clone(out[i])
			out[i][len(out[i])-1] += " (#" + strconv.Itoa(int(n)) + ")"
		}
	}
	return out
}
