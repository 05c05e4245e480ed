package changes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/migrations"
)

// Source states reported by status.
const (
	Fresh   = "fresh"   // the input file is the one the database was built from
	Stale   = "stale"   // the input file changed, or is new, since the ingest
	Missing = "missing" // the database was built from a file that is gone
)

// SourceStatus compares one source file with the build.
type SourceStatus struct {
	Dataset string `json:"dataset"`
	File    string `json:"file"`
	State   string `json:"state"`
	Rows    int64  `json:"rows"`
	SHA256  string `json:"sha256"`
}

// Status describes a built database and how it relates to the input directory.
type Status struct {
	DB            string           `json:"db"`
	SchemaVersion int              `json:"schema_version"`
	LatestSchema  int              `json:"latest_schema_version"`
	BuiltAt       string           `json:"built_at"`
	ProfilesFile  string           `json:"profiles_file"`
	ProfilesFound bool             `json:"profiles_found"`
	Rows          map[string]int64 `json:"rows"`
	Sources       []SourceStatus   `json:"sources"`
	// Unknown are the cells the build could not type, by column: kept as written, typed values NULL.
	Unknown []UnknownColumn `json:"unknown_cells"`
}

// UnknownColumn counts one column's cells that could not be typed, with the first lines they are on.
type UnknownColumn struct {
	Dataset string `json:"dataset"`
	File    string `json:"file"`
	Column  string `json:"column"`
	Rule    string `json:"rule"`
	Cells   int64  `json:"cells"`
	Lines   []int  `json:"lines"` // the first five, in file order
}

// Current reports whether every source is fresh, the schema is the latest and the profiles file exists.
func (s *Status) Current() bool {
	for _, src := range s.Sources {
		if src.State != Fresh {
			return false
		}
	}
	return s.SchemaVersion == s.LatestSchema && s.ProfilesFound
}

// ReadStatus describes the database at dbPath and compares its sources with the files in inputDir.
func ReadStatus(ctx context.Context, dbPath, inputDir string) (*Status, error) {
	b, err := database.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	info := b.Build
	st := &Status{DB: dbPath, BuiltAt: info[database.BuildTime], ProfilesFile: info[database.BuildProfiles], Rows: map[string]int64{}}
	st.SchemaVersion = b.SchemaVersion()
	st.LatestSchema = migrations.Version(migrations.Main)
	if _, err := os.Stat(filepath.Join(filepath.Dir(dbPath), st.ProfilesFile)); err == nil && st.ProfilesFile != "" {
		st.ProfilesFound = true
	}
	// An input directory that cannot be read is an error, not every source missing.
	inputs, err := validation.Inputs(inputDir)
	if err != nil {
		return nil, err
	}
	conn, err := b.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	rows, err := conn.Query(ctx, guard.Const(`SELECT dataset, source_file, sha256, row_count FROM ctool_meta.sources ORDER BY dataset, source_file`))
	if err != nil {
		// A build without its sources record is no usable database, as one without its build record.
		return nil, &fault.Error{Kind: fault.KindNoDatabase, Hint: database.NoDatabaseHint, Err: fmt.Errorf("%w: %w", database.ErrNoDatabase, err),
			Message: fmt.Sprintf("%s: %s has no sources record: %v", database.ErrNoDatabase, dbPath, err)}
	}
	defer rows.Close()
	recorded := map[string]bool{}
	for rows.Next() {
		var s SourceStatus
		if err := rows.Scan(&s.Dataset, &s.File, &s.SHA256, &s.Rows); err != nil {
			return nil, err
		}
		recorded[s.File] = true
		st.Rows[s.Dataset] += s.Rows
		sum, err := fileSHA256(filepath.Join(inputDir, s.File))
		switch {
		case errors.Is(err, os.ErrNotExist):
			s.State = Missing
		case err != nil:
			return nil, err
		case sum == s.SHA256:
			s.State = Fresh
		default:
			s.State = Stale
		}
		st.Sources = append(st.Sources, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// A data file added since the build (another narrative_data*.csv, say) makes the build stale too.
	for _, in := range inputs {
		if recorded[in.Name()] {
			continue
		}
		sum, err := fileSHA256(filepath.Join(inputDir, in.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // removed since the directory was listed
		}
		if err != nil {
			return nil, err
		}
		st.Sources = append(st.Sources, SourceStatus{Dataset: in.Dataset.Name, File: in.Name(), State: Stale, SHA256: sum})
	}
	sort.SliceStable(st.Sources, func(i, j int) bool { return st.Sources[i].Dataset < st.Sources[j].Dataset })
	if st.Unknown, err = unknownColumns(ctx, conn); err != nil {
		return nil, err
	}
	return st, nil
}

// unknownColumns reads the build's record of cells it could not type; a build from before that record
// (schema 8) has none to show.
func unknownColumns(ctx context.Context, conn *database.Conn) ([]UnknownColumn, error) {
	out := []UnknownColumn{}
	rows, err := conn.Query(ctx, guard.Const(`SELECT dataset, source_file, column_name, rule, count(*),
		list(line ORDER BY line)[1:5] FROM ctool_meta.unknown_cells
		GROUP BY ALL ORDER BY dataset, source_file, min(line), column_name`))
	if err != nil {
		return out, nil
	}
	defer rows.Close()
	for rows.Next() {
		var u UnknownColumn
		var lines []any
		if err := rows.Scan(&u.Dataset, &u.File, &u.Column, &u.Rule, &u.Cells, &lines); err != nil {
			return nil, err
		}
		for _, l := range lines {
			if n, ok := l.(int64); ok {
				u.Lines = append(u.Lines, int(n))
			}
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// fileSHA256 hashes an input file, opened as validation opens it: an entry it refuses (a link, a FIFO)
// is an error naming it. Any size is hashed: status only reads, at disk speed.
func fileSHA256(path string) (string, error) {
	f, _, err := validation.OpenInput(path, math.MaxInt64)
	if err != nil {
		return "", asIOError(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// asIOError makes a refused entry an error for people (status reads the same entries as validation).
func asIOError(err error) error {
	var ee *validation.EntryError
	if errors.As(err, &ee) {
		return &fault.Error{Kind: fault.KindIO, Message: ee.Error(), Err: err}
	}
	return err
}
