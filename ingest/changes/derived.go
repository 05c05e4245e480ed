package changes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// A changed cell may change what a build derives from it, which is what the agents read: a product's
// description its price, a store's opening hours its hours as rows, a store's text whether it offers
// something. Those values are read from each build's typed relations, for the changed rows named.

// Derived is a value a build derives from a changed row's cells where the two builds differ: a column
// of the dataset's typed relation, or a store's opening hours as rows (StoreHours). "" is NULL (not
// known, or none).
type Derived struct {
	Column string   `json:"column"`
	From   []string `json:"from"` // the columns it is derived from
	Old    string   `json:"old"`
	New    string   `json:"new"`
}

// StoreHours is the derived value of a store's opening hours as rows (store_hours): a line a day,
// "monday 11:30-14:30, 17:30-22:00", in the week's order; none for hours not known.
const StoreHours = "store_hours"

// derivedColumn is a derived value the changes show and the columns it is derived from.
type derivedColumn struct {
	name string
	from []string
}

// derivedColumns are the derived values shown beside a changed row, by dataset: those an answer turns
// on (a price; whether a store is open, and when; what it offers; an event's dates and cost, the days
// it is held, the store it is held at).
var derivedColumns = map[string][]derivedColumn{
	"products": {
		{"price_yen", []string{"product_description"}},
		{"price_max_yen", []string{"product_description"}},
	},
	"stores": {
		{"hours_known", []string{"opening_hours"}},
		{StoreHours, []string{"opening_hours"}},
		{"vegan_available", []string{"vegan_info"}},
		{"halal_available", []string{"halal_info"}},
		{"gluten_free_available", []string{"gluten_free_info"}},
		{"wheelchair_accessible", []string{"accessibility"}},
		{"nursing_room_available", []string{"nursing_room"}},
		{"parking_available", []string{"parking"}},
		{"private_room_available", []string{"private_room"}},
		{"kids_menu", []string{"kids_info"}},
		{"highchair", []string{"kids_info"}},
		{"diaper_changing", []string{"kids_info"}},
	},
	"events": {
		{"start_date", []string{"date_time"}},
		{"end_date", []string{"date_time"}},
		{"is_free", []string{"cost"}},
		{"weekdays", []string{"event_name", "description", "additional_info"}},
		{"store_name", []string{"location"}},
	},
}

// Derived returns, for the changed rows offset to offset+limit of a dataset (as Diffs numbers them),
// the derived values that differ between the two builds, in derivedColumns' order. It returns nil when
// the other side is an input directory: only a build holds derived values.
func (c *Set) Derived(dataset string, offset, limit int) ([][]Derived, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.all[dataset]
	cols := derivedColumns[dataset]
	if l == nil || len(cols) == 0 || c.cur.derivedOf == nil || c.old.derivedOf == nil || offset >= len(l.changed) {
		return nil, nil
	}
	end := min(len(l.changed), offset+limit)
	now, err := c.cur.derivedOf(c.cur.tables[l.d], l.changed[offset:end])
	if err != nil {
		return nil, err
	}
	was, err := c.old.derivedOf(c.old.tables[l.d], l.was[offset:end])
	if err != nil {
		return nil, err
	}
	out := make([][]Derived, end-offset)
	for i := range out {
		for _, dc := range cols {
			o, hasOld := was[i][dc.name]
			n, hasNew := now[i][dc.name]
			if hasOld && hasNew && o != n {
				out[i] = append(out[i], Derived{Column: dc.name, From: dc.from, Old: o, New: n})
			}
		}
	}
	return out, nil
}

// fetchDerived reads the derived values of rows of t from a build: a map a row, by column, of the
// values derivedColumns names that the build has ("" for NULL).
func fetchDerived(ctx context.Context, conn *database.Conn, t *table, rows []int32) ([]map[string]string, error) {
	out := make([]map[string]string, len(rows))
	for i := range out {
		out[i] = map[string]string{}
	}
	if len(t.d.Views) == 0 || len(rows) == 0 {
		return out, nil
	}
	rel := guard.MustIdent(t.d.Views[0].Name)
	// A build of another version may lack a column: only those it has are read.
	res, err := conn.Query(ctx, guard.Format("SELECT * FROM %s LIMIT 0", rel))
	if err != nil {
		return nil, err
	}
	names, err := res.Columns()
	res.Close()
	if err != nil {
		return nil, err
	}
	var sel []guard.SQL
	var which []string
	for _, dc := range derivedColumns[t.d.Name] {
		if slices.Contains(names, dc.name) {
			sel = append(sel, guard.Format("CAST(t.%s AS VARCHAR)", guard.MustIdent(dc.name)))
			which = append(which, dc.name)
		}
	}
	ids := make([]guard.SQL, len(rows))
	byRowid := map[int64][]int{}
	for i, r := range rows {
		ids[i] = guard.Int(int(t.rowid[r]))
		byRowid[t.rowid[r]] = append(byRowid[t.rowid[r]], i)
	}
	if len(sel) > 0 {
		// The typed relation is its table's rows in the table's order, joined by position as the build
		// joins what it derives.
		res, err := conn.Query(ctx, guard.Format("SELECT r.rowid, %s FROM %s r POSITIONAL JOIN %s t WHERE r.rowid IN (%s)",
			guard.Join(sel, ", "), guard.MustIdent(t.d.Table), rel, guard.Join(ids, ", ")))
		if err != nil {
			return nil, err
		}
		defer res.Close()
		// Scanned as the driver's values: a NULL is nil, every other value text (CAST AS VARCHAR).
		got := make([]any, 1+len(sel))
		dest := make([]any, len(got))
		for i := range got {
			dest[i] = &got[i]
		}
		for res.Next() {
			if err := res.Scan(dest...); err != nil {
				return nil, err
			}
			id, ok := got[0].(int64)
			if !ok {
				return nil, fmt.Errorf("unexpected rowid %T", got[0])
			}
			for _, i := range byRowid[id] {
				for j, name := range which {
					v, _ := got[1+j].(string)
					out[i][name] = v
				}
			}
		}
		if err := res.Err(); err != nil {
			return nil, err
		}
	}
	if t.d == schema.Stores && slices.ContainsFunc(derivedColumns[t.d.Name], func(dc derivedColumn) bool { return dc.name == StoreHours }) {
		if err := storeHours(ctx, conn, ids, byRowid, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// storeHours puts each store's opening hours as rows (StoreHours) in out, by the rowids of its stores.
func storeHours(ctx context.Context, conn *database.Conn, ids []guard.SQL, byRowid map[int64][]int, out []map[string]string) error {
	// store_hours is stored in store_id's, the day's and the opening's order.
	res, err := conn.Query(ctx, guard.Format(`SELECT s.rowid, h.day, CAST(h.opens AS VARCHAR), CAST(h.closes AS VARCHAR)
		FROM stores s JOIN (SELECT rowid AS n, * FROM store_hours) h ON h.store_id = s.store_id
		WHERE s.rowid IN (%s) ORDER BY s.rowid, h.n`, guard.Join(ids, ", ")))
	if err != nil {
		return err
	}
	defer res.Close()
	week := map[int64]*strings.Builder{}
	lastDay := map[int64]string{}
	for res.Next() {
		var id int64
		var day, opens, closes string
		if err := res.Scan(&id, &day, &opens, &closes); err != nil {
			return err
		}
		b := week[id]
		if b == nil {
			b = &strings.Builder{}
			week[id] = b
		}
		if lastDay[id] == day {
			b.WriteString(", ")
		} else {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(day + " ")
			lastDay[id] = day
		}
		b.WriteString(hhmm(opens) + "-" + hhmm(closes))
	}
	if err := res.Err(); err != nil {
		return err
	}
	for id, rows := range byRowid {
		for _, i := range rows {
			out[i][StoreHours] = ""
			if b := week[id]; b != nil {
				out[i][StoreHours] = b.String()
			}
		}
	}
	return nil
}

// hhmm is a TIME's text without its seconds: 11:30:00 is 11:30.
func hhmm(t string) string {
	if len(t) == len("11:30:00") && strings.HasSuffix(t, ":00") {
		return t[:5]
	}
	return t
}
