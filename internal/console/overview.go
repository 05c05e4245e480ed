package console

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
)

// overviewData is the overview: the build, its sources and the datasets.
type overviewData struct {
	ID           string
	Place        string // the build's place in the page's language; "" for a build that names none
	Schema       int
	LatestSchema int
	BuiltAtTokyo string
	Age          string
	Sources      []source
	Datasets     []datasetCount
	Input        string
	Fresh        bool // every source is fresh against --input
	StatusErr    string
	Against      string
}

type source struct {
	Dataset, File, SHA256, State string
	Rows                         int64
	Personal                     bool
}

type datasetCount struct {
	Table *table
	Rows  int64
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "overview")
	p.Title = p.T("Overview")
	d := &overviewData{Input: s.cfg.Input, Against: s.cfg.Against}
	err := s.conn(r.Context(), func(b *database.Build, c *database.Conn) error {
		d.ID = b.ID
		d.Place = b.Place().Name
		if p.Lang == "en" && b.Place().NameEn != "" {
			d.Place = b.Place().NameEn
		}
		d.Schema = b.SchemaVersion()
		if t, err := time.Parse(time.RFC3339, b.Build[database.BuildTime]); err == nil {
			d.BuiltAtTokyo = t.In(schema.Tokyo).Format("2006-01-02 15:04:05 MST")
			d.Age = p.Age(t, s.cfg.Now())
		}
		rows, err := c.Query(r.Context(), guard.Const(`SELECT dataset, source_file, sha256, row_count FROM ctool_meta.sources ORDER BY dataset, source_file`))
		if err != nil {
			return err
		}
		for rows.Next() {
			var src source
			if err := rows.Scan(&src.Dataset, &src.File, &src.SHA256, &src.Rows); err != nil {
				rows.Close()
				return err
			}
			src.Personal = tableNamed(src.Dataset) == nil
			d.Sources = append(d.Sources, src)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, t := range tables {
			var n int64
			if err := c.QueryRow(r.Context(), guard.Format("SELECT count(*) FROM %s", guard.MustIdent(t.Rel.Name))).Scan(&n); err != nil {
				return err
			}
			d.Datasets = append(d.Datasets, datasetCount{t, n})
		}
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.LatestSchema = migrations.Version(migrations.Main)
	if s.cfg.Input != "" {
		st, err := s.inputStatus(r.Context())
		if err != nil {
			d.StatusErr = err.Error()
		} else {
			d.applyStatus(st)
		}
	}
	s.render(w, p, "overview", d)
}

// applyStatus puts --input's states on the sources, and adds the files the build has not seen.
func (d *overviewData) applyStatus(st *changes.Status) {
	d.Fresh = st.Current()
	byFile := map[string]changes.SourceStatus{}
	for _, src := range st.Sources {
		byFile[src.File] = src
	}
	seen := map[string]bool{}
	for i := range d.Sources {
		if got, ok := byFile[d.Sources[i].File]; ok {
			d.Sources[i].State = got.State
			seen[got.File] = true
		}
	}
	for _, src := range st.Sources {
		if !seen[src.File] {
			d.Sources = append(d.Sources, source{Dataset: src.Dataset, File: src.File, SHA256: src.SHA256, State: src.State, Personal: tableNamed(src.Dataset) == nil})
		}
	}
}

// inputStatus is ingest's status of the build against --input, read again only when a file of the
// directory changed (its name, size or time).
func (s *Server) inputStatus(ctx context.Context) (*changes.Status, error) {
	key, err := dirKey(s.cfg.Input)
	if err != nil {
		return nil, err
	}
	if b, release, err := s.live.Acquire(ctx); err == nil {
		key += "|" + b.ID
		release()
	}
	c := &s.status
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == key {
		return c.val, nil
	}
	st, err := changes.ReadStatus(ctx, s.cfg.DB, s.cfg.Input)
	if err != nil {
		return nil, err
	}
	c.key, c.val = key, st
	return st, nil
}

// dirKey names the state of a directory's files: each one's name, size and time of change.
func dirKey(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, e := range entries {
		info, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s:%d:%d", e.Name(), info.Size(), info.ModTime().UnixNano()))
	}
	sort.Strings(parts)
	return strings.Join(parts, "|"), nil
}
