package console

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/azabudai/ctool/internal/database"
)

// Parquet is written by DuckDB's own writer, in an instance of the export's own: a database file in a
// temporary directory, to which the export's rows are appended as they come (DuckDB keeps them on
// disk past its memory limit, so memory stays bounded whatever the list's size), and which COPY then
// writes as Parquet beside it; the file is sent and the directory removed. That instance reads no
// build and runs no text a visitor wrote: its statements are the constants below, the rows come
// through the appender, and once it is set up it may touch no file outside its directory. Apache
// Arrow's Go writer, used before, streamed row groups as they came, but its packages' start cost every
// ctool process about 3 ms, the agent's `ctool query` twice (docs/performance.md).

// parquetMemory is the export instance's memory limit: rows past it wait in its file.
const parquetMemory = "256MB"

type parquetWriter struct {
	w    io.Writer
	cols []column
	dir  string
	db   *sql.DB
	conn *sql.Conn
	app  *duckdb.Appender
	row  []driver.Value
	n    int
	err  error
}

// parquetType is a column type of the typed relations as the export table declares it.
func parquetType(t string) string {
	switch t {
	case "INTEGER", "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "VARCHAR[]":
		return t
	}
	return "VARCHAR"
}

// parquetDirPrefix starts the name of an export's temporary directory, then the console's pid: one
// left by a console killed during an export is removed at the next console's start
// (RemoveStaleParquetDirs).
const parquetDirPrefix = "ctool-parquet-"

// RemoveStaleParquetDirs removes the export directories of consoles no longer running, and those of
// the older naming without a pid once a day old. It returns how many it removed.
func RemoveStaleParquetDirs() int {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), parquetDirPrefix+"*"))
	removed := 0
	for _, dir := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(dir), parquetDirPrefix), "-")
		stale := false
		if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 {
			stale = pid != os.Getpid() && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		} else if info, err := os.Stat(dir); err == nil {
			stale = time.Since(info.ModTime()) > 24*time.Hour
		}
		if stale && os.RemoveAll(dir) == nil {
			removed++
		}
	}
	return removed
}

func newParquet(w io.Writer, cols []column) rowWriter {
	p := &parquetWriter{w: w, cols: cols, row: make([]driver.Value, len(cols))}
	p.err = p.open()
	return p
}

func (p *parquetWriter) open() error {
	dir, err := os.MkdirTemp("", parquetDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	p.dir = dir
	q := url.Values{}
	q.Set("threads", "1")
	q.Set("memory_limit", parquetMemory)
	q.Set("temp_directory", dir)
	q.Set("autoinstall_known_extensions", "false")
	q.Set("autoload_known_extensions", "false")
	connector, err := duckdb.NewConnector(filepath.Join(dir, "export.duckdb")+"?"+q.Encode(), nil)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	p.db = sql.OpenDB(connector)
	ctx := context.Background()
	if p.conn, err = p.db.Conn(ctx); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	defs := make([]string, len(p.cols))
	for i, c := range p.cols {
		defs[i] = database.QuoteIdent(c.Name) + " " + parquetType(c.Type)
	}
	for _, stmt := range []string{
		"SET allowed_directories = [" + database.QuoteString(dir) + "]",
		"SET enable_external_access = false",
		"SET lock_configuration = true",
		"CREATE TABLE export (" + strings.Join(defs, ", ") + ")",
	} {
		if _, err := p.conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("parquet: %w", err)
		}
	}
	return p.conn.Raw(func(dc any) error {
		var err error
		p.app, err = duckdb.NewAppender(dc.(driver.Conn), "", "", "export")
		return err
	})
}

func (p *parquetWriter) write(vals []any) error {
	if p.err != nil {
		return p.err
	}
	for i, v := range vals {
		p.row[i], p.err = parquetValue(v, p.cols[i])
		if p.err != nil {
			return p.err
		}
	}
	if p.err = p.app.AppendRow(p.row...); p.err != nil {
		return p.err
	}
	if p.n++; p.n%exportChunk == 0 {
		p.err = p.app.Flush()
	}
	return p.err
}

// parquetValue is v as the appender takes it for c's column.
func parquetValue(v any, c column) (driver.Value, error) {
	if v == nil {
		return nil, nil
	}
	switch parquetType(c.Type) {
	case "INTEGER":
		switch x := v.(type) {
		case int32:
			return x, nil
		case int64:
			return int32(x), nil
		}
	case "BOOLEAN":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "DATE", "TIME", "TIMESTAMP":
		if t, ok := v.(time.Time); ok {
			return t, nil
		}
	case "VARCHAR[]":
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, e := range list {
				if e != nil {
					out[i] = valueText(e, "VARCHAR")
				}
			}
			return out, nil
		}
	default:
		return valueText(v, c.Type), nil
	}
	return nil, fmt.Errorf("parquet: %s: %T", c.Name, v)
}

func (p *parquetWriter) close() error {
	defer p.discard()
	if p.err != nil {
		return p.err
	}
	if err := p.app.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	p.app = nil
	file := filepath.Join(p.dir, "export.parquet")
	copyTo := "COPY export TO " + database.QuoteString(file) + " (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE " + strconv.Itoa(exportChunk) + ")"
	if _, err := p.conn.ExecContext(context.Background(), copyTo); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	defer f.Close()
	_, err = io.Copy(p.w, f)
	return err
}

// discard closes the export's instance and removes its directory; a second call does nothing.
func (p *parquetWriter) discard() {
	if p.app != nil {
		p.app.Close()
		p.app = nil
	}
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	if p.db != nil {
		p.db.Close()
		p.db = nil
	}
	if p.dir != "" {
		os.RemoveAll(p.dir)
		p.dir = ""
	}
}
