package console

import (
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/injection"
	"github.com/azabudai/ctool/schema/price"
)

// listData is a list page.
type listData struct {
	Q        *listQuery
	Params   url.Values
	Cols     []column
	Rows     []listRow
	Total    int64
	Pages    int
	Facets   []facet
	From, To int64
	AtValue  string // the open-at field's value
	AtText   string
	States   []string
	Sizes    []sizeLink
	Capped   bool // _size=all and the list has more rows than a page shows
	MaxRows  int  // what _size=all shows at most
	p        *page
}

// sizeLink is one page size the list offers, as a link that keeps the rest of the list.
type sizeLink struct {
	Size    string // 50, 100, 500, all
	Query   template.URL
	Current bool
}

// listRow is one row of a list: its cells, the link to its record and, for stores, its open state.
type listRow struct {
	Cells  []cell
	Record string
	Open   string
}

// cell is one value as a page shows it.
type cell struct {
	Col   string
	Label string // the column's label in the page's language (a card's)
	Title bool   // the row's name (a card's heading)
	Text  string
	Null  bool
	Bool  string // "true" or "false" for a BOOLEAN
	List  []string
	Link  string       // a record the value names (a product's store)
	Facet template.URL // the query that filters the list to this value
	// Unread marks a NULL price_yen whose description states a price the price rule could not read
	// (時価, 店頭にて): NULL there is not "no price".
	Unread bool
	// AI is what of the value addresses an AI agent rather than a visitor (injection.AddressesAI): the
	// page marks it, as answers to the agent do; nil for most cells.
	AI *injection.Injection
}

// facet is one facet column's counts.
type facet struct {
	Col     column
	Values  []facetValue
	More    bool
	Clear   template.URL // the query without this facet
	Applied bool
}

type facetValue struct {
	Value    string // "" for no value
	Count    int64
	Selected bool
	Toggle   template.URL // the query with this value added or taken away
}

// list serves /{dataset} and its exports /{dataset}.csv, .jsonl, .parquet and -excel.csv.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	name, format := splitFormat(r.PathValue("file"))
	t := tableNamed(name)
	if t == nil || (format != "" && exportFormat(format) == nil) {
		s.fail(w, r, errNotFound)
		return
	}
	lq, err := parseList(t, r.URL.Query(), s.cfg.Now().In(schema.Tokyo))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if format != "" {
		// An export that left a mistyped filter out would be all of the list, unasked: refused.
		if len(lq.Unknown) > 0 {
			s.fail(w, r, badRequest("%s Nothing was exported: correct or remove it, then export again.", unknownNotice(lq.Unknown)))
			return
		}
		s.export(w, r, lq, exportFormat(format))
		return
	}
	p := s.newPage(r, t.D.Name)
	p.Title = p.T(t.D.Name)
	d := &listData{Q: lq, Params: lq.values(), Cols: t.Cols, AtValue: lq.At.Format("2006-01-02T15:04"),
		AtText: lq.At.Format("2006-01-02 15:04") + " (" + p.T(lq.At.Weekday().String()) + ")", States: []string{stateOpen, stateClosed, stateUnknown},
		MaxRows: maxListRows, p: p}
	err = s.conn(r.Context(), func(_ *database.Build, c *database.Conn) error {
		return d.read(r.Context(), c)
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Pages = int((d.Total + int64(lq.Size) - 1) / int64(lq.Size))
	if lq.Page > 1 && lq.Page > d.Pages {
		s.fail(w, r, errNotFound)
		return
	}
	if d.Total > 0 {
		d.From = int64((lq.Page-1)*lq.Size + 1)
		d.To = d.From + int64(len(d.Rows)) - 1
	}
	d.Capped = lq.SizeArg == "all" && d.Total > int64(lq.Size)
	for _, size := range pageSizes {
		q := template.URL(withParam(d.Params, "_size", size))
		if size == pageSizes[0] {
			q = template.URL(withoutParam(d.Params, "_size"))
		}
		d.Sizes = append(d.Sizes, sizeLink{Size: size, Query: q, Current: size == lq.SizeArg || (size == pageSizes[0] && lq.SizeArg == "")})
	}
	s.render(w, p, "list", d)
}

// SizeOnly is the list's page size as a query ("" for the default): what "clear all" keeps.
func (d *listData) SizeOnly() template.URL {
	if d.Q.SizeArg == "" {
		return ""
	}
	return template.URL(url.Values{"_size": {d.Q.SizeArg}}.Encode())
}

// ExportQuery is the list's query for its exports: every row, so no page size.
func (d *listData) ExportQuery() template.URL {
	return template.URL(withoutParam(d.Params, "_size"))
}

// FixQuery is the list's query with an unknown parameter's values given to the name meant instead.
func (d *listData) FixQuery(u unknownParam) template.URL {
	c := cloneValues(d.Params)
	c[u.Meant] = append(c[u.Meant], u.Values...)
	return template.URL(c.Encode())
}

// read fills the page: the facets (the first one that is not a list also gives the total), the count
// when no facet gave it, and the page's rows.
func (d *listData) read(ctx context.Context, c *database.Conn) error {
	lq := d.Q
	total := int64(-1)
	selected := map[string]map[string]bool{}
	for _, f := range lq.Filters {
		selected[f.Col.Name] = map[string]bool{}
		for _, v := range f.Values {
			selected[f.Col.Name][v] = true
		}
	}
	for _, col := range lq.T.Cols {
		if !col.Facet {
			continue
		}
		st := lq.facetStmt(col)
		rows, err := c.Query(ctx, st.sql, st.args...)
		if err != nil {
			return err
		}
		f := facet{Col: col, Clear: template.URL(withoutParam(d.Params, col.Name)), Applied: selected[col.Name] != nil}
		for rows.Next() {
			var v database.NullString
			var n, sum int64
			if err := rows.Scan(&v, &n, &sum); err != nil {
				rows.Close()
				return err
			}
			if !col.List && total < 0 {
				total = sum
			}
			if len(f.Values) == maxFacetValues {
				f.More = true
				continue
			}
			f.Values = append(f.Values, facetValue{Value: v.String, Count: n, Selected: selected[col.Name][v.String], Toggle: template.URL(toggleParam(d.Params, col.Name, v.String))})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if !col.List && total < 0 {
			total = 0 // no row at all: the facet had no group
		}
		d.Facets = append(d.Facets, f)
	}
	if total < 0 {
		st := lq.countStmt()
		if err := c.QueryRow(ctx, st.sql, st.args...).Scan(&total); err != nil {
			return err
		}
	}
	d.Total = total
	if total == 0 {
		return nil
	}
	st := lq.pageStmt()
	rows, err := c.Query(ctx, st.sql, st.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := len(lq.T.Cols) + 1
	if lq.T.IsStores() {
		n++
	}
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		d.Rows = append(d.Rows, lq.T.listRow(vals[1:], d.Params, d.p))
	}
	return rows.Err()
}

// listRow makes a row of a list from its values in the table's column order (then _open), its
// words in p's language.
func (t *table) listRow(vals []any, params url.Values, p *page) listRow {
	byName := map[string]any{}
	for i, c := range t.Cols {
		byName[c.Name] = vals[i]
	}
	row := listRow{Record: t.recordQuery(byName)}
	if t.IsStores() {
		row.Open, _ = vals[len(t.Cols)].(string)
	}
	for i, c := range t.Cols {
		ce := makeCell(c, vals[i], p)
		ce.Title = c.Name == t.titleColumn()
		ce.Unread = t.unreadPrice(c, ce, byName)
		if c.Facet && !c.List && !ce.Null {
			ce.Facet = template.URL(withParam(params, c.Name, ce.Text))
		}
		if t.D.Name == "products" && c.Name == "store_name" {
			if id, ok := byName["store_id"].(string); ok {
				ce.Link = "/stores/record?" + url.Values{"store_id": {id}}.Encode()
			}
		}
		row.Cells = append(row.Cells, ce)
	}
	return row
}

// titleColumn is the column that names a row: a store's, an event's, a product's name.
func (t *table) titleColumn() string {
	switch t.D.Name {
	case "events":
		return "event_name"
	case "products":
		return "product_name"
	}
	return "store_name"
}

// recordQuery is the link to a row's record page: its key's values.
func (t *table) recordQuery(byName map[string]any) string {
	v := url.Values{}
	for _, k := range t.D.Key {
		v.Set(k, valueText(byName[k], "VARCHAR"))
	}
	return "/" + t.D.Name + "/record?" + v.Encode()
}

// unreadPrice reports whether a products row's NULL price_yen stands for a price its description
// states but the price rule (price.Read, as at ingest) could not read.
func (t *table) unreadPrice(c column, ce cell, byName map[string]any) bool {
	if t.D.Name != "products" || c.Name != "price_yen" || !ce.Null {
		return false
	}
	d, ok := byName["product_description"].(string)
	return ok && price.Read(d).Unread
}

// makeCell is one value of column c as page p shows it: a list of day names in its language.
func makeCell(c column, v any, p *page) cell {
	ce := cell{Col: c.Name, Label: p.Label(c)}
	switch x := v.(type) {
	case nil:
		ce.Null = true
	case bool:
		ce.Bool = valueText(x, c.Type)
		ce.Text = ce.Bool
	case []any:
		for _, e := range x {
			text := valueText(e, "VARCHAR")
			if c.Days {
				text = p.T(text)
			}
			ce.List = append(ce.List, text)
			if ce.AI == nil {
				ce.AI = addressesAI(e)
			}
		}
		ce.Text = strings.Join(ce.List, ", ")
	default:
		ce.Text = valueText(v, c.Type)
		ce.AI = addressesAI(v)
	}
	return ce
}

// addressesAI is what of a text value addresses an AI agent, or nil.
func addressesAI(v any) *injection.Injection {
	if s, ok := v.(string); ok {
		if in, found := injection.AddressesAI(s); found {
			return &in
		}
	}
	return nil
}

// valueText is a value as text: how pages, CSV and record keys write it.
func valueText(v any, typ string) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case time.Time:
		switch typ {
		case "DATE":
			return x.Format("2006-01-02")
		case "TIME":
			return x.Format("15:04:05")
		}
		return x.Format("2006-01-02 15:04:05")
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case []any:
		b, _ := json.Marshal(listStrings(x))
		return string(b)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

func listStrings(x []any) []string {
	out := make([]string, len(x))
	for i, e := range x {
		out[i] = valueText(e, "VARCHAR")
	}
	return out
}

// splitFormat parses "stores.csv" into ("stores", "csv").
func splitFormat(file string) (name, format string) {
	if strings.HasSuffix(file, "-excel.csv") {
		return strings.TrimSuffix(file, "-excel.csv"), "excel"
	}
	if i := strings.IndexByte(file, '.'); i >= 0 {
		return file[:i], file[i+1:]
	}
	return file, ""
}
