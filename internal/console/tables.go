package console

import (
	"slices"

	"github.com/azabudai/ctool/internal/console/words"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// A table is what the console shows of one public dataset: its typed relation with each row's number
// in the build (_row, for exports in pieces), its columns, and which of them are facets and searched.
type table struct {
	D    *schema.Dataset
	Rel  schema.Relation
	from guard.SQL // the typed relation with _row
	rows guard.SQL // a relation with one row for each of from's, by _row: the narrowest to count them
	Cols []column
}

// column is one column of a table.
type column struct {
	Name  string
	Type  string // its SQL type in the typed relation
	Facet bool   // a label column or a flag (BOOLEAN): counted beside the list
	List  bool   // VARCHAR[]
	Text  bool   // searched
	JSON  bool   // JSON text (shown as structure on a record page)
	Days  bool   // a list of day names ('monday' … 'sunday'), shown in the page's language
	Desc  string // the schema's description (Japanese)
	// Ja and En are the column's short label in each language (labels.go): what headers, facets,
	// cards and record pages show; the name stays what URLs, exports and SQL use.
	Ja, En string
}

// productsTyped is products_typed with each row's number: the stored prices (price.Read, written at
// ingest) joined to products by row id, which is their position in both tables (the build appends
// each once, in the same order, and deletes nothing), as the view's positional join pairs them; so
// the console shows exactly the prices the agent reads (TestProductsRelation). A join by row id is
// narrowed by a condition on _row or on either table's columns, where a positional join reads both
// tables whole (bench/results/console.md).
const productsTyped = `(SELECT p.rowid AS _row, p.*, pr.price_yen, pr.price_max_yen
        FROM products p JOIN ctool_derive.product_prices pr ON pr.rowid = p.rowid)`

// productsOnly and pricesOnly are the two halves of productsTyped, for a statement that reads only one
// of them (narrow): a facet's counts and a search read no price, the products sorted by price only the
// prices until their page is known.
const (
	productsOnly = `(SELECT rowid AS _row, * FROM products)`
	pricesOnly   = `(SELECT rowid AS _row, price_yen, price_max_yen FROM ctool_derive.product_prices)`
)

// priceColumns are the columns of productsTyped that pricesOnly holds.
var priceColumns = []string{"price_yen", "price_max_yen"}

// tables are the public datasets in the console's order, each with its typed relation.
var tables = func() []*table {
	var out []*table
	for _, d := range []*schema.Dataset{schema.Stores, schema.Events, schema.Products} {
		name := d.Views[0].Name
		rel, ok := schema.RelationNamed(name)
		if !ok || !rel.Extends() {
			panic("console: no typed view " + name)
		}
		t := &table{D: d, Rel: rel}
		if d == schema.Products {
			t.from, t.rows = guard.Const(productsTyped), guard.Const(productsOnly)
		} else {
			t.from = guard.Format("(SELECT rowid AS _row, * FROM %s)", guard.MustIdent(name))
			t.rows = t.from
		}
		for _, c := range rel.Columns {
			// Every column is shown, products.store_id too: its hiding is the agents' presentation rule
			// (schema.Column.Hidden), and an export without it could be neither joined nor imported again.
			col := column{Name: c.Name, Type: c.Type, List: c.List(), Facet: c.Label() || c.Type == "BOOLEAN",
				Days: c.Name == "weekdays" && c.List()}
			if c.Base != nil {
				col.Desc = c.Base.Description
				col.JSON = c.Base.Kind == schema.JSON && c.View == nil
				col.Text = c.Type == "VARCHAR" && (c.Base.Kind == schema.Text || c.Base.Kind == schema.Enum)
			}
			if c.View != nil {
				col.Desc = c.View.Description
				col.Text = col.Text || (c.Type == "VARCHAR" && !col.Facet)
			}
			col.Ja, col.En = words.ColumnLabels(d.Name, c)
			t.Cols = append(t.Cols, col)
		}
		out = append(out, t)
	}
	return out
}()

func tableNamed(name string) *table {
	for _, t := range tables {
		if t.D.Name == name {
			return t
		}
	}
	return nil
}

func (t *table) column(name string) (column, bool) {
	for _, c := range t.Cols {
		if c.Name == name {
			return c, true
		}
	}
	return column{}, false
}

// IsStores reports the table with opening hours.
func (t *table) IsStores() bool { return t.D == schema.Stores }

// openState is a store's state at a time by the agent's rule (is_open), unknown where its hours are.
const openState = `CASE WHEN NOT hours_known THEN 'unknown' WHEN is_open(store_id, CAST(? AS TIMESTAMP)) THEN 'open' ELSE 'closed' END`

// stmt is SQL with its bound arguments in order.
type stmt struct {
	sql  guard.SQL
	args []any
}

// source is the relation a list reads: the table's, with the open state for stores when withState or
// when the list is filtered by it. The state is is_open for every store, a correlated subquery that
// DuckDB computes even for a statement that reads another column: a facet's count skips it.
func (lq *listQuery) source(withState bool) stmt {
	if !lq.T.IsStores() || (!withState && lq.Open == "") {
		return stmt{sql: lq.T.from}
	}
	return stmt{sql: guard.Format("(SELECT *, "+openState+" AS _open FROM %s)", lq.T.from), args: []any{lq.At.Format("2006-01-02 15:04:05")}}
}

// where is the list's condition, TRUE when there is none, with its arguments.
func (lq *listQuery) where() stmt { return lq.whereOn(func(string) bool { return true }) }

// whereOn is the part of the list's condition that reads the columns keep accepts (a search reads
// every searched column): TRUE when there is none.
func (lq *listQuery) whereOn(keep func(col string) bool) stmt {
	var conds []guard.SQL
	var args []any
	for _, f := range lq.Filters {
		if !keep(f.Col.Name) {
			continue
		}
		id := guard.MustIdent(f.Col.Name)
		var alts []guard.SQL
		for _, v := range f.Values {
			switch {
			case v == "":
				alts = append(alts, guard.Format("%s IS NULL", id))
				continue
			case f.Col.List:
				alts = append(alts, guard.Format("list_contains(%s, ?)", id))
			case f.Col.Type == "VARCHAR":
				alts = append(alts, guard.Format("%s = ?", id))
			default:
				alts = append(alts, guard.Format("CAST(%s AS VARCHAR) = ?", id))
			}
			args = append(args, v)
		}
		conds = append(conds, guard.Format("(%s)", guard.Join(alts, " OR ")))
	}
	for _, term := range lq.Terms {
		p := Pattern(term)
		var alts []guard.SQL
		for _, c := range lq.T.Cols {
			if c.Text && keep(c.Name) {
				alts = append(alts, guard.Format("regexp_matches(%s, ?)", guard.MustIdent(c.Name)))
				args = append(args, p)
			}
		}
		if len(alts) > 0 {
			conds = append(conds, guard.Format("(%s)", guard.Join(alts, " OR ")))
		}
	}
	if lq.Open != "" && keep("_open") {
		conds = append(conds, guard.Const("_open = ?"))
		args = append(args, lq.Open)
	}
	if len(conds) == 0 {
		return stmt{sql: guard.Const("TRUE")}
	}
	return stmt{sql: guard.Join(conds, " AND "), args: args}
}

// order is the list's ORDER BY: the sort column, then the build's order.
func (lq *listQuery) order() guard.SQL {
	if lq.Sort == "" {
		return guard.Const("_row")
	}
	if lq.Desc {
		return guard.Format("%s DESC NULLS LAST, _row", guard.MustIdent(lq.Sort))
	}
	return guard.Format("%s ASC NULLS LAST, _row", guard.MustIdent(lq.Sort))
}

// selectList is the columns a list reads: _row, every column (the hidden ones for links), and the
// open state for stores.
func (lq *listQuery) selectList() guard.SQL { return lq.columns(lq.T.IsStores()) }

// columns are _row and every column, then the open state when withState.
func (lq *listQuery) columns(withState bool) guard.SQL {
	cols := []guard.SQL{guard.Const("_row")}
	for _, c := range lq.T.Cols {
		cols = append(cols, guard.MustIdent(c.Name))
	}
	if withState {
		cols = append(cols, guard.Const("_open"))
	}
	return guard.Join(cols, ", ")
}

// narrow is, for products, the statement's relation and condition read from one table: the half of
// productsTyped that holds col (products for ""), with the list's condition on that half's columns,
// and the rest of the condition, on the other half, as a semi-join by row number. A join of the two
// tables whole would hold a million rows in its hash table (bench/results/console.md). single
// reports that the condition reads one table only, whose rows then keep the build's order under WHERE,
// LIMIT and OFFSET (DuckDB's order preservation); a semi-join does not promise it. ok is false for the
// tables that are not products.
func (lq *listQuery) narrow(col string) (rel guard.SQL, w stmt, single, ok bool) {
	if lq.T.D != schema.Products {
		return guard.SQL{}, stmt{}, false, false
	}
	inPrices := func(c string) bool { return slices.Contains(priceColumns, c) }
	inProducts := func(c string) bool { return !inPrices(c) }
	half, other := guard.Const(productsOnly), guard.Const(pricesOnly)
	mine, theirs := inProducts, inPrices
	if inPrices(col) {
		half, other, mine, theirs = other, half, theirs, mine
	}
	w = lq.whereOn(mine)
	rest := lq.whereOn(theirs)
	if len(rest.args) == 0 && rest.sql.String() == "TRUE" {
		return half, w, true, true
	}
	w.sql = guard.Format("%s AND _row IN (SELECT _row FROM %s AS t WHERE %s)", w.sql, other, rest.sql)
	w.args = append(w.args, rest.args...)
	return half, w, false, true
}

// productsPage reads a page of products in two steps: the page's row numbers from the table that
// holds the sort column (narrow), then those rows whole, by row id. Sorting or skipping a million
// rows then moves their row numbers, not their descriptions, and a page in the build's order of one
// table stops reading once it is full.
func (lq *listQuery) productsPage() stmt {
	rel, w, single, _ := lq.narrow(lq.Sort)
	order := guard.Format(" ORDER BY %s", lq.order())
	if single && lq.Sort == "" {
		order = guard.Const("")
	}
	rows := guard.Format("SELECT _row FROM %s AS t WHERE %s%s LIMIT %s OFFSET %s",
		rel, w.sql, order, guard.Int(lq.Size), guard.Int((lq.Page-1)*lq.Size))
	return stmt{
		sql: guard.Format(`SELECT %s FROM (SELECT pg._row, p.*, pr.price_yen, pr.price_max_yen FROM (%s) AS pg
        JOIN products p ON p.rowid = pg._row JOIN ctool_derive.product_prices pr ON pr.rowid = pg._row) AS t ORDER BY %s`,
			lq.selectList(), rows, lq.order()),
		args: w.args,
	}
}

// pageStmt reads one page of the list. A stores list not filtered by the open state computes it for
// the page's rows only.
func (lq *listQuery) pageStmt() stmt {
	if lq.T.D == schema.Products {
		return lq.productsPage()
	}
	if lq.T.IsStores() && lq.Open == "" {
		w := lq.where()
		page := guard.Format("SELECT %s FROM %s AS t WHERE %s ORDER BY %s LIMIT %s OFFSET %s",
			lq.columns(false), lq.T.from, w.sql, lq.order(), guard.Int(lq.Size), guard.Int((lq.Page-1)*lq.Size))
		return stmt{
			sql:  guard.Format("SELECT *, "+openState+" AS _open FROM (%s) AS p ORDER BY %s", page, lq.order()),
			args: append([]any{lq.At.Format("2006-01-02 15:04:05")}, w.args...),
		}
	}
	src, w := lq.source(true), lq.where()
	return stmt{
		sql: guard.Format("SELECT %s FROM %s AS t WHERE %s ORDER BY %s LIMIT %s OFFSET %s",
			lq.selectList(), src.sql, w.sql, lq.order(), guard.Int(lq.Size), guard.Int((lq.Page-1)*lq.Size)),
		args: append(src.args, w.args...),
	}
}

// facetStmt counts the values of a facet column in the list, the total of all of them beside each.
func (lq *listQuery) facetStmt(c column) stmt {
	src, w := lq.source(false), lq.where()
	if rel, nw, _, ok := lq.narrow(c.Name); ok {
		src.sql, w = rel, nw
	}
	value := guard.MustIdent(c.Name)
	if c.List {
		value = guard.Format("unnest(%s)", value)
	}
	return stmt{
		sql: guard.Format("SELECT CAST(v AS VARCHAR), n, sum(n) OVER () FROM (SELECT v, count(*) AS n FROM (SELECT %s AS v FROM %s AS t WHERE %s) GROUP BY ALL) ORDER BY n DESC, v NULLS LAST LIMIT %s",
			value, src.sql, w.sql, guard.Int(maxFacetValues+1)),
		args: append(src.args, w.args...),
	}
}

// countStmt counts the list's rows.
func (lq *listQuery) countStmt() stmt {
	src, w := lq.source(false), lq.where()
	if rel, nw, _, ok := lq.narrow(""); ok {
		src.sql, w = rel, nw
	}
	return stmt{sql: guard.Format("SELECT count(*) FROM %s AS t WHERE %s", src.sql, w.sql), args: append(src.args, w.args...)}
}
