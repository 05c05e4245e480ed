package migrations

import (
	"time"

	"github.com/azabudai/ctool/schema/hours"
	"github.com/azabudai/ctool/schema/offers"
	"github.com/azabudai/ctool/schema/price"
	"github.com/azabudai/ctool/schema/venuematch"
)

// Some values of the stored relations are computed in Go, by rules of schema/ that read free text:
// tested and fuzzed as Go, linear in their input, and out of reach of any query (DuckDB cannot call Go
// through the guard, and a function registered on the build's connection would be named by views a
// reader of the build could not bind). The build (ingest/build) reads the cells they read from the new
// file, passes them through the functions below and writes the rows they return to tables of
// ctool_derive (and ctool_meta), one row per row of the table they read unless said otherwise, which
// the views there join before the copy. A row's values are in its table's column order, as DuckDB's
// appender takes them: nil is NULL.

// Given are values the caller has computed already; the build computes what is not given from the
// tables.
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

// Values are the cell's row of ctool_meta.unknown_cells.
func (c UnknownCell) Values() []any {
	return []any{c.Table, c.File, int64(c.Line), c.Column, c.Rule, int64(c.Row)}
}

// UnknownMasks are the rows of ctool_derive.<table>_unknown, which the *_known views read, for the
// rows rows of table (events, stores): each row's unknown columns, NULL for a row without any.
func UnknownMasks(cells []UnknownCell, table string, rows int) [][]any {
	masks := make([][]string, rows)
	for _, c := range cells {
		if c.Table == table && c.Row >= 0 && c.Row < rows {
			masks[c.Row] = append(masks[c.Row], c.Column)
		}
	}
	out := make([][]any, rows)
	for i, m := range masks {
		if m == nil {
			out[i] = []any{nil}
		} else {
			out[i] = []any{m}
		}
	}
	return out
}

// Price is what a products row's description says it costs: price_yen and price_max_yen, NoPrice
// where the description gives none (NULL), and whether it holds a price the rule could not read.
type Price struct {
	Low, High int32
	Unread    bool
}

// NoPrice marks a price the description does not give.
const NoPrice int32 = -1

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

// Values are the price's row of ctool_derive.product_prices.
func (p Price) Values() []any {
	orNull := func(yen int32) any {
		if yen == NoPrice {
			return nil
		}
		return yen
	}
	return []any{orNull(p.Low), orNull(p.High), p.Unread}
}

// HolidayRows are the rows of ctool_meta.public_holidays, which is_open reads.
func HolidayRows() [][]any {
	hs := hours.Holidays()
	out := make([][]any, len(hs))
	for i, h := range hs {
		// The table's dates are Tokyo midnights; DuckDB's DATE is the calendar day, written as UTC.
		y, m, d := h.Date.Date()
		out[i] = []any{time.Date(y, m, d, 0, 0, 0, 0, time.UTC), h.Name}
	}
	return out
}

// dayNames are store_hours.day by hours.Span.Day.
var dayNames = [...]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "holiday"}

// HourRows are the rows of ctool_derive.hours for one store's opening hours (hours.Read, JSON or
// text), read from ctool_derive.stores_known: a row per span, none where the hours are unknown: a
// NULL cell (null; empty, or one validation could not type) or hours the rule cannot read.
func HourRows(storeID, storeName, cell string, null bool) [][]any {
	if null {
		return nil
	}
	h, ok := hours.Read(cell)
	if !ok {
		return nil
	}
	var out [][]any
	for _, sp := range h.Spans {
		day, open, close := sp.Day, sp.Open, sp.Close
		if open >= minutesPerDay {
			// Late-night notation: an opening at 25:00 is the next day's, at 01:00.
			if day < hours.HolidayDay {
				day = (day + 1) % 7
			}
			open, close = open-minutesPerDay, close-minutesPerDay
		}
		out = append(out, []any{storeID, storeName, dayNames[day], int32(day),
			clock(open), clock(close % minutesPerDay), close >= minutesPerDay})
	}
	return out
}

const minutesPerDay = 24 * 60

// clock is a time of day, minutes after midnight, as the appender writes a TIME.
func clock(minutes int) time.Time {
	return time.Date(1970, 1, 1, minutes/60, minutes%60, 0, 0, time.UTC)
}

// OfferColumns are the stores columns the offers are read from (offers.Topics' sources), in the order
// OfferRow takes their cells.
func OfferColumns() []string {
	cols := make([]string, len(offers.Topics))
	for i, t := range offers.Topics {
		cols[i] = t.Source
	}
	return cols
}

// OfferRow is a store's row of ctool_derive.store_offers from the cells of OfferColumns ("" for
// NULL): its offers (offers.Topics), a BOOLEAN or NULL per topic, then each topic's caveat or NULL.
func OfferRow(cells []string) []any {
	n := len(offers.Topics)
	row := make([]any, 2*n)
	for i, t := range offers.Topics {
		switch offers.Read(t, cells[i]) {
		case offers.OfferYes:
			row[i] = true
		case offers.OfferNo:
			row[i] = false
		}
		if c := offers.ReadCaveat(t, cells[i]); c != "" {
			row[n+i] = c
		}
	}
	return row
}

// WeekdaysRow is an event's row of ctool_derive.event_weekdays from its name, description and
// additional_info ("" for NULL): its weekdays (hours.EventWeekdays), NULL where it is held every day
// or the text does not say.
func WeekdaysRow(name, description, info string) []any {
	days := hours.EventWeekdays(name, description, info)
	if days == nil {
		return []any{nil}
	}
	return []any{days}
}

// EventStores matches events' venues with the stores file's stores (venuematch.Venues), each venue once.
type EventStores struct {
	venues *venuematch.Venues
	seen   map[string]venuematch.Store
}

// NewEventStores matches venues with stores, the stores table's ids and names.
func NewEventStores(stores []venuematch.Store) *EventStores {
	return &EventStores{venues: venuematch.New(stores), seen: map[string]venuematch.Store{}}
}

// Row is an event's row of ctool_derive.event_stores from its location, read from
// ctool_derive.events_known ("" for NULL): the store its venue names, store_id and store_name, NULL
// for a venue that names none.
func (e *EventStores) Row(location string) []any {
	venue := venuematch.VenueOf(location)
	s, ok := e.seen[venue]
	if !ok {
		s = e.venues.Match(venue).Store
		e.seen[venue] = s
	}
	if s.ID == "" {
		return []any{nil, nil}
	}
	return []any{s.ID, s.Name}
}
