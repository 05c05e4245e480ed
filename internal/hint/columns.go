package hint

import (
	"strings"
	"sync"

	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
	"github.com/azabudai/ctool/schema"
)

// The public relations' columns as the hints see them, and a query's column references resolved to them.

// publicColumn is what schema/ says of one column of one public relation.
type publicColumn struct {
	name     string
	json     bool // JSON text: the hint shows an example rather than close values
	list     bool // VARCHAR[]
	relation string
	typed    string      // the dataset's first typed view, for JSON columns
	wrap     string      // lower, upper or trim around the column, as the query wrote it
	label    bool        // a label column (schema: Label): its words may be found in the text columns instead
	typ      string      // the view column's SQL type (DATE, TIMESTAMP, ...); "" for the table's text
	kind     schema.Kind // the table's text: how its cells were checked (a date range, a timestamp ...)
	dataset  *schema.Dataset
}

// expr is the column in SQL, inside the query's lower(), upper() or trim().
func (c publicColumn) expr() guard.SQL {
	col := guard.MustIdent(c.name)
	switch c.wrap {
	case "lower", "lcase":
		return guard.Format("lower(%s)", col)
	case "upper", "ucase":
		return guard.Format("upper(%s)", col)
	case "trim":
		return guard.Format("trim(%s)", col)
	}
	return col
}

// freeText reports whether the column holds words people wrote (names, descriptions), as opposed to
// a label, a flag, a date or JSON: only a value close to the words searched for is worth showing.
func (c publicColumn) freeText() bool {
	return !c.label && !c.list && !c.json && (c.kind == schema.Text || c.typ == "VARCHAR")
}

// shown is the column as the hint names it.
func (c publicColumn) shown() string {
	if c.wrap != "" {
		return c.wrap + "(" + c.name + ")"
	}
	return c.name
}

// wrappers are the functions of one column a condition may put around it.
var wrappers = map[string]bool{"lower": true, "upper": true, "trim": true, "lcase": true, "ucase": true}

var (
	relationsOnce sync.Once
	relationCols  map[string]map[string]publicColumn // lower-cased relation → lower-cased column
)

// publicColumns maps every public relation (schema.Relations) to its columns but the hidden ones.
func publicColumns() map[string]map[string]publicColumn {
	relationsOnce.Do(func() {
		relationCols = map[string]map[string]publicColumn{}
		for _, r := range schema.Relations() {
			cols := map[string]publicColumn{}
			for _, c := range r.Columns {
				if c.Hidden() {
					continue // never shown in results, so never in a hint either
				}
				pc := publicColumn{name: c.Name, relation: r.Name, label: c.Label(), dataset: r.Dataset}
				if c.View != nil {
					pc.list, pc.typ = c.List(), c.Type
				} else {
					pc.kind, pc.json, pc.typed = c.Base.Kind, c.Base.Kind == schema.JSON, firstTyped(r.Dataset)
				}
				cols[strings.ToLower(c.Name)] = pc
			}
			relationCols[strings.ToLower(r.Name)] = cols
		}
	})
	return relationCols
}

// firstTyped is the dataset's first typed view that carries its table's columns.
func firstTyped(d *schema.Dataset) string {
	for _, r := range schema.Relations() {
		if r.Dataset == d && r.Extends() {
			return r.Name
		}
	}
	return ""
}

// scopeEntry is one public relation of a FROM clause.
type scopeEntry struct {
	name  string // as the query may qualify it: the alias, or the relation's name
	cols  map[string]publicColumn
	table string
}

// scopeOf lists the public relations a SELECT's FROM clause reads; a CTE's name shadows a relation's.
func scopeOf(s querytree.Select, ctes map[string]bool) []scopeEntry {
	cols := publicColumns()
	var out []scopeEntry
	for _, t := range s.Tables() {
		if t.Name == "" || ctes[strings.ToLower(t.Name)] || (t.Schema != "" && t.Schema != "main") || t.Catalog != "" {
			continue
		}
		c, ok := cols[strings.ToLower(t.Name)]
		if !ok {
			continue
		}
		out = append(out, scopeEntry{name: t.Qualifier(), cols: c, table: t.Name})
	}
	return out
}

// resolve finds the public column a column reference names in the scope, inside at most one of the
// wrappers.
func resolve(e querytree.Expr, scope []scopeEntry) (publicColumn, bool) {
	if fn := e.Function(); wrappers[strings.ToLower(fn)] {
		args := e.Args()
		if len(args) != 1 {
			return publicColumn{}, false
		}
		c, ok := resolve(args[0], scope)
		if !ok || c.wrap != "" || c.list || c.json {
			return publicColumn{}, false
		}
		c.wrap = strings.ToLower(fn)
		return c, true
	}
	if e.Op() != querytree.OpColumn {
		return publicColumn{}, false
	}
	var qual, name string
	switch parts := e.ColumnNames(); len(parts) {
	case 1:
		name = parts[0]
	case 2:
		qual, name = parts[0], parts[1]
	default:
		return publicColumn{}, false
	}
	for _, s := range scope {
		if qual != "" && !strings.EqualFold(qual, s.name) {
			continue
		}
		if c, ok := s.cols[strings.ToLower(name)]; ok {
			c.relation = s.table
			return c, true
		}
	}
	return publicColumn{}, false
}
