package console

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/ingest/validation"
)

// Changes: what changed from --against (a previous build, or an input directory) to the build, by
// each dataset's key, as validate --against compares; every row, with old and new values. The
// comparison is made once per build and kept until the build or the other side changes.

type changesCache struct {
	mu  sync.Mutex
	key string
	set *changes.Set
}

func (c *changesCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil {
		c.set.Close()
		c.set = nil
	}
}

// changeSet is the comparison of the current build with --against.
func (s *Server) changeSet(ctx context.Context) (*changes.Set, string, error) {
	b, release, err := s.live.Acquire(ctx)
	if err != nil {
		return nil, "", err
	}
	id := b.ID
	release()
	key := id
	if info, err := os.Stat(s.cfg.Against); err == nil {
		if info.IsDir() {
			k, _ := dirKey(s.cfg.Against)
			key += "|" + k
		} else {
			key += "|" + strconv.FormatInt(info.Size(), 10) + ":" + strconv.FormatInt(info.ModTime().UnixNano(), 10)
		}
	}
	c := &s.changes
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil && c.key == key {
		return c.set, id, nil
	}
	if c.set != nil {
		c.set.Close()
		c.set = nil
	}
	// The comparison outlives the request that made it: its reads of values later use this context.
	set, err := changes.Compare(context.WithoutCancel(ctx), s.cfg.DB, s.cfg.Against)
	if err != nil {
		return nil, id, err
	}
	c.key, c.set = key, set
	return set, id, nil
}

type changesData struct {
	Against  string
	Build    string
	Datasets []validation.DatasetChange
	Err      string
}

func (s *Server) changesPage(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Against == "" {
		s.fail(w, r, &httpError{status: http.StatusNotFound, msg: "start the console with --against DB|DIR to see what changed"})
		return
	}
	p := s.newPage(r, "changes")
	p.Title = p.T("Changes")
	d := &changesData{Against: s.cfg.Against}
	set, id, err := s.changeSet(r.Context())
	d.Build = id
	if err != nil {
		s.cfg.Log.Error("compare", "against", s.cfg.Against, "error", err.Error())
		d.Err = p.T("The comparison could not be made: the other build or directory cannot be read, or is not valid.")
	} else {
		d.Datasets = set.Datasets
	}
	s.render(w, p, "changes", d)
}

type changesetData struct {
	Dataset string
	Kind    string
	Kinds   []string
	Total   int
	Page    int
	Pages   int
	Offset  int
	Rows    []diffRow
}

type diffRow struct {
	changes.RowDiff
	Link string
}

var changeKinds = []string{changes.Changed, changes.Added, changes.Removed}

// changesDataset serves /changes/{dataset} (a page of one kind) and /changes/{dataset}.csv (all).
func (s *Server) changesDataset(w http.ResponseWriter, r *http.Request) {
	name, format := splitFormat(r.PathValue("file"))
	t := tableNamed(name)
	if s.cfg.Against == "" || t == nil || (format != "" && format != "csv" && format != "excel") {
		s.fail(w, r, errNotFound)
		return
	}
	set, _, err := s.changeSet(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if format != "" {
		s.exportChanges(w, r, set, t, format == "excel")
		return
	}
	q := r.URL.Query()
	d := &changesetData{Dataset: name, Kind: q.Get("kind"), Kinds: changeKinds, Page: 1}
	if d.Kind == "" {
		d.Kind = changes.Changed
	}
	if !slices.Contains(changeKinds, d.Kind) {
		s.fail(w, r, badRequest("kind is changed, added or removed"))
		return
	}
	if pg := q.Get("_page"); pg != "" {
		if d.Page, err = strconv.Atoi(pg); err != nil || d.Page < 1 {
			s.fail(w, r, badRequest("page %q is not a page number", pg))
			return
		}
	}
	d.Total = set.Count(name, d.Kind)
	d.Pages = (d.Total + pageSize - 1) / pageSize
	if d.Page > 1 && d.Page > d.Pages {
		s.fail(w, r, errNotFound)
		return
	}
	d.Offset = (d.Page - 1) * pageSize
	diffs, err := set.Diffs(name, d.Kind, d.Offset, pageSize)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, df := range diffs {
		row := diffRow{RowDiff: df}
		if d.Kind != changes.Removed && len(df.Key) == len(t.D.Key) {
			byName := map[string]any{}
			for i, k := range t.D.Key {
				byName[k] = df.Key[i]
			}
			row.Link = t.recordQuery(byName)
		}
		d.Rows = append(d.Rows, row)
	}
	p := s.newPage(r, "changes")
	p.Title = p.T("Changes") + ": " + p.T(name)
	s.render(w, p, "changeset", d)
}

// exportChanges writes every change of a dataset as CSV: one line per changed field, and one per added
// or removed row.
func (s *Server) exportChanges(w http.ResponseWriter, r *http.Request, set *changes.Set, t *table, excel bool) {
	name := "changes-" + t.D.Name
	if excel {
		name += "-excel"
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+fileName(name)+`.csv"`)
	h.Set("Cache-Control", "no-store")
	bw := bufio.NewWriterSize(w, 64<<10)
	cols := []column{{Name: "change"}}
	for _, k := range t.D.Key {
		cols = append(cols, column{Name: k})
	}
	cols = append(cols, column{Name: "column"}, column{Name: "old"}, column{Name: "new"})
	out := newCSV(excel)(bw, cols)
	// A client gone stops the export: the rest of the change set is not read for nobody.
	write := func(vals []any) {
		if out.write(vals) != nil {
			panic(http.ErrAbortHandler)
		}
	}
	vals := make([]any, len(cols))
	for _, kind := range changeKinds {
		total := set.Count(t.D.Name, kind)
		for off := 0; off < total; off += exportChunk {
			diffs, err := set.Diffs(t.D.Name, kind, off, exportChunk)
			if err != nil {
				s.cfg.Log.Error("export changes", "error", err.Error())
				panic(http.ErrAbortHandler)
			}
			for _, df := range diffs {
				vals[0] = kind
				for i := range t.D.Key {
					vals[1+i] = nil
					if i < len(df.Key) {
						vals[1+i] = df.Key[i]
					}
				}
				n := len(t.D.Key) + 1
				if kind != changes.Changed {
					vals[n], vals[n+1], vals[n+2] = nil, nil, nil
					write(vals)
					continue
				}
				for _, f := range df.Fields {
					vals[n], vals[n+1], vals[n+2] = f.Column, f.Old, f.New
					write(vals)
				}
			}
		}
	}
	if err := out.close(); err != nil {
		panic(http.ErrAbortHandler)
	}
	if bw.Flush() != nil {
		panic(http.ErrAbortHandler)
	}
}
