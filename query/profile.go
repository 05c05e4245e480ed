package query

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
)

// DefaultProfilesFile is the profile source used when NARRATIVE_DATA_FILE is not set.
const DefaultProfilesFile = "narrative_data.csv"

// Messages the seeds specify for get_user_profile.
const (
	msgNoProfileID     = "profile_idを指定してください"
	msgProfileNotFound = "ユーザーが見つかりません: "
)

// Profile is one user's profile, in the order the tool returns it.
type Profile struct {
	ProfileID        string `json:"profile_id"`
	Age              int    `json:"age"`
	Gender           string `json:"gender"`
	UserType         string `json:"user_type"`
	PrimaryStoreID   string `json:"primary_store_id"`
	PrimaryStoreName string `json:"primary_store_name"`
	Visits           int    `json:"visits"`
	Narrative        string `json:"narrative"`
}

// ProfileError is a lookup that cannot succeed as asked; its message is meant for the agent.
type ProfileError struct {
	Message string
	Usage   bool // the request itself was wrong (no id, bad source file name)
}

func (e *ProfileError) Error() string { return e.Message }

// profileSource is the shape NARRATIVE_DATA_FILE must have: a plain file name, never a path.
var profileSource = regexp.MustCompile(`^narrative_data[A-Za-z0-9_.-]*\.csv$`)

// CheckProfileSource validates the NARRATIVE_DATA_FILE value ("" means the default).
func CheckProfileSource(name string) (string, error) {
	if name == "" {
		return DefaultProfilesFile, nil
	}
	if !profileSource.MatchString(name) || !schema.Profiles.MatchesFile(name) {
		return "", &ProfileError{Usage: true, Message: fmt.Sprintf("NARRATIVE_DATA_FILE must be a plain narrative_data*.csv file name, not %q", name)}
	}
	return name, nil
}

// LookupProfile returns exactly one profile: the one with id among the profiles ingested from
// source. It opens the profiles database the main database at dbPath names, and nothing else of it;
// there is deliberately no way to list or search profiles.
func LookupProfile(ctx context.Context, dbPath, source, id string) (*Profile, error) {
	if id == "" {
		return nil, &ProfileError{Usage: true, Message: msgNoProfileID}
	}
	source, err := CheckProfileSource(source)
	if err != nil {
		return nil, err
	}
	path, err := profilesPath(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	db, err := openLocked(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT profile_id, age, gender, user_type, primary_store_id, primary_store_name, visits, narrative
		FROM profiles WHERE source_file = ? AND profile_id = ? LIMIT 2`, source, id)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", migrations.ErrNoDatabase, path, err)
	}
	defer rows.Close()
	var found []Profile
	for rows.Next() {
		var p Profile
		if err := rows.Scan(&p.ProfileID, &p.Age, &p.Gender, &p.UserType, &p.PrimaryStoreID, &p.PrimaryStoreName, &p.Visits, &p.Narrative); err != nil {
			return nil, err
		}
		found = append(found, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		var ingested bool
		if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM profiles WHERE source_file = ?)`, source).Scan(&ingested); err == nil && !ingested {
			return nil, &ProfileError{Usage: true, Message: fmt.Sprintf("no profiles were ingested from %s (NARRATIVE_DATA_FILE); run 'ctool ingest' with that file in the input directory", source)}
		}
		return nil, &ProfileError{Message: msgProfileNotFound + id}
	case 1:
		return &found[0], nil
	}
	return nil, fmt.Errorf("profile %q appears more than once in %s", id, source)
}

// profilesPath reads which profiles file the main database was built with.
func profilesPath(ctx context.Context, dbPath string) (string, error) {
	main, err := openLocked(ctx, dbPath)
	if err != nil {
		return "", err
	}
	defer main.Close()
	info, err := migrations.BuildInfo(ctx, main)
	if err != nil {
		return "", err
	}
	name := info[migrations.BuildProfiles]
	if name == "" {
		return "", fmt.Errorf("%w: %s records no profiles file", migrations.ErrNoDatabase, dbPath)
	}
	if name != filepath.Base(name) {
		return "", fmt.Errorf("%w: %s names a profiles file outside its directory", migrations.ErrNoDatabase, dbPath)
	}
	return filepath.Join(filepath.Dir(dbPath), name), nil
}

// openLocked opens a database file read-only with external access off, for ctool's own lookups.
func openLocked(ctx context.Context, path string) (*sql.DB, error) {
	db, err := migrations.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "SET enable_external_access = false"); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %s: %v", migrations.ErrNoDatabase, path, err)
	}
	return db, nil
}
