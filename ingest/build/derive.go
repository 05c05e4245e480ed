package build

import (
	"context"
	"database/sql"
	"strings"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema/venuematch"
)

// The reads of the loaded tables that the Go-computed values of the stored relations are made of, each
// in its table's order: the rows for fillComputed, made by migrations/derive.go. A NULL cell reads as
// "", as the functions there take it.

// pricesOf computes the prices from the products table, in its order.
func pricesOf(ctx context.Context, conn *sql.Conn) ([]migrations.Price, error) {
	rows, err := conn.QueryContext(ctx, `SELECT product_description FROM main.products`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	prices := []migrations.Price{}
	for rows.Next() {
		var d sql.NullString
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		prices = append(prices, migrations.PriceOf(d.String))
	}
	return prices, rows.Err()
}

// hoursOf reads every store's opening hours into the rows of ctool_derive.hours. A cell validation
// could not type reads as no hours: unknown.
func hoursOf(ctx context.Context, conn *sql.Conn) ([][]any, error) {
	rows, err := conn.QueryContext(ctx, `SELECT store_id, store_name, opening_hours FROM ctool_derive.stores_known`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		var id, name string
		var cell sql.NullString
		if err := rows.Scan(&id, &name, &cell); err != nil {
			return nil, err
		}
		out = append(out, migrations.HourRows(id, name, cell.String, !cell.Valid)...)
	}
	return out, rows.Err()
}

// offersOf reads every store's offers from its text: one row of store_offers per store.
func offersOf(ctx context.Context, conn *sql.Conn) ([][]any, error) {
	cols := migrations.OfferColumns()
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteQualified(c)
	}
	rows, err := conn.QueryContext(ctx, `SELECT `+strings.Join(quoted, ", ")+` FROM main.stores`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	cells := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	text := make([]string, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, c := range cells {
			text[i] = c.String
		}
		out = append(out, migrations.OfferRow(text))
	}
	return out, rows.Err()
}

// eventWeekdaysOf is each event's row of event_weekdays, from its name, description and
// additional_info.
func eventWeekdaysOf(ctx context.Context, conn *sql.Conn) ([][]any, error) {
	rows, err := conn.QueryContext(ctx, `SELECT event_name, description, additional_info FROM main.events`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		var name, description, info sql.NullString
		if err := rows.Scan(&name, &description, &info); err != nil {
			return nil, err
		}
		out = append(out, migrations.WeekdaysRow(name.String, description.String, info.String))
	}
	return out, rows.Err()
}

// eventStoresOf is each event's row of event_stores: the store its venue names among the stores
// table's.
func eventStoresOf(ctx context.Context, conn *sql.Conn) ([][]any, error) {
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
	match := migrations.NewEventStores(stores)
	rows, err = conn.QueryContext(ctx, `SELECT location FROM ctool_derive.events_known`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		var location sql.NullString
		if err := rows.Scan(&location); err != nil {
			return nil, err
		}
		out = append(out, match.Row(location.String))
	}
	return out, rows.Err()
}
