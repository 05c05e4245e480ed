package ingest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
)

// Contracts turns on validation's contracts (schema.Contracts): checks on data that is valid cell by
// cell but wrong as a whole. Those that need the previous build run only when Against is set.
type Contracts struct {
	// Against is the previous build: a built database file or an input directory.
	Against string
	// MaxRemoved is the share of a dataset's rows (0 to 1) a change may remove.
	MaxRemoved float64
	// Strict makes the warnings errors.
	Strict bool
	// Today is the date in Tokyo as YYYY-MM-DD; empty means now. Tests set it.
	Today string
}

func (c *Contracts) today() string {
	if c.Today != "" {
		return c.Today
	}
	return time.Now().In(schema.Tokyo).Format(time.DateOnly)
}

// watch is what the contracts need from validation's reading: the last end date of each dataset's
// Upcoming column, and, with Against, a snapshot of every row.
type watch struct {
	snap      *snapshot
	latestEnd map[*schema.Dataset]string
	against   chan againstResult // the previous build, read on the other core while validation reads
	worker    *snapWorker        // fingerprinting rows into snap (snapworker.go)
}

type againstResult struct {
	snap *snapshot
	err  error
}

// abandon closes the previous build once read, when validation failed and will not compare.
func (w *watch) abandon() {
	if w == nil || w.against == nil {
		return
	}
	go func() {
		if got := <-w.against; got.snap != nil && got.snap.close != nil {
			got.snap.close()
		}
	}()
}

// readAgainst starts reading the previous build beside validation.
func (w *watch) readAgainst(path string) {
	w.against = make(chan againstResult, 1)
	go func() {
		snap, err := readAgainst(context.Background(), path, false)
		if err == nil {
			for _, t := range snap.tables {
				t.index() // sorted here, on the other core, while validation reads
			}
		}
		w.against <- againstResult{snap, err}
	}()
}

// observe sees one complete record of f.
func (w *watch) observe(f *File, record []string) {
	if w.snap != nil {
		w.fingerprint(f, record)
	}
	d := f.Dataset
	if d.Upcoming == "" {
		return
	}
	i := indexOf(f.Header, d.Upcoming)
	if i < 0 {
		return
	}
	cell := record[i]
	if checkDateRange(cell) != "" {
		return // reported by the cell's own check
	}
	_, end, isRange := strings.Cut(cell, "/")
	if !isRange {
		end = cell
	}
	if end > w.latestEnd[d] {
		w.latestEnd[d] = end
	}
}

// checkContracts runs the contracts after every file has been read.
func (v *validator) checkContracts(res *Result, c *Contracts, w *watch) error {
	var found []Problem
	defer func() { v.report.addFirst(found) }()
	severity := SeverityWarning
	if c.Strict {
		severity = ""
	}
	today := c.today()
	filesOf := map[*schema.Dataset][]*File{}
	for _, f := range res.Files {
		filesOf[f.Dataset] = append(filesOf[f.Dataset], f)
	}
	broken := map[*schema.Dataset]bool{}
	for _, f := range res.Files {
		if f.Bytes == nil || v.report.lostRows(f.Path) {
			broken[f.Dataset] = true
		}
	}

	for _, d := range schema.All() {
		files := filesOf[d]
		if d.Upcoming == "" || len(files) == 0 || broken[d] {
			continue
		}
		latest := w.latestEnd[d]
		if latest >= today {
			continue
		}
		msg := fmt.Sprintf("nothing in %s ends today (%s in Tokyo) or later", d.Name, today)
		if latest != "" {
			msg += fmt.Sprintf("; the last ended on %s", latest)
		}
		found = append(found, Problem{File: files[0].Path, Column: d.Upcoming, Rule: schema.ContractUpcoming, Severity: severity,
			Message: fmt.Sprintf("%s; add the coming %s", msg, d.Name)})
	}

	if c.Against == "" {
		return nil
	}
	got := <-w.against
	w.against = nil // taken: nothing left to abandon
	old, err := got.snap, got.err
	if err != nil {
		return err
	}
	if old.close != nil {
		defer old.close()
	}
	for d := range broken {
		w.snap.broken[d] = true
	}
	cmp := compare(c.Against, old, w.snap)
	v.report.Comparison = cmp
	for _, ch := range cmp.Datasets {
		d, _ := schema.ByName(ch.Dataset)
		if !ch.Compared || ch.WasRows == 0 || len(filesOf[d]) == 0 {
			continue
		}
		share := float64(ch.Removed) / float64(ch.WasRows)
		if share > c.MaxRemoved {
			found = append(found, Problem{File: filesOf[d][0].Path, Rule: schema.ContractRemoved,
				Message: fmt.Sprintf("%d of %d %s rows were removed since %s (%s); at most %s may go (--max-removed)",
					ch.Removed, ch.WasRows, d.Name, c.Against, percent(share), percent(c.MaxRemoved))})
		}
	}
	found = append(found, stillReferenced(old, w.snap, filesOf)...)
	return nil
}

// stillReferenced reports every key that disappeared while the new data still refers to it.
func stillReferenced(old, cur *snapshot, filesOf map[*schema.Dataset][]*File) []Problem {
	var found []Problem
	type use struct {
		dataset string
		rows    int
	}
	for _, k := range schema.All() {
		o, n := old.tables[k], cur.tables[k]
		if o == nil || n == nil || cur.broken[k] || len(k.Key) != 1 || len(filesOf[k]) == 0 {
			continue
		}
		users := map[string][]use{}
		for _, d := range schema.All() {
			t := cur.tables[d]
			if t == nil || cur.broken[d] {
				continue
			}
			for i, ref := range d.References {
				if ref.Dataset != k.Name || ref.Key != k.Key[0] {
					continue
				}
				for value, rows := range t.refs[i] {
					if o.has(value) && !n.has(value) {
						users[value] = append(users[value], use{d.Name, rows})
					}
				}
			}
		}
		keys := make([]string, 0, len(users))
		for key := range users {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			var by []string
			for _, u := range users[key] {
				by = append(by, fmt.Sprintf("%d %s %s", u.rows, u.dataset, textout.Plural(u.rows, "row", "rows")))
			}
			sort.Strings(by)
			found = append(found, Problem{File: filesOf[k][0].Path, Column: k.Key[0], Rule: schema.ContractReferenced,
				Message: fmt.Sprintf("%s %q was removed but %s still refer to it; keep it or change them first",
					k.Key[0], key, strings.Join(by, " and "))})
		}
	}
	return found
}

// percent shows a share as people write it: 10%, 12.5%.
func percent(share float64) string {
	s := fmt.Sprintf("%.1f", share*100)
	return strings.TrimSuffix(s, ".0") + "%"
}
