package validation

import (
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
// Upcoming column, and, with Against, the previous build that every record is compared with.
type watch struct {
	latestEnd map[*schema.Dataset]string
	previous  Previous
}

// observe sees one complete record of f.
func (w *watch) observe(f *File, record []string) {
	if w.previous != nil {
		w.previous.Record(f, record)
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
		if d.Upcoming == "" || len(files) == 0 {
			continue
		}
		if broken[d] {
			for _, f := range files {
				v.report.skip(f.Path, "not run: the "+d.Name+" files have encoding, header, ragged or format problems", schema.ContractUpcoming)
			}
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
	cmp, referenced, err := w.previous.Compare(broken)
	if err != nil {
		return err
	}
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
	for _, r := range referenced {
		k := r.Dataset
		if len(filesOf[k]) == 0 {
			continue
		}
		var by []string
		for _, u := range r.By {
			by = append(by, fmt.Sprintf("%d %s %s", u.Rows, u.Dataset, textout.Plural(u.Rows, "row", "rows")))
		}
		sort.Strings(by)
		found = append(found, Problem{File: filesOf[k][0].Path, Column: k.Key[0], Rule: schema.ContractReferenced,
			Message: fmt.Sprintf("%s %q was removed but %s still refer to it; keep it or change them first",
				k.Key[0], r.Key, strings.Join(by, " and "))})
	}
	return nil
}

// contractRules are the contracts' rule words.
func contractRules() []string {
	var rules []string
	for _, c := range schema.Contracts {
		rules = append(rules, c.Rule)
	}
	return rules
}

// percent shows a share as people write it: 10%, 12.5%.
func percent(share float64) string {
	s := fmt.Sprintf("%.1f", share*100)
	return strings.TrimSuffix(s, ".0") + "%"
}
