package changes

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// readAgainst reads the other side of a comparison: a built database file, or an input directory
// validated as input/ is. With publicOnly a database's profiles file is not opened, and its profiles
// are not compared. Call the snapshot's close when done with it.
func readAgainst(ctx context.Context, path string, publicOnly bool) (*snapshot, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fault.Errorf(fault.KindIO, "--against %s: %v", path, err).WithHint("give a built ctool.duckdb or an input directory")
	}
	if info.IsDir() {
		fp := &fingerprinter{snap: newSnapshot()}
		res, err := validation.Run(path, validation.Options{MaxErrors: 1, Observe: fp.record})
		fp.flush() // every row validation read is fingerprinted
		if err != nil {
			return nil, err
		}
		if !res.Report.Valid() {
			p := res.Report.Problems[0]
			return nil, fault.Errorf(fault.KindInvalidData, "--against %s is not valid (%s, the first: %s)", path, validation.Problems(res.Report.Count), p).
				WithHint("compare against the last good input or build")
		}
		return fp.snap, nil
	}
	return readBuild(ctx, path, publicOnly)
}

// readBuild reads every dataset's rows from a built database, opened read-only as every reader opens
// it, and keeps it open to fetch the keys and values of the rows a comparison names. With publicOnly
// the profiles file is never opened.
func readBuild(ctx context.Context, path string, publicOnly bool) (_ *snapshot, err error) {
	b, err := database.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	snap := newSnapshot()
	// One connection to each file for the whole comparison: the keys are fetched on it later.
	main, err := b.Conn(ctx)
	if err != nil {
		return nil, err
	}
	conns := []*database.Conn{main}
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
		b.Close()
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	byTable := map[*table]*database.Conn{}
	for _, d := range schema.All() {
		conn := main
		if d.Private && publicOnly {
			continue
		}
		if d.Private {
			f, err := b.Profiles(ctx)
			if err != nil {
				return nil, err
			}
			if conn, err = f.Conn(ctx); err != nil {
				return nil, err
			}
			conns = append(conns, conn)
		}
		t := snap.table(d)
		byTable[t] = conn
		if err := readTable(ctx, conn, t); err != nil {
			return nil, fmt.Errorf("--against %s: read %s: %w", path, d.Table, err)
		}
	}
	snap.keysOf = func(t *table, rows []int32) ([][]string, error) {
		return fetchKeys(ctx, byTable[t], t, rows)
	}
	snap.valuesOf = func(t *table, rows []int32) ([][]string, error) {
		return fetchValues(ctx, byTable[t], t, rows)
	}
	snap.derivedOf = func(t *table, rows []int32) ([]map[string]string, error) {
		return fetchDerived(ctx, byTable[t], t, rows)
	}
	snap.close = closeAll
	return snap, nil
}

// readTable reads a table's rows as hashes that DuckDB computes: rowid, the key's hash, then a hash per
// column, in the table's order (a SELECT without ORDER BY keeps the order rows were inserted in).
func readTable(ctx context.Context, conn *database.Conn, t *table) error {
	table := guard.MustIdent(t.d.Table)
	rows, err := conn.Query(ctx, guard.Format("SELECT * FROM %s LIMIT 0", table))
	if err != nil {
		return err
	}
	names, err := rows.Columns()
	rows.Close()
	if err != nil {
		return err
	}
	t.columns(names)
	hash := func(text guard.SQL) guard.SQL {
		return guard.Format("CAST(md5_number(%s) & 18446744073709551615::UHUGEINT AS UBIGINT)", text)
	}
	var key []guard.SQL
	if t.fileKey {
		key = append(key, guard.Const(`coalesce(CAST("source_file" AS VARCHAR), '')`))
	}
	for _, k := range t.d.Key {
		key = append(key, asText(guard.MustIdent(k)))
	}
	list := []guard.SQL{guard.Const("rowid"), hash(guard.Format("concat_ws(chr(31), %s)", guard.Join(key, ", ")))}
	var hashed []int // the schema columns DuckDB hashes; the others stay 0
	for j, c := range t.d.Columns {
		// A key column is equal in rows whose keys match: it is not hashed (0 on both sides).
		if t.present[j] && !slices.Contains(t.keyCols, j) {
			list = append(list, hash(asText(guard.MustIdent(c.Name))))
			hashed = append(hashed, j)
		}
	}
	var count int
	if err := conn.QueryRow(ctx, guard.Format("SELECT count(*) FROM %s", table)).Scan(&count); err != nil {
		return err
	}
	t.keyHash = make([]uint64, 0, count)
	t.rowid = make([]int64, 0, count)
	t.hashes = make([]uint64, 0, count*len(t.d.Columns))
	rows, err = conn.Query(ctx, guard.Format("SELECT %s FROM %s", guard.Join(list, ", "), table))
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
func fetchKeys(ctx context.Context, conn *database.Conn, t *table, rows []int32) ([][]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	return fetchCells(ctx, conn, t, rows, t.d.Key)
}

// fetchCells reads the cells of columns, as text (” for NULL), of a few rows of a table read from a
// database, in the order of rows.
func fetchCells(ctx context.Context, conn *database.Conn, t *table, rows []int32, columns []string) ([][]string, error) {
	ids := make([]guard.SQL, len(rows))
	for i, r := range rows {
		ids[i] = guard.Int(int(t.rowid[r]))
	}
	cols := make([]guard.SQL, len(columns))
	for i, c := range columns {
		cols[i] = asText(guard.MustIdent(c))
	}
	res, err := conn.Query(ctx, guard.Format("SELECT rowid, %s FROM %s WHERE rowid IN (%s)", guard.Join(cols, ", "), guard.MustIdent(t.d.Table), guard.Join(ids, ", ")))
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

// asText is a column's value as text, ” for NULL.
func asText(col guard.SQL) guard.SQL { return guard.Format("coalesce(CAST(%s AS VARCHAR), '')", col) }

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
