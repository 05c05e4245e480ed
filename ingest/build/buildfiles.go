package build

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
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
)

// The files of a build beside the main file PATH (its base name B, and S, B without ".duckdb"):
//
//	S.profiles-<build>.duckdb   the profiles file, when B ends in ".duckdb"
//	B.profiles-<build>          the profiles file, otherwise
//	B.tmp-<pid>-<build>         the main file while it is built (and its .wal, and DuckDB's spill
//	                            directory .tmp, which it makes when a statement outgrows its memory)
//	P.tmp-<pid>-<build>         the profiles file P while it is built (and its .wal and .tmp)
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
	return regexp.MustCompile(`^(?:` + main + `|` + profiles + `)\.tmp-([0-9]+)-` + buildIDPattern + `(?:\.wal|\.tmp)?$`)
}

// tmpFiles are the temporary files of a build's database file at path: the file, its WAL, and DuckDB's
// spill directory.
func tmpFiles(path string) []string { return []string{path, path + ".wal", path + ".tmp"} }

// checkDBPath refuses a --db that is a symbolic link: the build is renamed over the path, which would
// replace the link with a regular file and leave its target stale.
func checkDBPath(dbPath string) error {
	if info, err := os.Lstat(dbPath); err == nil && info.Mode()&os.ModeSymlink != 0 {
		return &fault.Error{Kind: fault.KindUsage,
			Message: "--db " + dbPath + " is a symbolic link: ingest renames the new build over the path and would replace the link, not its target",
			Hint:    "give ingest the path of the database file itself"}
	}
	return nil
}

// removeAbandoned deletes the temporary files of dbPath's builds whose process is gone (killed
// mid-way): the process their name records is no longer running, or the one running under that pid
// (this one included: a container's ingest is often the same small pid each run) started after the
// file was last written, so it cannot be the build that wrote it.
func removeAbandoned(dbPath string) {
	dir, re := filepath.Dir(dbPath), tmpName(dbPath)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[len(m)-1])
		if err != nil {
			continue
		}
		info, err := e.Info()
		if err != nil || !abandoned(pid, info.ModTime()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if e.IsDir() {
			os.RemoveAll(path) // DuckDB's spill directory: removes links inside, never what they point to
		} else {
			os.Remove(path)
		}
	}
}

// abandoned reports whether no running process can be the build pid that last wrote a file at written.
func abandoned(pid int, written time.Time) bool {
	if pid <= 0 {
		return false
	}
	if pid != os.Getpid() {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
	}
	started, ok := processStart(pid)
	// The start time is known to the second at best (the boot time is): a margin keeps a build's own
	// fresh files its own.
	return ok && started.After(written.Add(2*time.Second))
}

// processStart is when process pid started, from /proc; false where /proc does not say.
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses; starttime is the 22nd field, in
	// clock ticks since boot.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return time.Time{}, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	const clockTicks = 100 // USER_HZ, the same on every Linux ABI
	return boot.Add(time.Duration(ticks) * time.Second / clockTicks), true
}

// bootTime is when the machine booted, from /proc/stat's btime.
func bootTime() (time.Time, bool) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(stat), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			if secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(secs, 0), true
			}
		}
	}
	return time.Time{}, false
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
	record, err := database.ReadRecord(context.Background(), path)
	if err != nil {
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
