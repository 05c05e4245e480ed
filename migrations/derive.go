package migrations

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/schema"
	"github.com/duckdb/duckdb-go/v2"
)

// Some values of the stored relations are computed in Go, by rules of schema/ that read free text:
// tested and fuzzed as Go, linear in their input, and out of reach of any query (DuckDB cannot call Go
// through the guard, and a function registered on the build's connection would be named by views a
// reader of the build could not bind). Fill writes their results to tables of ctool_derive, one row per
// row of the table they read, which the views there join before the copy.

// Given are values the caller has computed already; Fill computes what is not given from the tables.
type Given struct {
	// Prices are schema.PriceYen of every products row's description, in the table's row order, with
	// NoPrice where there is none: ingest's validation reads the file in the order DuckDB loads it and
	// computes them as it checks each description, beside the load.
	Prices []int32
}

// NoPrice marks a description without a price in Given.Prices.
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
	if err := appendRows(ctx, conn, "product_prices", len(prices), func(i int) []driver.Value {
		if prices[i] == NoPrice {
			return []driver.Value{nil}
		}
		return []driver.Value{prices[i]}
	}); err != nil {
		return err
	}
	offers, err := offersOf(ctx, conn)
	if err != nil {
		return err
	}
	if err := appendRows(ctx, conn, "store_offers", len(offers), func(i int) []driver.Value { return offers[i] }); err != nil {
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

// eventStoresOf is the store each event's venue names (schema.Venues), in the table's order; the zero
// Store for a venue that names none.
func eventStoresOf(ctx context.Context, conn *sql.Conn) ([]schema.Store, error) {
	var stores []schema.Store
	rows, err := conn.QueryContext(ctx, `SELECT store_id, store_name FROM main.stores`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var s schema.Store
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
	venues := schema.NewVenues(stores)
	rows, err = conn.QueryContext(ctx, `SELECT location FROM main.events`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schema.Store
	seen := map[string]schema.Store{}
	for rows.Next() {
		var location sql.NullString
		if err := rows.Scan(&location); err != nil {
			return nil, err
		}
		venue := schema.VenueOf(location.String)
		s, ok := seen[venue]
		if !ok {
			s = venues.Match(venue).Store
			seen[venue] = s
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// offersOf reads every store's offers (schema.Topics) from its text, in the table's order: one row of
// store_offers per store, a BOOLEAN or NULL per topic.
func offersOf(ctx context.Context, conn *sql.Conn) ([][]driver.Value, error) {
	cols := make([]string, len(schema.Topics))
	for i, t := range schema.Topics {
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
		row := make([]driver.Value, len(cols))
		for i, t := range schema.Topics {
			switch schema.ReadOffer(t, cells[i].String) {
			case schema.OfferYes:
				row[i] = true
			case schema.OfferNo:
				row[i] = false
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// pricesOf computes the prices from the products table, in its order.
func pricesOf(ctx context.Context, conn *sql.Conn) ([]int32, error) {
	rows, err := conn.QueryContext(ctx, `SELECT product_description FROM main.products`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	prices := []int32{}
	for rows.Next() {
		var d sql.NullString
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		prices = append(prices, Price(d.String))
	}
	return prices, rows.Err()
}

// Price is a description's entry of Given.Prices.
func Price(description string) int32 {
	if yen, ok := schema.PriceYen(description); ok {
		return yen
	}
	return NoPrice
}

// appendRows appends n rows to a table of ctool_derive through DuckDB's appender.
func appendRows(ctx context.Context, conn *sql.Conn, table string, n int, row func(i int) []driver.Value) error {
	return conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppender(dc.(driver.Conn), "", "ctool_derive", table)
		if err != nil {
			return fmt.Errorf("fill ctool_derive.%s: %w", table, err)
		}
		for i := 0; i < n; i++ {
			if err := a.AppendRow(row(i)...); err != nil {
				a.Close()
				return fmt.Errorf("fill ctool_derive.%s: %w", table, err)
			}
		}
		if err := a.CloseWithCancel(ctx); err != nil {
			return fmt.Errorf("fill ctool_derive.%s: %w", table, err)
		}
		return nil
	})
}
