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
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/database"
)

// The files of a build beside the main file PATH (its base name B, and S, B without ".duckdb"):
//
//	S.profiles-<build>.duckdb   the profiles file, when B ends in ".duckdb"
//	B.profiles-<build>          the profiles file, otherwise
//	B.tmp-<pid>-<build>         the main file while it is built (and its .wal)
//	P.tmp-<pid>-<build>         the profiles file P while it is built (and its .wal)
//
// Every name ends in a suffix of fixed shape after B (or S), and the two profiles forms end
// differently, so a name belongs to at most one main file: data/ctool and data/ctool.duckdb never claim
// each other's files. Clean-up removes a file only when its name is exactly one of these forms for
// the main file being built and, for a profiles file, when its build record proves it: its build_id
// is the one in its name, it names no profiles file of its own (it is not somebody's main file), and
// the main file it was built for, when recorded, is this one.

// buildMainFile is the profiles file's record of the main file's base name it was built for.
const buildMainFile = "main_file"

// buildIDPattern matches newBuildID's ids.
const buildIDPattern = `[0-9a-f]{12}`

// profilesPath is the profiles database of a build: beside the main file, named by the build so that
// renaming the main file into place switches both files at once.
func profilesPath(dbPath, buildID string) string {
	if stem, ok := strings.CutSuffix(dbPath, ".duckdb"); ok {
		return stem + ".profiles-" + buildID + ".duckdb"
	}
	return dbPath + ".profiles-" + buildID
}

// profilesName matches the base names of dbPath's profiles files; its group is the build id.
func profilesName(dbPath string) *regexp.Regexp {
	ours := regexp.QuoteMeta(filepath.Base(profilesPath(dbPath, "\x00")))
	return regexp.MustCompile("^" + strings.Replace(ours, "\x00", "("+buildIDPattern+")", 1) + "$")
}

// tmpName matches the base names of the temporary files of dbPath's builds; its group is the pid.
func tmpName(dbPath string) *regexp.Regexp {
	main := regexp.QuoteMeta(filepath.Base(dbPath))
	profiles := strings.Trim(profilesName(dbPath).String(), "^$")
	return regexp.MustCompile(`^(?:` + main + `|` + profiles + `)\.tmp-([0-9]+)-` + buildIDPattern + `(?:\.wal)?$`)
}

// checkDBPath refuses a --db that is a symbolic link: the build is renamed over the path, which would
// replace the link with a regular file and leave its target stale.
func checkDBPath(dbPath string) error {
	if info, err := os.Lstat(dbPath); err == nil && info.Mode()&os.ModeSymlink != 0 {
		return &ctool.Error{Kind: ctool.KindUsage,
			Message: "--db " + dbPath + " is a symbolic link: ingest renames the new build over the path and would replace the link, not its target",
			Hint:    "give ingest the path of the database file itself"}
	}
	return nil
}

// removeAbandoned deletes temporary files of dbPath's builds whose process is gone (killed mid-way).
func removeAbandoned(dbPath string) {
	dir, re := filepath.Dir(dbPath), tmpName(dbPath)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[len(m)-1])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// removeOldProfiles deletes every profiles file of dbPath but current and previous, each only once
// its build record proves it one.
func removeOldProfiles(dbPath, current, previous string) {
	dir, re := filepath.Dir(dbPath), profilesName(dbPath)
	keep := map[string]bool{filepath.Base(current): true, filepath.Base(previous): true}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil || keep[e.Name()] || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if isProfilesFileOf(path, m[1], filepath.Base(dbPath)) {
			os.Remove(path)
			os.Remove(path + ".wal")
		}
	}
}

// isProfilesFileOf reports whether the file at path records that it is the profiles file of build
// buildID of the main file named mainFile.
func isProfilesFileOf(path, buildID, mainFile string) bool {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return false
	}
	defer db.Close()
	rows, err := db.Query(`SELECT key, value FROM ctool_meta.build`)
	if err != nil {
		return false
	}
	defer rows.Close()
	record := map[string]string{}
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) != nil {
			return false
		}
		record[k] = v
	}
	if rows.Err() != nil {
		return false
	}
	owner, recorded := record[buildMainFile]
	return record[database.BuildID] == buildID && record[database.BuildProfiles] == "" && (!recorded || owner == mainFile)
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
