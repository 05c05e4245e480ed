package sites

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/publish"
	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
)

// Local is a build on this machine about to be published: its manifest, read from the build itself,
// and its profiles file's, when it has one.
type Local struct {
	Path     string
	Manifest publish.Manifest // SHA256 and Size are publish.Publish's to fill in
	// ProfilesPath and Profiles are the build's profiles file and its manifest; "" when the build
	// names none or it cannot be opened (ProfilesErr says why).
	ProfilesPath string
	Profiles     publish.Manifest
	ProfilesErr  error
}

// ReadLocal opens the build at path as every reader does and reads what its manifest says: the build
// record (id, schema version, place, time) and each public dataset's rows, counted with ctool's own
// SQL; version is this ctool's, which the manifest records. A build of another schema version than
// this ctool serves is refused (kind stale): every follower would refuse it.
func ReadLocal(ctx context.Context, path, version string) (*Local, error) {
	b, err := database.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	want := migrations.Version(migrations.Main)
	got := b.SchemaVersion()
	if got != want {
		return nil, fault.Errorf(fault.KindStale, "%s has schema version %d and this ctool serves %d: every follower would refuse it", path, got, want).
			WithHint("ctool ingest --db " + path + " rebuilds it with this ctool")
	}
	created, err := time.Parse(time.RFC3339, b.Build[database.BuildTime])
	if err != nil {
		return nil, fault.Errorf(fault.KindNoDatabase, "%s: its build record has no valid %s (%q)", path, database.BuildTime, b.Build[database.BuildTime]).
			WithHint(database.NoDatabaseHint)
	}
	m := publish.Manifest{BuildID: b.ID, SchemaVersion: got, Place: b.Place().Name, CreatedAt: created.UTC(),
		CtoolVersion: version, RowCounts: map[string]int64{}}
	if m.RowCounts, err = countRows(ctx, b.File, schema.Public()); err != nil {
		return nil, fmt.Errorf("%s: counting rows: %w", path, err)
	}
	l := &Local{Path: path, Manifest: m}
	name := b.Build[database.BuildProfiles]
	if name == "" {
		l.ProfilesErr = fmt.Errorf("%s records no profiles file", path)
		return l, nil
	}
	pf, err := b.Profiles(ctx)
	if err != nil {
		l.ProfilesErr = err
		return l, nil
	}
	pm := m
	pm.SchemaVersion = migrations.Version(migrations.Profiles)
	if pm.RowCounts, err = countRows(ctx, pf, []*schema.Dataset{schema.Profiles}); err != nil {
		l.ProfilesErr = err
		return l, nil
	}
	l.ProfilesPath, l.Profiles = filepath.Join(filepath.Dir(path), name), pm
	return l, nil
}

// countRows counts each dataset's table in f, by the dataset's name.
func countRows(ctx context.Context, f *database.File, datasets []*schema.Dataset) (map[string]int64, error) {
	c, err := f.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	counts := map[string]int64{}
	for _, d := range datasets {
		table, err := guard.Ident(d.Table)
		if err != nil {
			return nil, err
		}
		var n int64
		if err := c.QueryRow(ctx, guard.Format("SELECT count(*) FROM %s", table)).Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		counts[d.Name] = n
	}
	return counts, nil
}
