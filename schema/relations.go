package schema

import (
	"strings"
	"sync"
)

// RelationKind says what a public relation is to its dataset.
type RelationKind int

const (
	TableRelation RelationKind = iota // the dataset's table, its CSV text
	AliasRelation                     // a view named after the source file, the table's columns as they are
	ViewRelation                      // a typed view
)

// Relation is one name a query may read, with the columns the migrations give it.
type Relation struct {
	Name    string
	Kind    RelationKind
	Dataset *Dataset
	View    *View // ViewRelation only
	Columns []RelationColumn
}

// Extends reports whether the relation is a typed view that carries every column of its table.
func (r Relation) Extends() bool { return r.View != nil && r.View.Extends != "" }

// RelationColumn is one column of a relation. A typed view that extends its table carries the table's
// columns, in the table's order and retyped where the view declares them, then the view's own.
type RelationColumn struct {
	Name string
	Type string      // the SQL type in this relation
	Base *Column     // the table column it is or carries; nil for a column only the view has
	View *ViewColumn // the view's declaration; nil for a table column as it is
}

// Hidden reports a table column never shown in results (a view's declaration is never hidden).
func (c RelationColumn) Hidden() bool { return c.View == nil && c.Base.Hidden }

// Label reports a label column (Column.Label), as this relation declares it.
func (c RelationColumn) Label() bool {
	if c.View != nil {
		return c.View.Label
	}
	return c.Base.Label
}

// List reports a VARCHAR[] column.
func (c RelationColumn) List() bool { return strings.HasSuffix(c.Type, "[]") }

var (
	relationsOnce sync.Once
	relations     []Relation
)

// Relations lists every relation of the public datasets, each dataset's table first, then its aliases,
// then its views, with their columns resolved once. Callers must not modify what it returns.
func Relations() []Relation {
	relationsOnce.Do(func() {
		for _, d := range Public() {
			relations = append(relations, datasetRelations(d)...)
		}
	})
	return relations
}

// RelationNamed finds a public relation by its name, without regard to case.
func RelationNamed(name string) (Relation, bool) {
	for _, r := range Relations() {
		if strings.EqualFold(r.Name, name) {
			return r, true
		}
	}
	return Relation{}, false
}

// relationsOf lists one dataset's relations, resolved as Relations does; a private dataset's too.
func relationsOf(d *Dataset) []Relation {
	if d.Private {
		return datasetRelations(d)
	}
	var out []Relation
	for _, r := range Relations() {
		if r.Dataset == d {
			out = append(out, r)
		}
	}
	return out
}

func datasetRelations(d *Dataset) []Relation {
	base := make([]RelationColumn, len(d.Columns))
	for i := range d.Columns {
		c := &d.Columns[i]
		base[i] = RelationColumn{Name: c.Name, Type: c.SQLType(false), Base: c}
	}
	out := []Relation{{Name: d.Table, Kind: TableRelation, Dataset: d, Columns: base}}
	for _, a := range d.Aliases {
		out = append(out, Relation{Name: a, Kind: AliasRelation, Dataset: d, Columns: base})
	}
	for i := range d.Views {
		v := &d.Views[i]
		out = append(out, Relation{Name: v.Name, Kind: ViewRelation, Dataset: d, View: v, Columns: viewColumns(v, base)})
	}
	return out
}

// viewColumns is what a view carries: for an extending view, the table's columns (retyped where the
// view declares them) followed by the view's own.
func viewColumns(v *View, base []RelationColumn) []RelationColumn {
	var out []RelationColumn
	declared := map[string]bool{}
	if v.Extends != "" {
		for _, b := range base {
			for i := range v.Columns {
				if vc := &v.Columns[i]; vc.Name == b.Name {
					b.Type, b.View = vc.Type, vc
					declared[vc.Name] = true
				}
			}
			out = append(out, b)
		}
	}
	for i := range v.Columns {
		if vc := &v.Columns[i]; !declared[vc.Name] {
			out = append(out, RelationColumn{Name: vc.Name, Type: vc.Type, View: vc})
		}
	}
	return out
}
