package console

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strconv"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/console/changeview"
	"github.com/azabudai/ctool/internal/console/words"
)

// Changes: what changed from --against (a previous build, or an input directory) to the build, by
// each dataset's key, as validate --against compares; every row, with old and new values, the changed
// part of a text marked, and the values the build derives from it (changeview). The comparison is made
// once per build and kept until the build or the other side changes (changes.Cache).

// inlineRows is how many changed rows a dataset may have for the overview to show them all.
const inlineRows = 20

type changesCache struct{ changes.Cache }

func (c *changesCache) close() { c.Close() }

// changeSet is the comparison of the current build with --against, and the build's id.
func (s *Server) changeSet(ctx context.Context) (*changes.Set, string, error) {
	b, release, err := s.live.Acquire(ctx)
	if err != nil {
		return nil, "", err
	}
	id := b.ID
	release()
	set, err := s.changes.Get(ctx, s.cfg.DB, id, s.cfg.Against)
	return set, id, err
}

type changesData struct {
	Against    string
	Build      string
	Datasets   []validation.DatasetChange
	Inline     []changeList               // the changed rows of each dataset with inlineRows or fewer
	Many       []validation.DatasetChange // the datasets with more changed rows
	Derived    bool                       // a row shown has a derived value
	AgainstDir bool                       // the other side is an input directory: no derived values
	Limit      int
	Err        string
}

// changeList is rows of one dataset as the changes pages show them; P is the page, for its words.
type changeList struct {
	P       *page
	Dataset string
	Kind    string
	Start   int // the first row's number in the list
	Rows    []changeview.Row
}

func (s *Server) changesPage(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Against == "" {
		s.fail(w, r, &httpError{status: http.StatusNotFound, msg: "start the console with --against DB|DIR to see what changed"})
		return
	}
	p := s.newPage(r, "changes")
	p.Title = p.T("Changes")
	d := &changesData{Against: s.cfg.Against, Limit: inlineRows}
	set, id, err := s.changeSet(r.Context())
	d.Build = id
	if err != nil {
		s.cfg.Log.Error("compare", "against", s.cfg.Against, "error", err.Error())
		d.Err = p.T("The comparison could not be made: the other build or directory cannot be read, or is not valid.")
		s.render(w, p, "changes", d)
		return
	}
	d.Datasets = set.Datasets
	if info, err := os.Stat(s.cfg.Against); err == nil && info.IsDir() {
		d.AgainstDir = true
	}
	for _, ch := range set.Datasets {
		if t := tableNamed(ch.Dataset); t != nil && ch.Changed > inlineRows {
			d.Many = append(d.Many, ch)
		} else if t != nil && ch.Changed > 0 {
			if l, ok := s.changeList(p, set, t, changes.Changed, 0, inlineRows); ok {
				d.Inline = append(d.Inline, l)
				d.Derived = d.Derived || changeview.HasDerived(l.Rows)
			}
		}
	}
	s.render(w, p, "changes", d)
}

// changeList reads rows offset to offset+limit of a kind of change of a dataset, with the derived
// values of changed rows, as the pages show them; false when they cannot be read (the log says why).
func (s *Server) changeList(p *page, set *changes.Set, t *table, kind string, offset, limit int) (changeList, bool) {
	l := changeList{P: p, Dataset: t.D.Name, Kind: kind, Start: offset + 1}
	diffs, err := set.Diffs(t.D.Name, kind, offset, limit)
	if err != nil {
		s.cfg.Log.Error("read changes", "dataset", t.D.Name, "error", err.Error())
		return l, false
	}
	var derived [][]changes.Derived
	if kind == changes.Changed {
		// Without derived values the changes are still shown: the log says why they are missing.
		if derived, err = set.Derived(t.D.Name, offset, limit); err != nil {
			s.cfg.Log.Error("read derived values", "dataset", t.D.Name, "error", err.Error())
		}
	}
	l.Rows = changeview.Rows(p, t.D.Name, kind, diffs, derived, func(key []string) string {
		if len(key) != len(t.D.Key) {
			return ""
		}
		byName := map[string]any{}
		for i, k := range t.D.Key {
			byName[k] = key[i]
		}
		return t.recordQuery(byName)
	})
	return l, true
}

type changesetData struct {
	Dataset string
	Kind    string
	Kinds   []string
	Total   int
	Page    int
	Pages   int
	List    changeList
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
		s.exportChanges(w, set, t, format == "excel")
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
	p := s.newPage(r, "changes")
	p.Title = p.T("Changes") + ": " + p.T(name)
	var ok bool
	if d.List, ok = s.changeList(p, set, t, d.Kind, (d.Page-1)*pageSize, pageSize); !ok {
		s.fail(w, r, errors.New("the changes cannot be read"))
		return
	}
	s.render(w, p, "changeset", d)
}

// exportChanges writes every change of a dataset as CSV: one line per changed field, and one per added
// or removed row.
func (s *Server) exportChanges(w http.ResponseWriter, set *changes.Set, t *table, excel bool) {
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
	vals := make([]any, len(cols))
	var gone error // a client gone stops the export: the rest of the change set is not read for nobody
	err := set.Each(t.D.Name, exportChunk, func(kind string, key []string, f *validation.FieldChange) error {
		vals[0] = kind
		for i := range t.D.Key {
			vals[1+i] = nil
			if i < len(key) {
				vals[1+i] = key[i]
			}
		}
		n := len(t.D.Key) + 1
		vals[n], vals[n+1], vals[n+2] = nil, nil, nil
		if f != nil {
			vals[n], vals[n+1], vals[n+2] = f.Column, f.Old, f.New
		}
		gone = out.write(vals)
		return gone
	})
	if err != nil && gone == nil {
		s.cfg.Log.Error("export changes", "error", err.Error())
	}
	if err != nil || out.close() != nil || bw.Flush() != nil {
		panic(http.ErrAbortHandler)
	}
}

// The changes pages' words.
func init() {
	words.Add(changeview.Messages)
}
