// Package database is the one reader of the engine: the only package of ctool, but for the build's
// writer (ingest/build), that imports database/sql and the DuckDB driver (the fence test,
// internal/fence, holds every other to that). It opens built files read-only and locked down (no file
// system, no settings, no extension loading), identified by the build record that ingest wrote, with
// the "no usable database" error. Readers get a connection for one call at a time (Conn), never the
// pool; a Conn runs only the guard's checked statement and ctool's own SQL (guard.SQL), and hands back
// Go values (rows.go), never the driver's. Below it, the pool's connections run one SELECT per
// statement and nothing else (session.go). It also writes the console's Parquet exports from Go values
// (parquet.go), in an engine of their own that reads no file.
package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/schema"
	"github.com/duckdb/duckdb-go/v2"
)

// ErrNoDatabase means a database file is missing or cannot be read as a ctool database.
var ErrNoDatabase = errors.New("no usable ctool database")

// Keys of the ctool_meta.build table, which records what a build was made of.
const (
	BuildID       = "build_id"
	BuildTime     = "built_at"
	BuildProfiles = "profiles_file"
	BuildSchema   = "schema_version"
	// The place the input's place.json names, in Japanese and English; absent when it names none.
	BuildPlace   = "place_name"
	BuildPlaceEn = "place_name_en"
)

// memoryLimit bounds DuckDB's buffer memory for one open build.
const memoryLimit = "1GB"

// maxConns is how many queries one build runs at once; more wait for a connection.
const maxConns = 4

// attachedAs is the catalog name of the attached file. Each build is attached to an in-memory
// instance of its own: DuckDB caches file-backed instances by path, so opening the path directly
// would hand a new build's reader the previous build's instance for as long as that one lives.
const attachedAs = "ctool_build"

// lockdown runs after the ATTACH, in this order (temp_directory, memory_limit and threads are set
// when the instance is created: options.dsn): locking the configuration comes last so that no query
// can undo any of it. TimeZone is set globally so that every connection of the pool has it.
var lockdown = []string{
	// The instance's own in-memory catalog is the one place a statement could write to that every
	// connection shares; no reader needs it.
	"DETACH memory",
	"SET GLOBAL TimeZone = 'Asia/Tokyo'",
	"SET enable_external_access = false",
	// External access off still lets SQL read the attached file and its WAL.
	"SET disabled_filesystems = 'LocalFileSystem'",
	"SET lock_configuration = true",
}

// Option says how a build is opened.
type Option func(*options)

type options struct {
	threads  int
	settings []string // further SET statements, run before the lock
}

// WithThreads sets how many threads DuckDB uses for the build, when n is above 0 (DuckDB's default is
// one per core). A query worker of `ctool mcp` runs one small query at a time beside its siblings, and
// waking an idle thread pool costs it more than the pool gains it.
func WithThreads(n int) Option { return func(o *options) { o.threads = n } }

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// lockdownStatements is lockdown with the options' settings, which must come before the lock.
func (o options) lockdownStatements() []string {
	if len(o.settings) == 0 {
		return lockdown
	}
	n := len(lockdown)
	return append(append(lockdown[:n-1:n-1], o.settings...), lockdown[n-1])
}

// File is one open database file: read-only, locked down, with its build record.
type File struct {
	Path  string
	Build map[string]string // the ctool_meta.build record
	db    *sql.DB
}

// openFile attaches the file at path read-only to a fresh in-memory instance and locks it down.
func openFile(ctx context.Context, path string, o options) (*File, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, noDatabase(path, "does not exist", err)
	case err != nil:
		return nil, noDatabase(path, "cannot be read: "+pathErr(err), err)
	case info.IsDir():
		e := noDatabase(path, "is a directory, not a build file", nil)
		e.Hint = "name the build file in it, e.g. --db " + filepath.Join(path, "ctool.duckdb") + ", or " + NoDatabaseHint
		return nil, e
	}
	// DuckDB's own failure to open says nothing a program can test; opening the file first gives a
	// cause that errors.Is can match (fs.ErrPermission for a file that cannot be read), and its first
	// bytes tell a DuckDB file from anything else, which DuckDB would report as a catalog error.
	fh, err := os.Open(path)
	if err != nil {
		return nil, noDatabase(path, "cannot be read: "+pathErr(err), err)
	}
	head := make([]byte, 12)
	n, _ := io.ReadFull(fh, head)
	fh.Close()
	if n < len(head) || string(head[8:12]) != duckdbMagic {
		e := noDatabase(path, "is not a DuckDB database file", nil)
		if strings.EqualFold(filepath.Ext(path), ".csv") {
			e.Hint = "it is a CSV file: ctool ingest --input " + filepath.Dir(path) + " builds a database from the CSV files there"
		}
		return nil, e
	}
	var mu sync.Mutex
	attached := false
	// Every connection of the pool reads the attached file by default; the first one attaches it and
	// locks the instance down.
	initConn := func(ex driver.ExecerContext) error {
		mu.Lock()
		defer mu.Unlock()
		use := "USE " + attachedAs
		if attached {
			_, err := ex.ExecContext(context.Background(), use, nil)
			return err
		}
		attach := "ATTACH " + schema.QuoteString(path) + " AS " + attachedAs + " (READ_ONLY)"
		if _, err := ex.ExecContext(context.Background(), attach, nil); err != nil {
			return noDatabase(path, "cannot be opened: "+err.Error(), err)
		}
		for _, stmt := range append([]string{use}, o.lockdownStatements()...) {
			if _, err := ex.ExecContext(context.Background(), stmt, nil); err != nil {
				return fmt.Errorf("lock down %s (%s): %w", path, stmt, err)
			}
		}
		attached = true
		return nil
	}
	c, err := duckdb.NewConnector(o.dsn(info.Size()), initConn)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(preparedConnector(c, selectOnly()))
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	f := &File{Path: path, db: db}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	closeOnExec(path)
	if f.Build, err = readBuild(ctx, db); err != nil {
		db.Close()
		return nil, noDatabase(path, "has no build record: "+err.Error(), err)
	}
	return f, nil
}

// duckdbMagic is what a DuckDB database file holds at bytes 8 to 12.
const duckdbMagic = "DUCK"

// noDatabase is the "no usable database" error: errors.Is matches both ErrNoDatabase and the cause.
// The message is what says; the cause is kept for programs, not repeated in it.
func noDatabase(path, what string, cause error) *fault.Error {
	err := ErrNoDatabase
	if cause != nil {
		err = fmt.Errorf("%w: %w", ErrNoDatabase, cause)
	}
	return &fault.Error{Kind: fault.KindNoDatabase, Message: fmt.Sprintf("%s: %s %s", ErrNoDatabase, path, what), Hint: NoDatabaseHint, Err: err}
}

// NoDatabaseHint is what to do without a usable database: build one, or name the one that exists
// elsewhere (a command run from another directory misses a relative default).
const NoDatabaseHint = "ctool ingest, or name an existing build with --db PATH or CTOOL_DB"

// pathErr is a file system error without the path the message already names.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func readBuild(ctx context.Context, db *sql.DB) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT key, value FROM ctool_meta.build`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	info := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		info[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if info[BuildID] == "" {
		return nil, errors.New("no build_id")
	}
	return info, nil
}

// Close closes the file.
func (f *File) Close() error { return f.db.Close() }

// ReadRecord is the build record of the database file at path (main or profiles), opened as every
// reader opens one and closed again: for the build's writer, which removes an old profiles file only
// when its record says whose it is.
func ReadRecord(ctx context.Context, path string) (map[string]string, error) {
	f, err := openFile(ctx, path, options{})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Build, nil
}

// SchemaVersion is the schema version the build record names; 0 when it names none.
func (f *File) SchemaVersion() int {
	v, _ := strconv.Atoi(f.Build[BuildSchema])
	return v
}

// Place is the place the build record names; the zero Place for a build that names none.
func (f *File) Place() schema.Place {
	return schema.Place{Name: f.Build[BuildPlace], NameEn: f.Build[BuildPlaceEn]}
}

// Build is one ingest's pair of files: the main file every query reads, and the profiles file, which
// is opened only when a profile is looked up.
type Build struct {
	*File
	ID string

	opts     options // how its profiles file is opened too
	mu       sync.Mutex
	profiles *File
}

// publicTables is a statement that binds only where the main file has every public table
// (schema.Relations) in its main schema: a DuckDB file without all of them is not a ctool database.
// Preparing it looks each name up in the attached file's catalog and reads nothing; listing
// duckdb_tables() would first build every system view of the instance (information_schema,
// pg_catalog), which costs a fresh worker more than the query it opens for. A view by one of these
// names passes where a table is expected, as the typed views and macros the file defines are used as
// they are: the file's own SQL is trusted only as far as the lock-down lets any SQL go.
func publicTables() string {
	var names []string
	for _, r := range schema.Relations() {
		if r.Kind == schema.TableRelation {
			names = append(names, attachedAs+".main."+schema.QuoteIdent(r.Name))
		}
	}
	return "SELECT NULL FROM " + strings.Join(names, ", ")
}

// Open opens the main database file at path for reading.
func Open(ctx context.Context, path string, opts ...Option) (*Build, error) {
	o := collect(opts)
	f, err := openFile(ctx, path, o)
	if err != nil {
		return nil, err
	}
	stmt, err := f.db.PrepareContext(ctx, publicTables())
	if err != nil {
		f.Close()
		return nil, noDatabase(path, "is not a ctool database", err)
	}
	stmt.Close()
	return &Build{File: f, ID: f.Build[BuildID], opts: o}, nil
}

// Profiles opens the profiles file the build record names, once, and returns it. Only the profile
// lookup calls it: the query side never opens personal data.
func (b *Build) Profiles(ctx context.Context) (*File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.profiles != nil {
		return b.profiles, nil
	}
	name := b.Build[BuildProfiles]
	switch {
	case name == "":
		return nil, noDatabase(b.Path, "records no profiles file", nil)
	case name != filepath.Base(name):
		return nil, noDatabase(b.Path, "names a profiles file outside its directory", nil)
	}
	path := filepath.Join(filepath.Dir(b.Path), name)
	f, err := openFile(ctx, path, b.opts)
	if err != nil {
		return nil, err
	}
	if f.Build[BuildID] != b.ID {
		f.Close()
		return nil, noDatabase(path, "belongs to another build", nil)
	}
	b.profiles = f
	return f, nil
}

// Close closes the build's files.
func (b *Build) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.File.Close()
	if b.profiles != nil {
		if perr := b.profiles.Close(); err == nil {
			err = perr
		}
	}
	return err
}
