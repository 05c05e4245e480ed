// Package build makes a new build of the database files from the input directory, all or nothing:
// it loads the files into DuckDB while ingest/validation reads them, cross-checks DuckDB's reading with
// validation's, applies the migrations and stores the relations they derive (migrations), verifies
// both files against schema/ and renames them into place. It is the one writer of a build: every
// other package that opens one reads it.
package build

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// Options tune Run. The zero value keeps every problem and reports no progress.
type Options struct {
	// MaxErrors is how many problems validation's report keeps (all are counted); 0 keeps all.
	MaxErrors int
	// MaxFileSize is the largest input file read, in bytes; a larger one is a problem, refused before
	// it is read. 0 means validation.DefaultMaxFileSize.
	MaxFileSize int64
	// Progress, when set, is told how far validation has read the input (validation.Options.Progress);
	// its last report, Done, comes when the build is committed or abandoned.
	Progress func(validation.Progress)
	// Step, when set, is called by Run after each step of the build with the step's name (the Step
	// constants, in that order), so that tests can stop a build at any of them. The CLI passes nil.
	Step func(name string)
	// Strict makes every warning an error: a value that cannot be typed refuses the build, as it did
	// before such values were kept unknown.
	Strict bool

	// failed, when set, is called once, at the first error validation finds, after the load is stopped.
	failed func()
	// loading, when set, is called by the load before it creates its files (f nil) and before each
	// file's load, only while validation has found no problem: tests watch the load through it.
	loading func(f *planned)
}

// Summary says what an ingest built.
type Summary struct {
	DB            string
	ProfilesDB    string
	SchemaVersion int
	Files         []*validation.File
	Warnings      []validation.Problem // what validation reported without failing (as many as Options.MaxErrors keeps)
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

// Run validates the files in dir and builds new database files from them, all or nothing. The load
// runs while validation reads the same files: DuckDB loads into temporary files that nothing reads, and
// the build is committed only when validation found no problem and DuckDB's reading of every file
// matches validation's. The load stops at validation's first problem, and no file starts loading
// after it; an input whose entries or headers validation will refuse is not loaded at all. Data that
// fails validation is a *validation.InvalidError carrying the report; a failure after validation is a
// *ctool.Error (I/O, timeout, interrupted or internal). opts.Progress follows validation's reading;
// its last report, Done, comes when the build is committed or abandoned. A build that fails or is
// cancelled removes its temporary files; one killed at any moment leaves the old files working, and
// the next ingest removes what it left.
func Run(ctx context.Context, dir, dbPath string, opts Options) (*Summary, error) {
	start := time.Now()
	files, loadable, err := plan(dir, opts.MaxFileSize)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, f := range files {
			f.fh.Close()
		}
	}()
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	g := &gate{cancel: cancelLoad, loading: opts.loading}
	comp := &computed{}
	vopts := validation.Options{MaxErrors: opts.MaxErrors, MaxFileSize: opts.MaxFileSize, Strict: opts.Strict, Observe: comp.observe}
	vopts.Failed = func() {
		g.stop()
		if opts.failed != nil {
			opts.failed()
		}
	}
	var read validation.Progress // validation's last report, held back until the build is over
	if opts.Progress != nil {
		vopts.Progress = func(p validation.Progress) {
			if p.Done {
				read = p
				return
			}
			opts.Progress(p)
		}
	}
	type validated struct {
		res *validation.Result
		err error
	}
	done := make(chan validated, 1)
	go func() {
		res, err := validation.RunContext(ctx, dir, vopts)
		done <- validated{res, err}
	}()
	if opts.Progress != nil {
		// Every return below waits for validation first.
		defer func() { read.Done = true; opts.Progress(read) }()
	}
	invalid := func(v validated) error {
		switch {
		case ctx.Err() != nil:
			return buildFailed(ctx.Err(), false)
		case v.err != nil:
			return v.err
		case !v.res.Report.Valid():
			return &validation.InvalidError{Dir: dir, Result: v.res}
		}
		return nil
	}
	if !loadable {
		v := <-done
		if err := invalid(v); err != nil {
			return nil, err
		}
		return nil, buildFailed(errors.New("the input files changed while they were read; run ingest again"), false)
	}

	b, err := newBuilder(dbPath, opts.Step)
	if err != nil {
		g.stop()
		<-done
		return nil, err
	}
	defer b.abort()
	loaded := make(chan error, 1)
	go func() { loaded <- b.load(loadCtx, g, files) }()

	v := <-done
	if err := invalid(v); err != nil {
		g.stop()
		<-loaded
		return nil, err
	}
	// After validation, a failure of a cancelled build is the cancellation, whatever DuckDB said of it.
	failed := func(err error, committed bool) error {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return buildFailed(err, committed)
	}
	if opts.Progress != nil {
		// Read but not done: the load may still be running, and the commit is to come.
		opts.Progress(validation.Progress{Rows: read.Rows, Bytes: read.Bytes, TotalBytes: read.TotalBytes, Read: true})
	}
	if err := <-loaded; err != nil {
		return nil, failed(err, false)
	}
	if !samePlan(files, v.res.Files) {
		return nil, failed(errors.New("the input files changed while they were read; run ingest again"), false)
	}
	given := comp.given()
	given.Unknown = unknownCells(v.res.Files)
	version, err := b.finish(ctx, v.res, given)
	if err == nil {
		err = ctx.Err() // interrupted after the last statement: not committed
	}
	if err != nil {
		return nil, failed(err, false)
	}
	if err := b.commit(ctx); err != nil {
		return nil, failed(err, b.committed)
	}
	sum := &Summary{DB: dbPath, ProfilesDB: b.profilesPath, SchemaVersion: version, Files: v.res.Files, Elapsed: time.Since(start)}
	for _, p := range v.res.Report.Problems {
		if p.Warning() {
			sum.Warnings = append(sum.Warnings, p)
		}
	}
	return sum, nil
}

// errStopped is the load's error once validation has failed.
var errStopped = errors.New("validation failed; the load stopped")

// gate lets the load start a statement only while validation has found no problem: stop closes it
// and cancels the statement running, and no statement passes it afterwards.
type gate struct {
	mu      sync.Mutex
	stopped bool
	cancel  context.CancelFunc
	loading func(f *planned) // Options.loading
}

func (g *gate) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	g.cancel()
}

// pass is called before each of the load's steps (f is nil for the files' creation): errStopped once
// validation has failed.
func (g *gate) pass(f *planned) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return errStopped
	}
	if g.loading != nil {
		g.loading(f)
	}
	return nil
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
	b.profilesPath = profilesPath(dbPath, b.buildID)
	b.tmpProfiles = fmt.Sprintf("%s.tmp-%d-%s", b.profilesPath, os.Getpid(), b.buildID)
	return b, nil
}

// load creates both files, applies the migrations and loads every file into its table, each step only
// while g lets it.
func (b *builder) load(ctx context.Context, g *gate, files []*planned) error {
	if err := g.pass(nil); err != nil {
		return err
	}
	var err error
	if b.main, err = openFile(b.tmpMain); err != nil {
		return err
	}
	if b.profiles, err = openFile(b.tmpProfiles); err != nil {
		return err
	}
	if _, err := migrate(ctx, b.main, migrations.Main); err != nil {
		return err
	}
	if _, err := migrate(ctx, b.profiles, migrations.Profiles); err != nil {
		return err
	}
	b.step(StepCreated)
	for _, f := range files {
		if err := g.pass(f); err != nil {
			return err
		}
		if err := loadCSV(ctx, b.dbFor(f.Dataset), f); err != nil {
			return err
		}
	}
	b.step(StepLoaded)
	return nil
}

// dbFor is the file a dataset goes to: profiles to their own, everything else to the main file.
func (b *builder) dbFor(d *schema.Dataset) *sql.DB {
	if d.Private {
		return b.profiles
	}
	return b.main
}

// finish cross-checks every loaded table against validation, stores the typed relations (with what
// validation computed of them), records the build with the place file's place, verifies both files
// against schema/ and closes them, checkpointed. It returns the main file's schema version.
func (b *builder) finish(ctx context.Context, res *validation.Result, given migrations.Given) (int, error) {
	now := time.Now()
	for _, f := range res.Files {
		if err := checkLoaded(ctx, b.dbFor(f.Dataset), f); err != nil {
			return 0, err
		}
		if _, err := b.main.ExecContext(ctx, `INSERT INTO ctool_meta.sources VALUES (?, ?, ?, ?, ?)`,
			f.Dataset.Name, f.Name, f.SHA256, f.Rows, now); err != nil {
			return 0, err
		}
	}
	// After the cross-check: a CRLF rewrite there changes cells the stored relations derive from.
	if err := fill(ctx, b.main, given); err != nil {
		return 0, err
	}
	version := migrations.Version(migrations.Main)
	record := map[string]string{database.BuildID: b.buildID, database.BuildTime: now.UTC().Format(time.RFC3339),
		database.BuildProfiles: filepath.Base(b.profilesPath), database.BuildSchema: strconv.Itoa(version)}
	// A build without a place file records no place, rather than an empty one.
	if res.Place.Name != "" {
		record[database.BuildPlace] = res.Place.Name
	}
	if res.Place.NameEn != "" {
		record[database.BuildPlaceEn] = res.Place.NameEn
	}
	for k, v := range record {
		if _, err := b.main.ExecContext(ctx, `INSERT INTO ctool_meta.build VALUES (?, ?)`, k, v); err != nil {
			return 0, err
		}
	}
	for k, v := range map[string]string{database.BuildID: b.buildID, buildMainFile: filepath.Base(b.dbPath)} {
		if _, err := b.profiles.ExecContext(ctx, `INSERT INTO ctool_meta.build VALUES (?, ?)`, k, v); err != nil {
			return 0, err
		}
	}
	if err := verifyMain(ctx, b.main); err != nil {
		return 0, err
	}
	if err := verifyProfiles(ctx, b.profiles); err != nil {
		return 0, err
	}
	b.step(StepChecked)
	err := closeFile(ctx, b.main, b.tmpMain)
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
	for _, p := range append(append(tmpFiles(b.tmpMain), tmpFiles(b.tmpProfiles)...), b.profilesPath) {
		os.RemoveAll(p) // DuckDB removes its spill directory when it closes; a failed close may leave it
	}
	if b.createdDir != "" {
		os.Remove(b.createdDir) // only if empty
	}
}
