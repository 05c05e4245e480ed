package build

import (
	"slices"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
)

// computed collects, as validation reads every record, the values of the build that Go computes from
// a whole column (migrations.Given): the products' prices, from every description. Validation reads
// the descriptions anyway, on its own core beside DuckDB's load, so they cost the build next to nothing
// there, where DuckDB's regular expression over a million descriptions cost a second of CPU.
type computed struct {
	prices []migrations.Price
	file   *validation.File // the file descriptions are read from, at column description
	column int
}

// observe is validation.Options.Observe. A build is made only from valid input, so every record of
// the products file reaches it, in the order DuckDB loads them.
func (c *computed) observe(f *validation.File, record []string) {
	if f.Dataset != schema.Products {
		return
	}
	if c.file != f {
		c.file, c.column = f, slices.Index(f.Header, "product_description")
	}
	if c.column >= 0 {
		c.prices = append(c.prices, migrations.PriceOf(record[c.column]))
	}
}

// given is what fill is given: the prices only when a products file was read.
func (c *computed) given() migrations.Given {
	return migrations.Given{Prices: c.prices}
}

// unknownCells are the files' cells validation could not type, by their row in the table they load
// into: a dataset's files load one after another, in the order validation read them.
func unknownCells(files []*validation.File) []migrations.UnknownCell {
	var out []migrations.UnknownCell
	offset := map[*schema.Dataset]int{}
	for _, f := range files {
		for _, u := range f.Unknown {
			out = append(out, migrations.UnknownCell{Table: f.Dataset.Table, Row: offset[f.Dataset] + u.Row,
				Column: u.Column, File: f.Name, Line: u.Line, Rule: u.Rule})
		}
		offset[f.Dataset] += f.Rows
	}
	return out
}
