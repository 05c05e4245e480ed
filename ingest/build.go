package ingest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// Build keys recorded in the main database's ctool_meta.build table.
const (
	BuildID       = "build_id"
	BuildTime     = "built_at"
	BuildProfiles = "profiles_file"
	BuildSchema   = "schema_version"
)

// Summary says what an ingest built.
type Summary struct {
	DB            string
	ProfilesDB    string
	SchemaVersion int
	Files         []*File
	Elapsed       time.Duration
}

// Progress receives a line per step while building; nil discards them.
type Progress func(format string, args ...any)

// ProfilesPath is the profiles database of a build: beside the main file, named by the build so that
// renaming the main file into place switches both files at once.
func ProfilesPath(dbPath, buildID string) string {
	return strings.TrimSuffix(dbPath, ".duckdb") + ".profiles-" + buildID + ".duckdb"
}

// Build loads validated files into a new main database and a new profiles database, then renames the
// main file over dbPath. Until that rename nothing a reader can see has changed; after it, the old
// profiles files are removed. A build killed at any moment leaves the old files working.
func Build(ctx context.Context, res *Result, dbPath string, progress Progress) (*Summary, error) {
	if !res.Report.Valid() {
		return nil, errors.New("the input has problems; nothing was built")
	}
	if progress == nil {
		progress = func(string, ...any) {}
	}
	start := time.Now()
	dir := filepath.Dir(dbPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	removeAbandoned(dbPath)

	buildID := newBuildID()
	tmpMain := fmt.Sprintf("%s.tmp-%d-%s", dbPath, os.Getpid(), buildID)
	profilesPath := ProfilesPath(dbPath, buildID)
	tmpProfiles := fmt.Sprintf("%s.tmp-%d-%s", profilesPath, os.Getpid(), buildID)
	committed := false
	defer func() {
		if !committed {
			for _, p := range []string{tmpMain, tmpMain + ".wal", tmpProfiles, tmpProfiles + ".wal", profilesPath} {
				os.Remove(p)
			}
		}
	}()

	now := time.Now()
	version, err := buildMain(ctx, tmpMain, res, buildID, filepath.Base(profilesPath), now, progress)
	if err != nil {
		return nil, err
	}
	if err := buildProfiles(ctx, tmpProfiles, res, buildID, progress); err != nil {
		return nil, err
	}
	// The profiles file gets its final, build-unique name first; it is unreachable until the main file
	// that names it is in place.
	if err := os.Rename(tmpProfiles, profilesPath); err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	if err := os.Rename(tmpMain, dbPath); err != nil {
		return nil, err
	}
	committed = true
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	removeOldProfiles(dbPath, profilesPath)
	return &Summary{DB: dbPath, ProfilesDB: profilesPath, SchemaVersion: version, Files: res.Files, Elapsed: time.Since(start)}, nil
}

func newBuildID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// openFile opens a DuckDB file for building; one connection keeps every statement on it.
func openFile(path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// closeFile checkpoints and closes a built file and makes sure no WAL is left beside it: DuckDB would
// replay a stale WAL even on a read-only open.
func closeFile(ctx context.Context, db *sql.DB, path string) error {
	_, err := db.ExecContext(ctx, "CHECKPOINT")
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("finish %s: %w", path, err)
	}
	if _, err := os.Stat(path + ".wal"); err == nil {
		return fmt.Errorf("finish %s: a WAL file remained after checkpoint", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func buildMain(ctx context.Context, path string, res *Result, buildID, profilesFile string, now time.Time, progress Progress) (int, error) {
	db, err := openFile(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	version, err := migrations.Apply(ctx, db, migrations.Main)
	if err != nil {
		return 0, err
	}
	for _, f := range res.Files {
		if !f.Dataset.Private {
			started := time.Now()
			if err := loadCSV(ctx, db, f, f.Dataset.Table, false); err != nil {
				return 0, err
			}
			progress("%-9s %10s rows  %s  (%s)", f.Dataset.Name, commas(f.Rows), f.Name, time.Since(started).Round(time.Millisecond))
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO ctool_meta.sources VALUES (?, ?, ?, ?, ?)`,
			f.Dataset.Name, f.Name, f.SHA256, f.Rows, now); err != nil {
			return 0, err
		}
	}
	for k, v := range map[string]string{BuildID: buildID, BuildTime: now.UTC().Format(time.RFC3339),
		BuildProfiles: profilesFile, BuildSchema: strconv.Itoa(version)} {
		if _, err := db.ExecContext(ctx, `INSERT INTO ctool_meta.build VALUES (?, ?)`, k, v); err != nil {
			return 0, err
		}
	}
	if err := migrations.VerifyMain(ctx, db); err != nil {
		return 0, err
	}
	return version, closeFile(ctx, db, path)
}

func buildProfiles(ctx context.Context, path string, res *Result, buildID string, progress Progress) error {
	db, err := openFile(path)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := migrations.Apply(ctx, db, migrations.Profiles); err != nil {
		return err
	}
	for _, f := range res.Files {
		if f.Dataset != schema.Profiles {
			continue
		}
		if err := loadCSV(ctx, db, f, schema.Profiles.Table, true); err != nil {
			return err
		}
		progress("%-9s %10s rows  %s", f.Dataset.Name, commas(f.Rows), f.Name)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO ctool_meta.build VALUES (?, ?)`, BuildID, buildID); err != nil {
		return err
	}
	if err := migrations.VerifyProfiles(ctx, db); err != nil {
		return err
	}
	return closeFile(ctx, db, path)
}

// loadCSV lets DuckDB's reader load a validated file, then cross-checks it against what validation
// read: the same row count and the same number of bytes in every text column. With withSource, each
// row also records the file it came from in source_file (several profile files share one table).
func loadCSV(ctx context.Context, db *sql.DB, f *File, table string, withSource bool) error {
	var columns, names []string
	for _, name := range f.Header {
		columns = append(columns, sqlString(name)+": 'VARCHAR'")
		names = append(names, sqlString(name))
	}
	selectList, where := "*", ""
	if withSource {
		selectList = sqlString(f.Name) + " AS source_file, *"
		where = " WHERE source_file = " + sqlString(f.Name)
	}
	// Explicit options: no sniffing, RFC 4180 quoting, every column text, empty cells kept as ''.
	load := fmt.Sprintf(`INSERT INTO %s BY NAME SELECT %s FROM read_csv(%s, header = true, auto_detect = false,
		delim = ',', quote = '"', escape = '"', strict_mode = true, max_line_size = %d, columns = {%s}, force_not_null = [%s])`,
		sqlIdent(table), selectList, sqlString(f.Path), maxRecordBytes(f), strings.Join(columns, ", "), strings.Join(names, ", "))
	if _, err := db.ExecContext(ctx, load); err != nil {
		return fmt.Errorf("load %s: %w", f.Path, err)
	}
	var checks []string
	var text []string
	for _, name := range f.Header {
		if c, _ := f.Dataset.Column(name); c.SQLType(f.Dataset.Private) == "VARCHAR" {
			text = append(text, name)
		}
	}
	if f.HasCR {
		// encoding/csv reads a CRLF inside a quoted field as LF; DuckDB keeps it. Store what validation saw.
		var sets []string
		for _, name := range text {
			sets = append(sets, fmt.Sprintf("%s = replace(%s, chr(13) || chr(10), chr(10))", sqlIdent(name), sqlIdent(name)))
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s%s", sqlIdent(table), strings.Join(sets, ", "), where)); err != nil {
			return fmt.Errorf("load %s: %w", f.Path, err)
		}
	}
	checks = append(checks, "count(*)")
	for _, name := range text {
		checks = append(checks, fmt.Sprintf("coalesce(sum(strlen(%s)), 0)", sqlIdent(name)))
	}
	dest := make([]int64, len(checks))
	ptrs := make([]any, len(checks))
	for i := range dest {
		ptrs[i] = &dest[i]
	}
	if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(checks, ", "), sqlIdent(table), where)).Scan(ptrs...); err != nil {
		return fmt.Errorf("check %s: %w", f.Path, err)
	}
	if dest[0] != int64(f.Rows) {
		return fmt.Errorf("load %s: DuckDB read %d rows, validation read %d", f.Path, dest[0], f.Rows)
	}
	for i, name := range text {
		if dest[i+1] != f.Bytes[name] {
			return fmt.Errorf("load %s: DuckDB read %d bytes in column %s, validation read %d", f.Path, dest[i+1], name, f.Bytes[name])
		}
	}
	return nil
}

// maxRecordBytes is a line size DuckDB's reader must accept for the file: encoding/csv has no limit,
// so a validated file may hold records longer than DuckDB's default of 2 MB.
func maxRecordBytes(f *File) int64 {
	return max(f.Size+1, 2_000_000)
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
func sqlIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// removeAbandoned deletes temporary files of builds whose process is gone (killed mid-way).
func removeAbandoned(dbPath string) {
	matches, _ := filepath.Glob(strings.TrimSuffix(dbPath, ".duckdb") + "*.tmp-*")
	for _, m := range matches {
		rest := m[strings.LastIndex(m, ".tmp-")+len(".tmp-"):]
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(m)
		}
	}
}

// removeOldProfiles deletes profiles files no current build names. The previous one stays, so a reader
// that opened the old main file just before the rename still finds its profiles.
func removeOldProfiles(dbPath, current string) {
	matches, _ := filepath.Glob(strings.TrimSuffix(dbPath, ".duckdb") + ".profiles-*.duckdb")
	type aged struct {
		path string
		mod  time.Time
	}
	var old []aged
	for _, m := range matches {
		if m == current {
			continue
		}
		if info, err := os.Stat(m); err == nil {
			old = append(old, aged{m, info.ModTime()})
		}
	}
	newest := -1
	for i, o := range old {
		if newest < 0 || o.mod.After(old[newest].mod) {
			newest = i
		}
	}
	for i, o := range old {
		if i != newest {
			os.Remove(o.path)
			os.Remove(o.path + ".wal")
		}
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
