package ingest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// Summary says what an ingest built.
type Summary struct {
	DB            string
	ProfilesDB    string
	SchemaVersion int
	Files         []*File
	Elapsed       time.Duration
}

// The steps of a build, in order, as Options.Step names them. A build stopped before StepCommitted
// leaves the previous build in place; from StepCommitted on, the new build is the one readers open.
const (
	StepCreated         = "created"          // both temporary files exist, migrated
	StepLoaded          = "loaded"           // every input file is loaded into them
	StepChecked         = "checked"          // cross-checked with validation, the build recorded and verified
	StepClosed          = "closed"           // both files checkpointed, closed and synced
	StepProfilesRenamed = "profiles-renamed" // the profiles file has its final name, which no main file names yet
	StepProfilesSynced  = "profiles-synced"  // that rename is on disk
	StepCommitted       = "committed"        // the main file is renamed into place: the commit point
	StepSynced          = "synced"           // that rename is on disk
	StepCleaned         = "cleaned"          // profiles files older than the previous build's are removed
)

// Ingest validates the files in dir and builds new database files from them, all or nothing. The load
// runs while validation reads the same files: DuckDB loads into temporary files that nothing reads, and
// the build is committed only when validation found no problem and DuckDB's reading of every file
// matches validation's. The Result is returned whenever validation ran; the Summary only when the
// database was built. opts.Progress follows validation's reading; its last report, Done, comes when
// the build is committed or abandoned. A build killed at any moment leaves the old files working.
func Ingest(ctx context.Context, dir, dbPath string, opts Options) (*Result, *Summary, error) {
	start := time.Now()
	files, err := plan(dir, opts.MaxFileSize)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		for _, f := range files {
			f.fh.Close()
		}
	}()
	vopts := opts
	var read Progress // validation's last report, held back until the build is over
	if opts.Progress != nil {
		vopts.Progress = func(p Progress) {
			if p.Done {
				read = p
				return
			}
			opts.Progress(p)
		}
	}
	type validated struct {
		res *Result
		err error
	}
	done := make(chan validated, 1)
	go func() {
		res, err := Validate(dir, vopts)
		done <- validated{res, err}
	}()
	if opts.Progress != nil {
		// Every return below waits for validation first.
		defer func() { read.Done = true; opts.Progress(read) }()
	}

	b, err := newBuilder(dbPath, opts.Step)
	if err != nil {
		<-done
		return nil, nil, err
	}
	defer b.abort()
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	loaded := make(chan error, 1)
	go func() { loaded <- b.load(loadCtx, files) }()

	v := <-done
	if v.err != nil || !v.res.Report.Valid() {
		cancelLoad()
		<-loaded
		return v.res, nil, v.err
	}
	if opts.Progress != nil {
		// Read but not done: the load may still be running, and the commit is to come.
		opts.Progress(Progress{Rows: read.Rows, Bytes: read.Bytes, TotalBytes: read.TotalBytes, Read: true})
	}
	if err := <-loaded; err != nil {
		return v.res, nil, err
	}
	if !samePlan(files, v.res.Files) {
		return v.res, nil, errors.New("the input files changed while they were read; run ingest again")
	}
	version, err := b.finish(ctx, v.res)
	if err != nil {
		return v.res, nil, err
	}
	if err := b.commit(ctx); err != nil {
		return v.res, nil, err
	}
	return v.res, &Summary{DB: dbPath, ProfilesDB: b.profilesPath, SchemaVersion: version, Files: v.res.Files, Elapsed: time.Since(start)}, nil
}

// plan opens the files a load reads and reads their headers, as validation will find them; each stays
// open for the load. An entry openInput refuses, or a file whose header cannot be read, is left out:
// validation reports it, and the load is thrown away.
func plan(dir string, maxSize int64) ([]*File, error) {
	entries, err := readInputDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*File
	for _, d := range schema.All() {
		for _, e := range entries {
			if e.IsDir() || !d.MatchesFile(e.Name()) {
				continue
			}
			f := &File{Dataset: d, Name: e.Name(), Path: filepath.Join(dir, e.Name())}
			if err := readHeader(f, maxSize); err == nil {
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// readHeader opens a file, keeping it open in f.fh, and reads its size and header row.
func readHeader(f *File, maxSize int64) error {
	fh, info, err := openInput(f.Path, maxSize)
	if err != nil {
		return err
	}
	f.Size, f.info = info.Size(), info
	r, err := csvReader(io.NewSectionReader(fh, 0, f.Size), 64<<10)
	if err == nil {
		f.Header, err = r.Read()
	}
	if err != nil {
		fh.Close()
		return err
	}
	f.fh = fh
	return nil
}

// samePlan reports whether the load read exactly the files (the same device and inode), headers and
// sizes validation checked.
func samePlan(loaded, validated []*File) bool {
	if len(loaded) != len(validated) {
		return false
	}
	for i := range loaded {
		l, v := loaded[i], validated[i]
		if l.Path != v.Path || !sameFile(l.info, v.info) || l.Size != v.Size || strings.Join(l.Header, "\x00") != strings.Join(v.Header, "\x00") {
			return false
		}
	}
	return true
}

// builder writes one build's two database files under temporary names beside the target.
type builder struct {
	dbPath, buildID      string
	tmpMain, tmpProfiles string
	profilesPath         string
	main, profiles       *sql.DB
	committed            bool
	createdDir           string // removed again, if still empty, when the build fails
	step                 func(name string)
}

func newBuilder(dbPath string, step func(string)) (*builder, error) {
	if step == nil {
		step = func(string) {}
	}
	if err := checkDBPath(dbPath); err != nil {
		return nil, err
	}
	b := &builder{dbPath: dbPath, buildID: newBuildID(), step: step}
	dir := filepath.Dir(dbPath)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		b.createdDir = dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	removeAbandoned(dbPath)
	b.tmpMain = fmt.Sprintf("%s.tmp-%d-%s", dbPath, os.Getpid(), b.buildID)
	b.profilesPath = ProfilesPath(dbPath, b.buildID)
	b.tmpProfiles = fmt.Sprintf("%s.tmp-%d-%s", b.profilesPath, os.Getpid(), b.buildID)
	return b, nil
}

// load creates both files, applies the migrations and loads every file into its table.
func (b *builder) load(ctx context.Context, files []*File) error {
	var err error
	if b.main, err = openFile(b.tmpMain); err != nil {
		return err
	}
	if b.profiles, err = openFile(b.tmpProfiles); err != nil {
		return err
	}
	if _, err := migrations.Apply(ctx, b.main, migrations.Main); err != nil {
		return err
	}
	if _, err := migrations.Apply(ctx, b.profiles, migrations.Profiles); err != nil {
		return err
	}
	b.step(StepCreated)
	for _, f := range files {
		if err := loadCSV(ctx, b.dbFor(f), f); err != nil {
			return err
		}
	}
	b.step(StepLoaded)
	return nil
}

// dbFor is the file a dataset goes to: profiles to their own, everything else to the main file.
func (b *builder) dbFor(f *File) *sql.DB {
	if f.Dataset.Private {
		return b.profiles
	}
	return b.main
}

// finish cross-checks every loaded table against validation, records the build, verifies both files
// against schema/ and closes them, checkpointed. It returns the main file's schema version.
func (b *builder) finish(ctx context.Context, res *Result) (int, error) {
	now := time.Now()
	for _, f := range res.Files {
		if err := checkLoaded(ctx, b.dbFor(f), f); err != nil {
			return 0, err
		}
		if _, err := b.main.ExecContext(ctx, `INSERT INTO ctool_meta.sources VALUES (?, ?, ?, ?, ?)`,
			f.Dataset.Name, f.Name, f.SHA256, f.Rows, now); err != nil {
			return 0, err
		}
	}
	version, err := migrations.Latest(migrations.Main)
	if err != nil {
		return 0, err
	}
	for k, v := range map[string]string{database.BuildID: b.buildID, database.BuildTime: now.UTC().Format(time.RFC3339),
		database.BuildProfiles: filepath.Base(b.profilesPath), database.BuildSchema: strconv.Itoa(version)} {
		if _, err := b.main.ExecContext(ctx, `INSERT INTO ctool_meta.build VALUES (?, ?)`, k, v); err != nil {
			return 0, err
		}
	}
	for k, v := range map[string]string{database.BuildID: b.buildID, buildMainFile: filepath.Base(b.dbPath)} {
		if _, err := b.profiles.ExecContext(ctx, `INSERT INTO ctool_meta.build VALUES (?, ?)`, k, v); err != nil {
			return 0, err
		}
	}
	if err := migrations.VerifyMain(ctx, b.main); err != nil {
		return 0, err
	}
	if err := migrations.VerifyProfiles(ctx, b.profiles); err != nil {
		return 0, err
	}
	b.step(StepChecked)
	err = closeFile(ctx, b.main, b.tmpMain)
	b.main = nil
	if err != nil {
		return 0, err
	}
	err = closeFile(ctx, b.profiles, b.tmpProfiles)
	b.profiles = nil
	if err != nil {
		return 0, err
	}
	b.step(StepClosed)
	return version, nil
}

// commit puts the build in place. The profiles file gets its final, build-unique name first; it is
// unreachable until the main file that names it is renamed over the target, the one step that
// switches readers to the new build. Then every profiles file but the new one and the one the replaced
// build names is removed: a reader that opened the old main file just before the rename still finds
// its profiles, and a profiles file of a build killed before its commit goes.
func (b *builder) commit(ctx context.Context) error {
	dir := filepath.Dir(b.dbPath)
	previous := profilesOf(ctx, b.dbPath)
	if err := os.Rename(b.tmpProfiles, b.profilesPath); err != nil {
		return err
	}
	b.step(StepProfilesRenamed)
	if err := syncDir(dir); err != nil {
		return err
	}
	b.step(StepProfilesSynced)
	if err := os.Rename(b.tmpMain, b.dbPath); err != nil {
		return err
	}
	b.committed = true
	b.step(StepCommitted)
	if err := syncDir(dir); err != nil {
		return err
	}
	b.step(StepSynced)
	removeOldProfiles(b.dbPath, b.profilesPath, previous)
	b.step(StepCleaned)
	return nil
}

// profilesOf is the profiles file the build at dbPath names, or "" when there is no readable build.
func profilesOf(ctx context.Context, dbPath string) string {
	b, err := database.Open(ctx, dbPath)
	if err != nil {
		return ""
	}
	defer b.Close()
	if b.Build[database.BuildProfiles] == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(dbPath), b.Build[database.BuildProfiles])
}

// abort closes and removes whatever an uncommitted build wrote.
func (b *builder) abort() {
	for _, db := range []*sql.DB{b.main, b.profiles} {
		if db != nil {
			db.Close()
		}
	}
	if b.committed {
		return
	}
	for _, p := range []string{b.tmpMain, b.tmpMain + ".wal", b.tmpProfiles, b.tmpProfiles + ".wal", b.profilesPath} {
		os.Remove(p)
	}
	if b.createdDir != "" {
		os.Remove(b.createdDir) // only if empty
	}
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

// loadCSV lets DuckDB's reader load a file into table. Profiles record the file each row came from in
// source_file: several profile files share one table.
//
// DuckDB reads the file plan opened, by its descriptor (/proc/self/fd/N), never by its name: a name
// can be swapped for a link or another file between any check and DuckDB's own open, a descriptor
// cannot. Validation opens the name separately, and samePlan then requires its file to be the same
// device and inode, so the build holds exactly the bytes that were validated (a copy would cost a
// second write of every file; checking identity before and after would still leave DuckDB's open by
// name racing a swap).
func loadCSV(ctx context.Context, db *sql.DB, f *File) error {
	var columns []string
	for _, name := range f.Header {
		columns = append(columns, sqlString(name)+": 'VARCHAR'")
	}
	selectList := "*"
	if f.Dataset.Private {
		selectList = sqlString(f.Name) + " AS source_file, *"
	}
	// Explicit options: no sniffing, RFC 4180 quoting, every column text, and an empty cell, quoted
	// ("") or not, is NULL, as validation treats both as empty.
	load := fmt.Sprintf(`INSERT INTO %s BY NAME SELECT %s FROM read_csv(%s, header = true, auto_detect = false,
		delim = ',', quote = '"', escape = '"', strict_mode = true, max_line_size = %d, columns = {%s},
		nullstr = '', allow_quoted_nulls = true)`,
		sqlIdent(f.Dataset.Table), selectList, sqlString(fdPath(f.fh)), maxRecordBytes(f), strings.Join(columns, ", "))
	if _, err := db.ExecContext(ctx, load); err != nil {
		return fmt.Errorf("load %s: %w", f.Path, err)
	}
	return nil
}

// checkLoaded cross-checks a loaded file against what validation read: the same row count, the same
// number of non-NULL cells in every column (validation's non-empty ones) and the same number of bytes
// in every text column, so DuckDB and validation can never disagree about the data.
func checkLoaded(ctx context.Context, db *sql.DB, f *File) error {
	table, where := sqlIdent(f.Dataset.Table), ""
	if f.Dataset.Private {
		where = " WHERE source_file = " + sqlString(f.Name)
	}
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
		if _, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s%s", table, strings.Join(sets, ", "), where)); err != nil {
			return fmt.Errorf("load %s: %w", f.Path, err)
		}
	}
	checks := []string{"count(*)"}
	for _, name := range f.Header {
		checks = append(checks, fmt.Sprintf("count(%s)", sqlIdent(name)))
	}
	for _, name := range text {
		checks = append(checks, fmt.Sprintf("coalesce(sum(strlen(%s)), 0)", sqlIdent(name)))
	}
	dest := make([]int64, len(checks))
	ptrs := make([]any, len(checks))
	for i := range dest {
		ptrs[i] = &dest[i]
	}
	if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(checks, ", "), table, where)).Scan(ptrs...); err != nil {
		return fmt.Errorf("check %s: %w", f.Path, err)
	}
	if dest[0] != int64(f.Rows) {
		return fmt.Errorf("load %s: DuckDB read %d rows, validation read %d", f.Path, dest[0], f.Rows)
	}
	filled, bytes := dest[1:1+len(f.Header)], dest[1+len(f.Header):]
	for i, name := range f.Header {
		if filled[i] != f.Filled[name] {
			return fmt.Errorf("load %s: DuckDB read %d values in column %s, validation read %d non-empty cells", f.Path, filled[i], name, f.Filled[name])
		}
	}
	for i, name := range text {
		if bytes[i] != f.Bytes[name] {
			return fmt.Errorf("load %s: DuckDB read %d bytes in column %s, validation read %d", f.Path, bytes[i], name, f.Bytes[name])
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
