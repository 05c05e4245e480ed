package migrations

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/azabudai/ctool/schema/hours"
	"github.com/azabudai/ctool/schema/offers"
	"github.com/azabudai/ctool/schema/price"
	"github.com/azabudai/ctool/schema/venuematch"
	"github.com/duckdb/duckdb-go/v2"
)

// Some values of the stored relations are computed in Go, by rules of schema/ that read free text:
// tested and fuzzed as Go, linear in their input, and out of reach of any query (DuckDB cannot call Go
// through the guard, and a function registered on the build's connection would be named by views a
// reader of the build could not bind). Fill writes their results to tables of ctool_derive, one row per
// row of the table they read, which the views there join before the copy.

// Given are values the caller has computed already; Fill computes what is not given from the tables.
type Given struct {
	// Prices are price.Read of every products row's description, in the table's row order:
	// ingest's validation reads the file in the order DuckDB loads it and computes them as it checks
	// each description, beside the load.
	Prices []Price
	// Unknown are the cells validation could not type (a warning): their typed values are NULL.
	Unknown []UnknownCell
}

// UnknownCell is a cell validation could not type, by its table's row.
type UnknownCell struct {
	Table  string // events, stores, products
	Row    int    // the row's place in the table, from 0
	Column string
	File   string // the input file and line it came from, for ctool status
	Line   int
	Rule   string
}

// Price is what a products row's description says it costs: price_yen and price_max_yen, NoPrice
// where the description gives none (NULL), and whether it holds a price the rule could not read.
type Price struct {
	Low, High int32
	Unread    bool
}

// NoPrice marks a price the description does not give.
const NoPrice int32 = -1

// fillComputed writes the Go-computed tables of ctool_derive on conn.
func fillComputed(ctx context.Context, conn *sql.Conn, given Given) error {
	prices := given.Prices
	var rows int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM main.products`).Scan(&rows); err != nil {
		return err
	}
	if prices == nil {
		var err error
		if prices, err = pricesOf(ctx, conn); err != nil {
			return err
		}
	}
	// The join is by position: one price per products row, in the table's order.
	if len(prices) != rows {
		return fmt.Errorf("fill products_typed: %d prices for %d products rows", len(prices), rows)
	}
	orNull := func(yen int32) driver.Value {
		if yen == NoPrice {
			return nil
		}
		return yen
	}
	if err := appendRows(ctx, conn, "product_prices", len(prices), func(i int) []driver.Value {
		return []driver.Value{orNull(prices[i].Low), orNull(prices[i].High), prices[i].Unread}
	}); err != nil {
		return err
	}
	if err := fillUnknown(ctx, conn, given.Unknown); err != nil {
		return err
	}
	if err := fillHolidays(ctx, conn); err != nil {
		return err
	}
	hours, err := hoursOf(ctx, conn)
	if err != nil {
		return err
	}
	if err := appendRows(ctx, conn, "hours", len(hours), func(i int) []driver.Value { return hours[i] }); err != nil {
		return err
	}
	offers, err := offersOf(ctx, conn)
	if err != nil {
		return err
	}
	if err := appendRows(ctx, conn, "store_offers", len(offers), func(i int) []driver.Value { return offers[i] }); err != nil {
		return err
	}
	weekdays, err := eventWeekdaysOf(ctx, conn)
	if err != nil {
		return err
	}
	if err := appendRows(ctx, conn, "event_weekdays", len(weekdays), func(i int) []driver.Value {
		if weekdays[i] == nil {
			return []driver.Value{nil}
		}
		return []driver.Value{weekdays[i]}
	}); err != nil {
		return err
	}
	stores, err := eventStoresOf(ctx, conn)
	if err != nil {
		return err
	}
	return appendRows(ctx, conn, "event_stores", len(stores), func(i int) []driver.Value {
		if stores[i].ID == "" {
			return []driver.Value{nil, nil}
		}
		return []driver.Value{stores[i].ID, stores[i].Name}
	})
}

// eventStoresOf is the store each event's venue names (venuematch.Venues), in the table's order; the zero
// Store for a venue that names none.
func eventStoresOf(ctx context.Context, conn *sql.Conn) ([]venuematch.Store, error) {
	var stores []venuematch.Store
	rows, err := conn.QueryContext(ctx, `SELECT store_id, store_name FROM main.stores`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var s venuematch.Store
		if err := rows.Scan(&s.ID, &s.Name); err != nil {
			rows.Close()
			return nil, err
		}
		stores = append(stores, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	venues := venuematch.New(stores)
	rows, err = conn.QueryContext(ctx, `SELECT location FROM ctool_derive.events_known`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []venuematch.Store
	seen := map[string]venuematch.Store{}
	for rows.Next() {
		var location sql.NullString
		if err := rows.Scan(&location); err != nil {
			return nil, err
		}
		venue := venuematch.VenueOf(location.String)
		s, ok := seen[venue]
		if !ok {
			s = venues.Match(venue).Store
			seen[venue] = s
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// offersOf reads every store's offers (offers.Topics) from its text, in the table's order: one row of
// store_offers per store, a BOOLEAN or NULL per topic, then each topic's caveat or NULL.
func offersOf(ctx context.Context, conn *sql.Conn) ([][]driver.Value, error) {
	cols := make([]string, len(offers.Topics))
	for i, t := range offers.Topics {
		cols[i] = quoteQualified(t.Source)
	}
	rows, err := conn.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM main.stores`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]driver.Value
	cells := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		// The offers, then their caveats, in the order of store_offers' columns.
		row := make([]driver.Value, 2*len(cols))
		for i, t := range offers.Topics {
			switch offers.Read(t, cells[i].String) {
			case offers.OfferYes:
				row[i] = true
			case offers.OfferNo:
				row[i] = false
			}
			if c := offers.ReadCaveat(t, cells[i].String); c != "" {
				row[len(cols)+i] = c
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// pricesOf computes the prices from the products table, in its order.
func pricesOf(ctx context.Context, conn *sql.Conn) ([]Price, error) {
	rows, err := conn.QueryContext(ctx, `SELECT product_description FROM main.products`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	prices := []Price{}
	for rows.Next() {
		var d sql.NullString
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		prices = append(prices, PriceOf(d.String))
	}
	return prices, rows.Err()
}

// PriceOf is a description's entry of Given.Prices: price_max_yen only where several prices differ.
func PriceOf(description string) Price {
	p := price.Read(description)
	switch {
	case !p.OK:
		return Price{NoPrice, NoPrice, p.Unread}
	case p.High == p.Low:
		return Price{p.Low, NoPrice, p.Unread}
	}
	return Price{p.Low, p.High, p.Unread}
}

// appendRows appends n rows to a table of ctool_derive through DuckDB's appender.
func appendRows(ctx context.Context, conn *sql.Conn, table string, n int, row func(i int) []driver.Value) error {
	return appendRowsTo(ctx, conn, "ctool_derive", table, n, row)
}

// appendRowsTo is appendRows into a table of another schema.
func appendRowsTo(ctx context.Context, conn *sql.Conn, schemaName, table string, n int, row func(i int) []driver.Value) error {
	return conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppender(dc.(driver.Conn), "", schemaName, table)
		table := schemaName + "." + table // for the errors
		if err != nil {
			return fmt.Errorf("fill %s: %w", table, err)
		}
		for i := 0; i < n; i++ {
			if err := a.AppendRow(row(i)...); err != nil {
				a.Close()
				return fmt.Errorf("fill %s: %w", table, err)
			}
		}
		if err := a.CloseWithCancel(ctx); err != nil {
			return fmt.Errorf("fill %s: %w", table, err)
		}
		return nil
	})
}

// fillUnknown records the cells validation could not type (ctool_meta.unknown_cells) and writes the
// masks the *_known views read: one row per row of events and stores, listing its unknown columns.
func fillUnknown(ctx context.Context, conn *sql.Conn, cells []UnknownCell) error {
	if err := appendRowsTo(ctx, conn, "ctool_meta", "unknown_cells", len(cells), func(i int) []driver.Value {
		c := cells[i]
		return []driver.Value{c.Table, c.File, int64(c.Line), c.Column, c.Rule, int64(c.Row)}
	}); err != nil {
		return err
	}
	for _, m := range []struct{ table, count string }{
		{"events", `SELECT count(*) FROM main.events`},
		{"stores", `SELECT count(*) FROM main.stores`},
	} {
		table := m.table
		var rows int
		if err := conn.QueryRowContext(ctx, m.count).Scan(&rows); err != nil {
			return err
		}
		masks := make([][]string, rows)
		for _, c := range cells {
			if c.Table == table && c.Row >= 0 && c.Row < rows {
				masks[c.Row] = append(masks[c.Row], c.Column)
			}
		}
		if err := appendRows(ctx, conn, table+"_unknown", rows, func(i int) []driver.Value {
			if masks[i] == nil {
				return []driver.Value{nil}
			}
			return []driver.Value{masks[i]}
		}); err != nil {
			return err
		}
	}
	return nil
}

// fillHolidays writes the public holidays is_open reads.
func fillHolidays(ctx context.Context, conn *sql.Conn) error {
	hs := hours.Holidays()
	return appendRowsTo(ctx, conn, "ctool_meta", "public_holidays", len(hs), func(i int) []driver.Value {
		// The table's dates are Tokyo midnights; DuckDB's DATE is the calendar day, written as UTC.
		y, m, d := hs[i].Date.Date()
		return []driver.Value{time.Date(y, m, d, 0, 0, 0, 0, time.UTC), hs[i].Name}
	})
}

// dayNames are store_hours.day by hours.Span.Day.
var dayNames = [...]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "holiday"}

// hoursOf reads every store's opening hours (hours.Read, JSON or text) into the rows of
// ctool_derive.hours. A cell validation could not type reads as no hours: unknown.
func hoursOf(ctx context.Context, conn *sql.Conn) ([][]driver.Value, error) {
	rows, err := conn.QueryContext(ctx, `SELECT store_id, store_name, opening_hours FROM ctool_derive.stores_known`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]driver.Value
	for rows.Next() {
		var id, name string
		var cell sql.NullString
		if err := rows.Scan(&id, &name, &cell); err != nil {
			return nil, err
		}
		if !cell.Valid {
			continue
		}
		h, ok := hours.Read(cell.String)
		if !ok {
			continue
		}
		for _, sp := range h.Spans {
			day, open, close := sp.Day, sp.Open, sp.Close
			if open >= minutesPerDay {
				// Late-night notation: an opening at 25:00 is the next day's, at 01:00.
				if day < hours.HolidayDay {
					day = (day + 1) % 7
				}
				open, close = open-minutesPerDay, close-minutesPerDay
			}
			out = append(out, []driver.Value{id, name, dayNames[day], int32(day),
				clock(open), clock(close % minutesPerDay), close >= minutesPerDay})
		}
	}
	return out, rows.Err()
}

const minutesPerDay = 24 * 60

// clock is a time of day, minutes after midnight, as the appender writes a TIME.
func clock(minutes int) time.Time {
	return time.Date(1970, 1, 1, minutes/60, minutes%60, 0, 0, time.UTC)
}

// eventWeekdaysOf is each event's weekdays (hours.EventWeekdays of its name, description and
// additional_info), in the table's order; nil where it is held every day or the text does not say.
func eventWeekdaysOf(ctx context.Context, conn *sql.Conn) ([][]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT event_name, description, additional_info FROM main.events`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var name, description, info sql.NullString
		if err := rows.Scan(&name, &description, &info); err != nil {
			return nil, err
		}
		out = append(out, hours.EventWeekdays(name.String, description.String, info.String))
	}
	return out, rows.Err()
}
