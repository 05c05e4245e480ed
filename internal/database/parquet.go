package database

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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/azabudai/ctool/schema"
	"github.com/duckdb/duckdb-go/v2"
)

// Parquet is written by DuckDB's own writer, in an instance of the export's own: a database file in a
// temporary directory, to which the export's rows are appended as they come (DuckDB keeps them on
// disk past its memory limit, so memory stays bounded whatever the list's size), and which COPY then
// writes as Parquet beside it; the file is sent and the directory removed. That instance reads no
// build and runs no text a visitor wrote: its statements are the constants below, the rows come
// through the appender, and once it is set up it may touch no file outside its directory. Apache
// Arrow's Go writer, used before, streamed row groups as they came, but its packages' start cost every
// ctool process about 3 ms, the agent's `ctool query` twice (docs/performance.md).

// parquetMemory is the export instance's memory limit: rows past it wait in its file. It is most of
// what an export adds to the console's memory: at 256MB a Parquet export of 1,000,000 products took
// the console to 620–710 MB resident; with the console's chunks of 10,000 rows and row groups of
// 10,000, to 266–281 MB at 32MB (247–273 MB at 16MB, which failed for want of memory with row groups
// of 50,000: too close to the edge) (bench/results/console.md).
const parquetMemory = "32MB"

// ParquetColumn is a column of a Parquet export: its name and its type, one of ParquetTypes.
type ParquetColumn struct{ Name, Type string }

// ParquetTypes are the types a Parquet export's columns may have.
var ParquetTypes = []string{"INTEGER", "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "VARCHAR[]", "VARCHAR"}

// Parquet is one Parquet export being written: Append its rows, then WriteTo, then Close.
type Parquet struct {
	cols     []ParquetColumn
	rowGroup int
	dir      string
	db       *sql.DB
	conn     *sql.Conn
	app      *duckdb.Appender
	row      []driver.Value
	n        int
}

// parquetDirPrefix starts the name of an export's temporary directory, then the process's pid: one
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

// NewParquet starts an export of cols, whose rows are flushed to disk every rowGroup rows and written
// as row groups of that size.
func NewParquet(cols []ParquetColumn, rowGroup int) (*Parquet, error) {
	for _, c := range cols {
		if !slices.Contains(ParquetTypes, c.Type) {
			return nil, fmt.Errorf("parquet: %s: type %q", c.Name, c.Type)
		}
	}
	p := &Parquet{cols: cols, rowGroup: max(rowGroup, 1), row: make([]driver.Value, len(cols))}
	if err := p.open(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Parquet) open() error {
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
		defs[i] = schema.QuoteIdent(c.Name) + " " + c.Type
	}
	for _, stmt := range []string{
		"SET allowed_directories = [" + schema.QuoteString(dir) + "]",
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

// Append adds one row: nil, or a value of the column's type (int32 or int64, bool, time.Time, []any
// of strings, string).
func (p *Parquet) Append(vals []any) error {
	for i, v := range vals {
		p.row[i] = v
	}
	if err := p.app.AppendRow(p.row...); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	if p.n++; p.n%p.rowGroup == 0 {
		return p.app.Flush()
	}
	return nil
}

// WriteTo writes the rows appended as a Parquet file to w.
func (p *Parquet) WriteTo(w io.Writer) (int64, error) {
	if err := p.app.Close(); err != nil {
		return 0, fmt.Errorf("parquet: %w", err)
	}
	p.app = nil
	file := filepath.Join(p.dir, "export.parquet")
	copyTo := "COPY export TO " + schema.QuoteString(file) + " (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE " + strconv.Itoa(p.rowGroup) + ")"
	if _, err := p.conn.ExecContext(context.Background(), copyTo); err != nil {
		return 0, fmt.Errorf("parquet: %w", err)
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, fmt.Errorf("parquet: %w", err)
	}
	defer f.Close()
	return io.Copy(w, f)
}

// Close closes the export's instance and removes its directory; a second call does nothing.
func (p *Parquet) Close() {
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
