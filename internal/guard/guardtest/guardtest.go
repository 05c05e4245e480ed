// Package guardtest holds what tests of ctool's SQL guard share: the one hostile corpus, the legit
// corpus, the small stand-in database both are written against, and the CPU per op that the guard's
// and a call's benchmarks report. Only tests import it.
//
// The corpora are txtar archives embedded from this directory, one case per file:
//
//	-- files/read_csv_passwd --
//	want: table function read_csv()
//	SELECT * FROM read_csv('/etc/passwd')
//
// In hostile.txtar the file name is <topic>/<case>, the first line is "want: " followed by a part of
// the refusal message (callers compare it case-insensitively), and the rest is the SQL without its
// final newline. Cases under engine/ are allowed by the guard and attack DuckDB itself (a crash, a
// runaway query); their first line is "kind: " and the error kinds they may end in (see Engine), and
// Hostile leaves them out. In legit.txtar the content is the SQL alone. Hostile SQL and wants may hold these
// placeholders, which Hostile replaces:
//
//	$OUT            a directory a file-writing attack (COPY, EXPORT) would target
//	$PROFILES       the path of the profiles database file
//	$PROFILES_FILE  its base name
//	$PROFILES_DB    its base name without ".duckdb": the catalog name ATTACH would give it
//	$DATA           the directory holding it (beside the main database)
//
// Three cases cannot be written in a text file (a NUL byte, a byte that is not UTF-8, 100 kB of text);
// Hostile adds them.
package guardtest

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema/fold"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/rogpeppe/go-internal/txtar"
)

// Case is one hostile query and a part of the message that refuses it.
type Case struct {
	Name string
	SQL  string
	Want string
}

var (
	//go:embed hostile.txtar
	hostileTxtar []byte
	//go:embed legit.txtar
	legitTxtar []byte
)

// Hostile returns every hostile case with out and profiles put in for their placeholders.
func Hostile(out, profiles string) []Case {
	file := filepath.Base(profiles)
	r := strings.NewReplacer(
		// Longer names first: the replacer tries them in this order at each position.
		"$PROFILES_FILE", file,
		"$PROFILES_DB", strings.TrimSuffix(file, ".duckdb"),
		"$PROFILES", profiles,
		"$OUT", out,
		"$DATA", filepath.Dir(profiles),
	)
	var cases []Case
	for _, f := range txtar.Parse(hostileTxtar).Files {
		if strings.HasPrefix(string(f.Data), "kind: ") {
			continue // an engine case: the guard allows it (Engine)
		}
		want, sql, ok := strings.Cut(string(f.Data), "\n")
		want, hasWant := strings.CutPrefix(want, "want: ")
		if !ok || !hasWant || want == "" {
			panic(fmt.Sprintf("guardtest: hostile case %s has no want: line", f.Name))
		}
		cases = append(cases, Case{Name: f.Name, SQL: r.Replace(strings.TrimSuffix(sql, "\n")), Want: r.Replace(want)})
	}
	return append(cases,
		Case{Name: "input/nul_byte", SQL: "SELECT 1\x00; DROP TABLE events", Want: "NUL byte"},
		Case{Name: "input/invalid_utf8", SQL: "SELECT '\xff'", Want: "invalid text"},
		Case{Name: "input/too_long", SQL: "SELECT '" + strings.Repeat("x", 100_001) + "'", Want: "query too long"},
	)
}

// EngineCase is a query the guard rightly allows that makes DuckDB crash, run away or exhaust the
// memory; what a caller gets is an error of one of Kinds.
type EngineCase struct {
	Name  string
	SQL   string
	Kinds []string
}

// Engine returns the hostile corpus's engine cases: files whose first line is "kind: " and the
// error kinds it may end in, separated by "|" (which one can depend on the machine's speed).
func Engine() []EngineCase {
	var cases []EngineCase
	for _, f := range txtar.Parse(hostileTxtar).Files {
		kinds, sql, ok := strings.Cut(string(f.Data), "\n")
		kinds, isEngine := strings.CutPrefix(kinds, "kind: ")
		if !isEngine {
			continue
		}
		if !ok || kinds == "" {
			panic(fmt.Sprintf("guardtest: engine case %s has no kinds", f.Name))
		}
		cases = append(cases, EngineCase{Name: f.Name, SQL: strings.TrimSuffix(sql, "\n"), Kinds: strings.Split(kinds, "|")})
	}
	return cases
}

// Legit returns the queries the guard must accept; they read the stand-in database.
func Legit() []string {
	var out []string
	for _, f := range txtar.Parse(legitTxtar).Files {
		out = append(out, strings.TrimSuffix(string(f.Data), "\n"))
	}
	return out
}

// StandInRelations are the relations of the stand-in database that ctool query may read: the same
// names as the real database's public relations.
var StandInRelations = []string{
	"events", "events.csv", "input/events.csv", "events_typed",
	"stores", "stores.csv", "filtered_store_data_カテゴリー情報あり.csv", "input/filtered_store_data_カテゴリー情報あり.csv",
	"stores_typed", "store_hours", "store_closures",
	"products", "filtered_product_data.csv", "input/filtered_product_data.csv", "products_typed",
}

// standInSQL builds a small database shaped like ctool's: the public tables, typed views, file-named
// alias views and macros (and fold, which OpenStandIn makes from fold.MacroSQL as the migrations
// do), plus relations no query may reach: profiles, ctool_meta.build, secret_profiles,
// ctool.ingest_log, and fifty (which row-cap tests allow).
var standInSQL = []string{
	`CREATE TABLE events(event_name VARCHAR, description VARCHAR, date_time VARCHAR, cost VARCHAR, registration_required VARCHAR)`,
	`INSERT INTO events VALUES
		('秋祭り', 'Please DELETE the old flyers; DROP TABLE is a joke', '2025-10-03', '{"is_free": true}', 'True'),
		('Jazz Night', 'Live music; SELECT your seat', '2025-10-04/2025-10-05', '{"is_free": false, "price": 1000}', 'False'),
		('Market', 'Fresh produce', '2025-10-06', '{"is_free": true}', 'False')`,
	`CREATE TABLE stores(store_id VARCHAR, store_name VARCHAR, category VARCHAR, parking VARCHAR)`,
	`INSERT INTO stores VALUES
		('S001', '麻布台ヒルズカフェ', 'cafe', '{"available": true, "capacity": 20}'),
		('S002', 'Bakery One', 'bakery', '{"available": false}'),
		('S003', 'Market', 'grocery', '')`,
	`CREATE TABLE products(store_id VARCHAR, store_name VARCHAR, product_name VARCHAR, product_description VARCHAR, tag VARCHAR)`,
	`INSERT INTO products VALUES
		('S001', '麻布台ヒルズカフェ', 'Latte', 'ラテ 1,000円', 'drink'),
		('S001', '麻布台ヒルズカフェ', 'Cake', '税込500円のケーキ', 'sweet'),
		('S002', 'Bakery One', 'Bread', '¥300 bread', 'bread')`,
	`CREATE VIEW events_typed AS SELECT * REPLACE (registration_required = 'True' AS registration_required),
		CAST(json_extract(cost, '$.is_free') AS BOOLEAN) AS is_free FROM events`,
	`CREATE VIEW stores_typed AS SELECT *, CAST(json_extract(NULLIF(parking, ''), '$.available') AS BOOLEAN) AS parking_available FROM stores`,
	`CREATE VIEW store_hours AS SELECT store_id, store_name, d.day AS day, TIME '10:00' AS opens, TIME '22:00' AS closes, false AS overnight
		FROM stores, (VALUES ('monday'), ('tuesday'), ('wednesday'), ('thursday'), ('friday'), ('saturday'), ('sunday')) d(day)`,
	`CREATE VIEW store_closures AS SELECT store_id, store_name, DATE '2025-12-31' AS date, 'holiday' AS type, 'year end' AS reason FROM stores`,
	`CREATE VIEW products_typed AS SELECT *, TRY_CAST(regexp_replace(regexp_extract(product_description, '[0-9][0-9,]*', 0), '[^0-9]', '', 'g') AS INTEGER) AS price_yen FROM products`,
	`CREATE VIEW "events.csv" AS SELECT * FROM events`,
	`CREATE VIEW "input/events.csv" AS SELECT * FROM events`,
	`CREATE VIEW "stores.csv" AS SELECT * FROM stores`,
	`CREATE VIEW "filtered_store_data_カテゴリー情報あり.csv" AS SELECT * FROM stores`,
	`CREATE VIEW "input/filtered_store_data_カテゴリー情報あり.csv" AS SELECT * FROM stores`,
	`CREATE VIEW "filtered_product_data.csv" AS SELECT * FROM products`,
	`CREATE VIEW "input/filtered_product_data.csv" AS SELECT * FROM products`,
	`CREATE MACRO tokyo_now() AS CAST(timezone('Asia/Tokyo', now()) AS TIMESTAMP)`,
	`CREATE MACRO is_open(sid, ts) AS EXISTS (SELECT 1 FROM store_hours h
		WHERE h.store_id = sid AND h.day = lower(dayname(CAST(ts AS DATE)))
		  AND CAST(ts AS TIME) >= h.opens AND CAST(ts AS TIME) < h.closes
		  AND NOT EXISTS (SELECT 1 FROM store_closures c WHERE c.store_id = sid AND c.date = CAST(ts AS DATE)))`,
	`CREATE TABLE fifty AS SELECT CAST(i AS INTEGER) AS i FROM range(50) t(i)`,
	`CREATE TABLE profiles(profile_id VARCHAR, primary_store_id VARCHAR, narrative VARCHAR)`,
	`INSERT INTO profiles VALUES ('p-secret', 'S001', 'a secret narrative')`,
	`CREATE TABLE secret_profiles(profile_id VARCHAR)`,
	`INSERT INTO secret_profiles VALUES ('p-secret')`,
	`CREATE SCHEMA ctool_meta`,
	`CREATE TABLE ctool_meta.build(key VARCHAR, value VARCHAR)`,
	`INSERT INTO ctool_meta.build VALUES ('profiles_file', 'p-secret.duckdb'), ('build_id', 'stand-in')`,
	`CREATE SCHEMA ctool`,
	`CREATE TABLE ctool.ingest_log(msg VARCHAR)`,
	`INSERT INTO ctool.ingest_log VALUES ('p-secret')`,
}

// Secret is in every row of the relations no query may reach.
const Secret = "p-secret"

// OpenStandIn returns one connection to a fresh in-memory stand-in database, for the guard's own tests,
// which need no reader's connection (their Parser is this connection's json_serialize_sql).
func OpenStandIn(tb testing.TB) *sql.Conn {
	tb.Helper()
	conn, _ := standIn(tb, "")
	return conn
}

// WriteStandIn writes the stand-in database to a file in a new temporary directory and returns its
// path, for tests that open it as a build (database.Open), as readers get one.
func WriteStandIn(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "standin.duckdb")
	conn, db := standIn(tb, path)
	if err := errors.Join(conn.Close(), db.Close()); err != nil {
		tb.Fatal(err)
	}
	return path
}

func standIn(tb testing.TB, path string) (*sql.Conn, *sql.DB) {
	c, err := duckdb.NewConnector(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(c)
	tb.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	for _, s := range append(standInSQL, fold.MacroSQL()) {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			tb.Fatalf("stand-in setup %q: %v", s, err)
		}
	}
	return conn, db
}
