package console

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
)

// An export is every row of a list as the visitor sees it (filters, facets and search applied), in
// the list's order, streamed. The driver hands a query's whole result over at once, so the rows are
// read in chunks of exportChunk: in the build's order by row-number ranges, which DuckDB reads
// without scanning the rest of the table; in a sorted order by key set (the rows after the last one
// sent). Memory stays that of one chunk, whatever the list's size.

// exportChunk is how many rows of the build one statement of an export covers (half as many for
// Parquet). Up to three chunks are in memory as Go values (stream), about 20 MB at 50,000 products and
// twice that before the collector runs: 10,000 keeps an export of a million products under the
// console's memory aim at the same speed (bench/results/console.md).
var exportChunk = 10_000

// format is one export format.
type format struct {
	ext, mime string
	excel     bool
	open      func(w io.Writer, cols []column) rowWriter
}

// rowWriter writes rows of one export; close ends the file.
type rowWriter interface {
	write(vals []any) error
	close() error
}

func exportFormat(name string) *format {
	switch name {
	case "csv":
		return &format{ext: "csv", mime: "text/csv; charset=utf-8", open: newCSV(false)}
	case "excel":
		return &format{ext: "csv", mime: "text/csv; charset=utf-8", excel: true, open: newCSV(true)}
	case "jsonl":
		return &format{ext: "jsonl", mime: "application/x-ndjson; charset=utf-8", open: newJSONL}
	case "parquet":
		return &format{ext: "parquet", mime: "application/vnd.apache.parquet", open: newParquet}
	}
	return nil
}

// exportColumns are the columns an export writes: those the list shows, and for stores the open
// state when the list asked for a time or a state.
func (lq *listQuery) exportColumns() []column {
	cols := lq.T.Cols
	if lq.T.IsStores() && (lq.AtGiven || lq.Open != "") {
		cols = append(cols, column{Name: "open_at_" + lq.At.Format("2006-01-02T15:04"), Type: "VARCHAR"})
	}
	return cols
}

func (s *Server) export(w http.ResponseWriter, r *http.Request, lq *listQuery, f *format) {
	cols := lq.exportColumns()
	name := lq.T.D.Name
	if f.excel {
		name += "-excel"
	}
	err := s.conn(r.Context(), func(b *database.Build, c *database.Conn) error {
		h := w.Header()
		h.Set("Content-Type", f.mime)
		h.Set("Content-Disposition", `attachment; filename="`+fileName(name, b.ID)+"."+f.ext+`"`)
		h.Set("Cache-Control", "no-store")
		if r.Method == http.MethodHead {
			return nil // the headers say what a GET would send; reading every row for no body is not done
		}
		bw := bufio.NewWriterSize(w, 256<<10)
		out := f.open(bw, cols)
		if d, ok := out.(interface{ discard() }); ok {
			defer d.discard() // a failed export leaves nothing behind either
		}
		flush := func() error {
			if err := bw.Flush(); err != nil {
				return err
			}
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			return nil
		}
		chunk := exportChunk
		if f.ext == "parquet" {
			// Parquet's writer holds rows of its own beside the chunks in flight: half as many of those.
			chunk = max(exportChunk/2, 1)
		}
		if err := lq.stream(r.Context(), c, chunk, out.write, flush); err != nil {
			return err
		}
		if err := out.close(); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		// Once the first bytes are out the status cannot change: the file is cut short, which the
		// client sees as a failed download (no final chunk).
		s.cfg.Log.Error("export failed", "path", r.URL.Path, "error", err.Error())
		panic(http.ErrAbortHandler)
	}
}

// stream reads every row of the list in chunks and hands each row's shown values (then the open
// state) to write; flush runs after each chunk. A chunk is written on a goroutine of its own while
// DuckDB reads the next, so that the two cores share the work; at most three chunks are in memory.
func (lq *listQuery) stream(ctx context.Context, c *database.Conn, chunk int, write func([]any) error, flush func() error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	width := len(lq.exportColumns())
	batches := make(chan []any, 1)
	written := make(chan error, 1)
	go func() {
		var err error
		for b := range batches {
			for i := 0; err == nil && i+width <= len(b); i += width {
				err = write(b[i : i+width])
			}
			if err == nil {
				err = flush()
			}
			if err != nil {
				cancel() // the reader stops at its next statement
			}
		}
		written <- err
	}()
	var cur []any
	err := lq.read(ctx, c, chunk, func(row []any) error {
		cur = append(cur, row...)
		return nil
	}, func() error {
		if len(cur) > 0 {
			batches <- cur
			cur = nil
		}
		return nil
	})
	close(batches)
	if werr := <-written; werr != nil {
		return werr
	}
	return err
}

// read reads every row of the list in chunks of chunk rows, as stream writes them.
func (lq *listQuery) read(ctx context.Context, c *database.Conn, chunk int, write func([]any) error, flush func() error) error {
	src, w := lq.source(len(lq.exportColumns()) > len(lq.T.Cols)), lq.where()
	cols := lq.T.Cols
	list := []guard.SQL{guard.Const("_row")}
	if lq.Sort != "" {
		list = append(list, guard.Format("CAST(%s AS VARCHAR)", guard.MustIdent(lq.Sort)))
	} else {
		list = append(list, guard.Const("NULL"))
	}
	for _, col := range cols {
		list = append(list, guard.MustIdent(col.Name))
	}
	withState := len(lq.exportColumns()) > len(cols)
	if withState {
		list = append(list, guard.Const("_open"))
	}
	sel := guard.Join(list, ", ")
	base := append(append([]any{}, src.args...), w.args...)
	// run reads one chunk; it reports how many rows it read, and the last one's row and sort key. The
	// rows are read as the driver gives them (Prepared), without database/sql's copy of every cell:
	// an export reads a million rows.
	row := make([]any, len(list)-2)
	dest := make([]any, len(list))
	run := func(q guard.SQL, args []any) (n int, lastRow int64, lastKey any, err error) {
		execErr, readErr := c.Prepared(ctx, q, args, func(rows *database.Stream) error {
			for {
				if more, err := rows.Next(dest); err != nil || !more {
					return err
				}
				n++
				lastRow, _ = dest[0].(int64)
				lastKey = dest[1]
				copy(row, dest[2:])
				if err := write(row); err != nil {
					return err
				}
			}
		})
		if execErr != nil {
			return n, 0, nil, execErr
		}
		return n, lastRow, lastKey, readErr
	}
	if lq.Sort == "" {
		var maxRow *int64
		if err := c.QueryRow(ctx, guard.Format("SELECT max(_row) FROM %s AS t", lq.T.rows)).Scan(&maxRow); err != nil || maxRow == nil {
			return err
		}
		q := guard.Format("SELECT %s FROM %s AS t WHERE _row >= ? AND _row < ? AND %s ORDER BY _row", sel, src.sql, w.sql)
		for lo, step := int64(0), int64(chunk); lo <= *maxRow; lo += step {
			args := append(append(append([]any{}, src.args...), lo, lo+step), w.args...)
			if _, _, _, err := run(q, args); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
		return nil
	}
	col, _ := lq.T.column(lq.Sort)
	id, typ := guard.MustIdent(col.Name), sqlType(col.Type)
	cmp := guard.Const(">")
	dir := guard.Const("ASC")
	if lq.Desc {
		cmp, dir = guard.Const("<"), guard.Const("DESC")
	}
	order := guard.Format("ORDER BY %s %s NULLS LAST, _row LIMIT %s", id, dir, guard.Int(chunk))
	first := guard.Format("SELECT %s FROM %s AS t WHERE %s %s", sel, src.sql, w.sql, order)
	afterValue := guard.Format("SELECT %s FROM %s AS t WHERE %s AND (%s %s CAST(? AS %s) OR (%s = CAST(? AS %s) AND _row > ?) OR %s IS NULL) %s",
		sel, src.sql, w.sql, id, cmp, typ, id, typ, id, order)
	afterNull := guard.Format("SELECT %s FROM %s AS t WHERE %s AND %s IS NULL AND _row > ? %s", sel, src.sql, w.sql, id, order)
	n, lastRow, lastKey, err := run(first, base)
	for ; err == nil && n == chunk; n, lastRow, lastKey, err = func() (int, int64, any, error) {
		if err := flush(); err != nil {
			return 0, 0, nil, err
		}
		if key, ok := lastKey.(string); ok {
			return run(afterValue, append(append([]any{}, base...), key, key, lastRow))
		}
		return run(afterNull, append(append([]any{}, base...), lastRow))
	}() {
	}
	if err != nil {
		return err
	}
	return flush()
}

// sqlType is a column type of schema/ as SQL: only the types the typed relations use.
func sqlType(t string) guard.SQL {
	switch t {
	case "INTEGER":
		return guard.Const("INTEGER")
	case "BOOLEAN":
		return guard.Const("BOOLEAN")
	case "DATE":
		return guard.Const("DATE")
	case "TIME":
		return guard.Const("TIME")
	case "TIMESTAMP":
		return guard.Const("TIMESTAMP")
	}
	return guard.Const("VARCHAR")
}

// csvWriter is encoding/csv's writer. For Excel the file starts with a byte-order mark (Excel reads
// UTF-8 without one as the system's code page: mojibake on Japanese Windows), lines end in CRLF, and
// a cell a spreadsheet would take for a formula (=, +, -, @, a tab, a carriage return or a line feed
// first: Excel drops a leading line break and reads what follows) gets
// a leading apostrophe, which Excel shows as text and does not display. The plain CSV keeps every
// cell exactly as the build holds it.
type csvWriter struct {
	w     *csv.Writer
	cols  []column
	excel bool
	rec   []string
}

func newCSV(excel bool) func(io.Writer, []column) rowWriter {
	return func(w io.Writer, cols []column) rowWriter {
		if excel {
			io.WriteString(w, "\ufeff")
		}
		cw := &csvWriter{w: csv.NewWriter(w), cols: cols, excel: excel, rec: make([]string, len(cols))}
		cw.w.UseCRLF = excel
		header := make([]string, len(cols))
		for i, c := range cols {
			header[i] = c.Name
		}
		cw.w.Write(header)
		return cw
	}
}

func (c *csvWriter) write(vals []any) error {
	for i, v := range vals {
		s := valueText(v, c.cols[i].Type)
		if c.excel && s != "" && strings.ContainsRune("=+-@\t\r\n", rune(s[0])) {
			s = "'" + s
		}
		c.rec[i] = s
	}
	return c.w.Write(c.rec)
}

func (c *csvWriter) close() error {
	c.w.Flush()
	return c.w.Error()
}

// jsonlWriter writes one JSON object a row, the columns in the table's order, values typed: numbers,
// booleans, lists, null; dates and times as text.
type jsonlWriter struct {
	w    io.Writer
	keys [][]byte
	cols []column
	buf  []byte
}

func newJSONL(w io.Writer, cols []column) rowWriter {
	jw := &jsonlWriter{w: w, cols: cols}
	for i, c := range cols {
		k, _ := json.Marshal(c.Name)
		sep := ","
		if i == 0 {
			sep = "{"
		}
		jw.keys = append(jw.keys, append([]byte(sep), append(k, ':')...))
	}
	return jw
}

func (j *jsonlWriter) write(vals []any) error {
	j.buf = j.buf[:0]
	for i, v := range vals {
		j.buf = append(j.buf, j.keys[i]...)
		switch x := v.(type) {
		case time.Time:
			v = valueText(x, j.cols[i].Type)
		case []any:
			v = listStrings(x)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		j.buf = append(j.buf, b...)
	}
	if len(vals) == 0 {
		j.buf = append(j.buf, '{')
	}
	j.buf = append(j.buf, "}\n"...)
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonlWriter) close() error { return nil }
