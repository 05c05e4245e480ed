package changes

import (
	"context"
	"maps"
	"slices"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/schema"
)

// Against is the previous build at path as validation's contracts compare the input with it
// (validation.Options.OpenPrevious): a built database file, or an input directory validated as input/
// is, read on the other core from now on while validation reads the input and every record it reads
// is fingerprinted.
func Against(path string) validation.Previous {
	p := &previous{path: path, cur: &fingerprinter{snap: newSnapshot()}, against: make(chan againstResult, 1)}
	go func() {
		snap, err := readAgainst(context.Background(), path, false)
		if err == nil {
			for _, t := range snap.tables {
				t.index() // sorted here, on the other core, while validation reads
			}
		}
		p.against <- againstResult{snap, err}
	}()
	return p
}

// previous is one comparison of the input with a previous build, for validation's contracts.
type previous struct {
	path    string
	cur     *fingerprinter     // the input, as validation reads it
	against chan againstResult // the previous build, until Compare takes it
}

type againstResult struct {
	snap *snapshot
	err  error
}

func (p *previous) Record(f *validation.File, record []string) { p.cur.record(f, record) }

// Compare compares the input, every row of it fingerprinted, with the previous build once read.
func (p *previous) Compare(broken map[*schema.Dataset]bool) (*validation.Comparison, []validation.Referenced, error) {
	p.cur.flush()
	got := <-p.against
	p.against = nil // taken: nothing left to abandon
	old, err := got.snap, got.err
	if err != nil {
		return nil, nil, err
	}
	if old.close != nil {
		defer old.close()
	}
	cur := p.cur.snap
	for d := range broken {
		cur.broken[d] = true
	}
	return diff(p.path, old, cur), stillReferenced(old, cur), nil
}

// Close stops fingerprinting and, when validation failed before it compared, closes the previous
// build once it is read.
func (p *previous) Close() {
	p.cur.flush()
	if p.against == nil {
		return
	}
	go func(against chan againstResult) {
		if got := <-against; got.snap != nil && got.snap.close != nil {
			got.snap.close()
		}
	}(p.against)
	p.against = nil
}

// stillReferenced lists every key of the previous build that disappeared while the input still
// refers to it, dataset by dataset and by key.
func stillReferenced(old, cur *snapshot) []validation.Referenced {
	var found []validation.Referenced
	for _, k := range schema.All() {
		o, n := old.tables[k], cur.tables[k]
		if o == nil || n == nil || cur.broken[k] || len(k.Key) != 1 {
			continue
		}
		users := map[string][]validation.Referrer{}
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
						users[value] = append(users[value], validation.Referrer{Dataset: d.Name, Rows: rows})
					}
				}
			}
		}
		for _, key := range slices.Sorted(maps.Keys(users)) {
			found = append(found, validation.Referenced{Dataset: k, Key: key, By: users[key]})
		}
	}
	return found
}
