package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// recordData is a record page: every row with the key (a key may repeat in the data), each field
// whole, and for a store its week, its closures, its products and the events held there.
type recordData struct {
	T       *table
	Key     []keyPart
	Records []record
	Back    string // the list
}

type keyPart struct{ Name, Value string }

type record struct {
	Title    string
	StoreID  string
	Fields   []field
	Open     string
	Week     []dayHours // stores
	Known    bool       // stores: the hours are known
	Closures []closure
	Products []related
	Product  int64 // how many products the store has
	Events   []related
	Links    []link // the lists that hold this record's values
}

type field struct {
	Col  column
	Cell cell
	JSON *jnode // a JSON cell that parses, as structure
}

type dayHours struct {
	Day   string
	Slots []slot
}

type slot struct {
	Opens, Closes string
	Overnight     bool
}

type closure struct{ Date, Type, Reason string }

type related struct {
	Title, Detail, Link string
}

type link struct{ Text, Href string }

// weekdays are store_hours.day's values in a week's order; holiday is its day of the public holidays'
// hours.
var weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

const holiday = "holiday"

func (s *Server) record(w http.ResponseWriter, r *http.Request) {
	t := tableNamed(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/record"))
	if t == nil {
		s.fail(w, r, errNotFound)
		return
	}
	q := r.URL.Query()
	d := &recordData{T: t, Back: "/" + t.D.Name}
	var conds []guard.SQL
	var args []any
	for _, k := range t.D.Key {
		v, ok := q[k]
		if !ok || len(v) != 1 || len(v[0]) > 4*maxValueBytes {
			s.fail(w, r, badRequest("a record is named by %s", strings.Join(t.D.Key, ", ")))
			return
		}
		d.Key = append(d.Key, keyPart{k, v[0]})
		conds = append(conds, guard.Format("%s = ?", guard.MustIdent(k)))
		args = append(args, v[0])
	}
	lq := &listQuery{T: t, At: s.cfg.Now().In(schema.Tokyo)}
	p := s.newPage(r, t.D.Name)
	err := s.conn(r.Context(), func(_ *database.Build, c *database.Conn) error {
		src := lq.source(true)
		rows, err := c.Query(r.Context(), guard.Format("SELECT %s FROM %s AS t WHERE %s ORDER BY _row LIMIT 20", lq.selectList(), src.sql, guard.Join(conds, " AND ")),
			append(src.args, args...)...)
		if err != nil {
			return err
		}
		n := len(t.Cols) + 1
		if t.IsStores() {
			n++
		}
		var all [][]any
		for rows.Next() {
			vals := make([]any, n)
			ptrs := make([]any, n)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return err
			}
			all = append(all, vals[1:])
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, vals := range all {
			rec, err := s.readRecord(r.Context(), c, t, vals, p)
			if err != nil {
				return err
			}
			d.Records = append(d.Records, rec)
		}
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(d.Records) == 0 {
		s.fail(w, r, errNotFound)
		return
	}
	for i := range d.Records {
		d.Records[i].Title = d.Records[i].title(t)
	}
	p.Title = d.Records[0].Title
	s.render(w, p, "record", d)
}

// title is a record's name: a store's or product's name, an event's.
func (rec record) title(t *table) string {
	for _, f := range rec.Fields {
		switch f.Col.Name {
		case "store_name", "event_name":
			if t.D.Name != "products" {
				return f.Cell.Text
			}
		case "product_name":
			return f.Cell.Text
		}
	}
	return t.D.Name
}

func (s *Server) readRecord(ctx context.Context, c *database.Conn, t *table, vals []any, p *page) (record, error) {
	var rec record
	byName := map[string]any{}
	for i, col := range t.Cols {
		byName[col.Name] = vals[i]
		f := field{Col: col, Cell: makeCell(col, vals[i], p)}
		f.Cell.Unread = t.unreadPrice(col, f.Cell, byName) // the description comes before the price
		if col.JSON && !f.Cell.Null {
			if n, err := parseJSON(f.Cell.Text); err == nil {
				f.JSON = n
			}
		}
		if col.Facet && col.Type != "BOOLEAN" && !f.Cell.Null {
			values := []string{f.Cell.Text}
			if col.List {
				values = f.Cell.List
			}
			for _, v := range values {
				rec.Links = append(rec.Links, link{p.Label(col) + " = " + v, "/" + t.D.Name + "?" + url.Values{col.Name: {v}}.Encode()})
			}
		}
		rec.Fields = append(rec.Fields, f)
	}
	str := func(name string) string { v, _ := byName[name].(string); return v }
	switch t.D.Name {
	case "stores":
		rec.Open, _ = vals[len(t.Cols)].(string)
		rec.Known, _ = byName["hours_known"].(bool)
		id := str("store_id")
		rec.StoreID = id
		if err := rec.readHours(ctx, c, id); err != nil {
			return rec, err
		}
		if err := rec.readRelated(ctx, c, id, str("store_name"), p); err != nil {
			return rec, err
		}
	case "products":
		if id := str("store_id"); id != "" {
			rec.Links = append(rec.Links,
				link{str("store_name"), "/stores/record?" + url.Values{"store_id": {id}}.Encode()},
				link{p.listFilter("products", "store_id", id), "/products?" + url.Values{"store_id": {id}}.Encode()})
		}
	case "events":
		if venue := str("venue"); venue != "" {
			var id string
			err := c.QueryRow(ctx, guard.Const("SELECT store_id FROM stores WHERE store_name = ? ORDER BY store_id LIMIT 1"), venue).Scan(&id)
			switch {
			case err == nil:
				rec.Links = append(rec.Links, link{venue, "/stores/record?" + url.Values{"store_id": {id}}.Encode()})
			case !errors.Is(err, database.ErrNoRows):
				return rec, err
			}
			rec.Links = append(rec.Links, link{p.listFilter("events", "venue", venue), "/events?" + url.Values{"venue": {venue}}.Encode()})
		}
	}
	return rec, nil
}

// readHours reads a store's week and closures from store_hours and store_closures: the rows is_open
// reads, so the week shown is the rule applied.
func (rec *record) readHours(ctx context.Context, c *database.Conn, id string) error {
	rows, err := c.Query(ctx, guard.Const(`SELECT lower(day), left(CAST(opens AS VARCHAR), 5), left(CAST(closes AS VARCHAR), 5), overnight FROM store_hours WHERE store_id = ? ORDER BY opens`), id)
	if err != nil {
		return err
	}
	byDay := map[string][]slot{}
	for rows.Next() {
		var day string
		var sl slot
		if err := rows.Scan(&day, &sl.Opens, &sl.Closes, &sl.Overnight); err != nil {
			rows.Close()
			return err
		}
		byDay[day] = append(byDay[day], sl)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if rec.Known {
		for _, d := range weekdays {
			rec.Week = append(rec.Week, dayHours{Day: d, Slots: byDay[d]})
		}
		// The public holidays' hours (hours.HolidayDay), where the store keeps them apart.
		if slots := byDay[holiday]; len(slots) > 0 {
			rec.Week = append(rec.Week, dayHours{Day: holiday, Slots: slots})
		}
	}
	rows, err = c.Query(ctx, guard.Const(`SELECT strftime(date, '%Y-%m-%d'), coalesce(type, ''), coalesce(reason, '') FROM store_closures WHERE store_id = ? ORDER BY date`), id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var cl closure
		if err := rows.Scan(&cl.Date, &cl.Type, &cl.Reason); err != nil {
			return err
		}
		rec.Closures = append(rec.Closures, cl)
	}
	return rows.Err()
}

// relatedShown is how many of a store's products and events its page lists; the lists link to all.
const relatedShown = 50

// readRelated reads the store's products and the events whose venue is the store.
func (rec *record) readRelated(ctx context.Context, c *database.Conn, id, name string, p *page) error {
	if err := c.QueryRow(ctx, guard.Const("SELECT count(*) FROM products WHERE store_id = ?"), id).Scan(&rec.Product); err != nil {
		return err
	}
	rows, err := c.Query(ctx, guard.Format(`SELECT product_name, coalesce(tag, ''), coalesce(CAST(price_yen AS VARCHAR), '') FROM %s AS t WHERE store_id = ? ORDER BY _row LIMIT %s`,
		tableNamed("products").from, guard.Int(relatedShown)), id)
	if err != nil {
		return err
	}
	for rows.Next() {
		var pname, tag, price string
		if err := rows.Scan(&pname, &tag, &price); err != nil {
			rows.Close()
			return err
		}
		detail := tag
		if price != "" {
			detail += " · " + formatYen(price)
		}
		rec.Products = append(rec.Products, related{pname, detail, "/products/record?" + url.Values{"store_id": {id}, "product_name": {pname}}.Encode()})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = c.Query(ctx, guard.Const(`SELECT event_name, date_time FROM events_typed WHERE venue = ? ORDER BY start_date, event_name`), name)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ename, when string
		if err := rows.Scan(&ename, &when); err != nil {
			return err
		}
		rec.Events = append(rec.Events, related{ename, when, "/events/record?" + url.Values{"event_name": {ename}, "date_time": {when}}.Encode()})
	}
	rec.Links = append(rec.Links,
		link{p.listFilter("products", "store_id", id), "/products?" + url.Values{"store_id": {id}}.Encode()},
		link{p.listFilter("events", "venue", name), "/events?" + url.Values{"venue": {name}}.Encode()})
	return rows.Err()
}

// listFilter names a list filtered by one value, in p's words: "商品: 店舗ID = STR-0001".
func (p *page) listFilter(dataset, col, value string) string {
	return p.T(dataset) + ": " + p.ColumnLabel(dataset, col) + " = " + value
}

func formatYen(digits string) string {
	n := 0
	for _, c := range digits {
		n = n*10 + int(c-'0')
	}
	return "¥" + formatCount(int64(n))
}

// jnode is a JSON value as a page shows it, with an object's keys in the order the text has them.
type jnode struct {
	Kind    string // object, array, string, number, bool, null
	Text    string
	Entries []jentry
	Items   []*jnode
}

type jentry struct {
	Key   string
	Value *jnode
}

func parseJSON(text string) (*jnode, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	n, err := readJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return n, nil
}

func readJSON(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			n := &jnode{Kind: "object"}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				n.Entries = append(n.Entries, jentry{k, v})
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &jnode{Kind: "array"}
			for dec.More() {
				v, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, v)
			}
			_, err := dec.Token()
			return n, err
		}
		return nil, errors.New("unexpected delimiter")
	case string:
		return &jnode{Kind: "string", Text: x}, nil
	case json.Number:
		return &jnode{Kind: "number", Text: x.String()}, nil
	case bool:
		var b bytes.Buffer
		json.NewEncoder(&b).Encode(x)
		return &jnode{Kind: "bool", Text: strings.TrimSpace(b.String())}, nil
	case nil:
		return &jnode{Kind: "null"}, nil
	}
	return nil, errors.New("unexpected token")
}
