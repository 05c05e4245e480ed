package query

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// standInSQL builds a small database shaped like ctool's: the public tables, typed views, file-named
// alias views and macros, plus secret_profiles and ctool.ingest_log, which no query may reach.
var guardStandInSQL = []string{
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
	`CREATE VIEW "filtered_product_data.csv" AS SELECT * FROM products`,
	`CREATE VIEW "input/filtered_product_data.csv" AS SELECT * FROM products`,
	`CREATE MACRO tokyo_now() AS CAST(timezone('Asia/Tokyo', now()) AS TIMESTAMP)`,
	`CREATE MACRO is_open(sid, ts) AS EXISTS (SELECT 1 FROM store_hours h
		WHERE h.store_id = sid AND h.day = lower(dayname(CAST(ts AS DATE)))
		  AND CAST(ts AS TIME) >= h.opens AND CAST(ts AS TIME) < h.closes
		  AND NOT EXISTS (SELECT 1 FROM store_closures c WHERE c.store_id = sid AND c.date = CAST(ts AS DATE)))`,
	`CREATE TABLE fifty AS SELECT CAST(i AS INTEGER) AS i FROM range(50) t(i)`,
	`CREATE TABLE secret_profiles(profile_id VARCHAR)`,
	`INSERT INTO secret_profiles VALUES ('p-secret')`,
	`CREATE SCHEMA ctool`,
	`CREATE TABLE ctool.ingest_log(msg VARCHAR)`,
	`INSERT INTO ctool.ingest_log VALUES ('hidden')`,
}

// publicRelations are the names the agent may read; secret_profiles, ctool.ingest_log and fifty are not.
var guardPublicRelations = []string{
	"events", "events_typed", "stores", "stores_typed", "store_hours", "store_closures", "products",
	"products_typed", "events.csv", "input/events.csv", "stores.csv", "filtered_product_data.csv",
	"input/filtered_product_data.csv",
}

func guardTestPolicy(extra ...string) Policy {
	p := Policy{Relations: map[string]bool{}, Macros: map[string]bool{"is_open": true, "tokyo_now": true}}
	for _, r := range append(guardPublicRelations, extra...) {
		p.Relations[r] = true
	}
	return p
}

// openStandIn returns one connection to a fresh in-memory stand-in database.
func openGuardStandIn(tb testing.TB) *sql.Conn {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	for _, s := range guardStandInSQL {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			tb.Fatalf("stand-in setup %q: %v", s, err)
		}
	}
	return conn
}

type guardHostileCase struct {
	sql  string
	want string // a part of the message, case-insensitive; "" checks only that it is a *Rejection
}

// hostileCorpus must all be refused. The FuzzGuard seeds reuse it.
var hostileCorpus = []guardHostileCase{
	// Statement kinds: DuckDB's serializer refuses them, the message names the kind.
	{"INSERT INTO events VALUES ('a', 'b', 'c', 'd', 'e')", "refused: INSERT."},
	{"UPDATE events SET cost = ''", "refused: UPDATE."},
	{"DELETE FROM events", "refused: DELETE."},
	{"DROP TABLE events", "refused: DROP."},
	{"ALTER TABLE events ADD COLUMN x INTEGER", "refused: ALTER."},
	{"CREATE TABLE x AS SELECT * FROM secret_profiles", "refused: CREATE."},
	{"CREATE OR REPLACE MACRO lower(x) AS x", "refused: CREATE."},
	{"TRUNCATE events", "refused: TRUNCATE."},
	{"COPY events TO '/tmp/events.csv'", "refused: COPY."},
	{"COPY (SELECT * FROM secret_profiles) TO '/tmp/x.csv'", "refused: COPY."},
	{"EXPORT DATABASE '/tmp/dump'", "refused: EXPORT."},
	{"IMPORT DATABASE '/tmp/dump'", "refused: IMPORT."},
	{"ATTACH '/tmp/other.duckdb' AS other", "refused: ATTACH."},
	{"DETACH other", "refused: DETACH."},
	{"INSTALL httpfs", "refused: INSTALL."},
	{"LOAD httpfs", "refused: LOAD."},
	{"SET enable_external_access = true", "refused: SET."},
	{"SET VARIABLE x = (SELECT profile_id FROM secret_profiles)", "refused: SET."},
	{"RESET memory_limit", "refused: RESET."},
	{"PRAGMA table_info('secret_profiles')", "refused: PRAGMA."},
	{"CALL pragma_table_info('secret_profiles')", "refused: CALL."},
	{"PREPARE p AS SELECT * FROM secret_profiles", "refused: PREPARE."},
	{"EXECUTE p", "refused: EXECUTE."},
	{"CHECKPOINT", "refused: CHECKPOINT."},
	{"VACUUM", "refused: VACUUM."},
	{"EXPLAIN SELECT * FROM events", "refused: EXPLAIN."},
	{"USE ctool", "refused: USE."},
	{"BEGIN TRANSACTION", "refused: BEGIN."},
	{"DESCRIBE events", "refused: DESCRIBE."},
	{"DESCRIBE secret_profiles", "refused: DESCRIBE."},
	{"SUMMARIZE events", "refused: SUMMARIZE."},
	{"SHOW TABLES", "refused: SHOW."},
	{"SHOW ALL TABLES", "refused: SHOW."},
	{"SELECT * FROM (DESCRIBE secret_profiles)", "refused: DESCRIBE."},
	{"FROM (SUMMARIZE ctool.ingest_log)", "refused: SUMMARIZE."},
	{"SELECT * FROM (SHOW TABLES)", "refused: SHOW."},
	{"PIVOT events ON cost USING count(*)", "PIVOT without an explicit IN list"},
	{"/* hi */ -- comment\n  (  DELETE FROM events", "syntax error"},
	{"/* a /* nested */ comment */ -- x\nDROP TABLE events", "refused: DROP."},

	// More than one statement, in many shapes: nothing runs.
	{"SELECT 1; SELECT 2", "2 statements"},
	{"SELECT 1; DROP TABLE events", "exactly one read-only SELECT"},
	{"SELECT ';'; DELETE FROM events", "exactly one read-only SELECT"},
	{"SELECT 'a;b'; SELECT * FROM secret_profiles", "2 statements"},
	{"SELECT 1 -- comment\n; DELETE FROM events", "exactly one read-only SELECT"},
	{"SELECT 1 /* ; */; DROP TABLE events", "exactly one read-only SELECT"},
	{"SELECT 1;\n-- trailing comment\nSELECT * FROM secret_profiles", "2 statements"},
	{"FROM events; FROM secret_profiles;", "2 statements"},
	{"SELECT \";\" FROM events; DELETE FROM events", "exactly one read-only SELECT"},
	{"WITH a AS (SELECT 1) DELETE FROM events", "exactly one read-only SELECT"},
	{"WITH a AS (DELETE FROM events RETURNING *) SELECT * FROM a", "syntax error"},
	{"SELECT 1 INTO evil", "syntax error"},

	// File reads.
	{"SELECT * FROM read_csv('input/events.csv')", "read_csv()"},
	{"SELECT * FROM read_csv_auto('/etc/passwd')", "read_csv_auto()"},
	{"SELECT * FROM read_text('/etc/passwd')", "read_text()"},
	{"SELECT * FROM read_blob('/etc/passwd')", "read_blob()"},
	{"SELECT * FROM read_json('/tmp/x.json')", "read_json()"},
	{"SELECT * FROM read_parquet('/tmp/x.parquet')", "read_parquet()"},
	{"SELECT * FROM parquet_scan('/tmp/x.parquet')", "parquet_scan()"},
	{"SELECT * FROM read_duckdb('/tmp/other.duckdb')", "read_duckdb()"},
	{"SELECT * FROM glob('/*')", "glob()"},
	{"SELECT * FROM sniff_csv('input/events.csv')", "sniff_csv()"},
	{"SELECT * FROM 'file.csv'", `table "file.csv"`},
	{"SELECT * FROM '/etc/passwd'", `table "/etc/passwd"`},
	{"SELECT * FROM '../x.csv'", `table "../x.csv"`},
	{"FROM 'input/secret.csv'", `table "input/secret.csv"`},
	{"SELECT * FROM 'events.csv ' ", `table "events.csv "`},
	{"SELECT * FROM events.csv", `qualified table name "events.csv"`},
	{"SELECT * FROM delta_scan('/tmp/t')", "delta_scan()"},
	{"SELECT * FROM iceberg_scan('/tmp/t')", "iceberg_scan()"},

	// Metadata and the catalog.
	{"SELECT * FROM duckdb_tables()", "duckdb_tables()"},
	{"SELECT * FROM duckdb_settings()", "duckdb_settings()"},
	{"SELECT * FROM duckdb_databases()", "duckdb_databases()"},
	{"SELECT * FROM duckdb_functions()", "duckdb_functions()"},
	{"SELECT * FROM duckdb_secrets()", "duckdb_secrets()"},
	{"SELECT * FROM duckdb_tables", `table "duckdb_tables"`},
	{"SELECT * FROM information_schema.tables", `qualified table name "information_schema.tables"`},
	{"SELECT * FROM pg_catalog.pg_class", `qualified table name "pg_catalog.pg_class"`},
	{"SELECT * FROM pg_class", `table "pg_class"`},
	{"SELECT * FROM sqlite_master", `table "sqlite_master"`},
	{"SELECT * FROM pragma_table_info('events')", "pragma_table_info()"},
	{"SELECT * FROM which_secret('s3://bucket/x', 's3')", "which_secret()"},
	{"SELECT * FROM system.main.duckdb_tables()", "table function system.main.duckdb_tables()"},
	{"SELECT * FROM main.range(3)", "table function main.range()"},
	{"SELECT * FROM sql_auto_complete('SELECT * FROM secret_')", "sql_auto_complete()"},
	{"SELECT * FROM histogram(events, cost)", "histogram()"},

	// Settings, variables, the environment and other session state.
	{"SELECT current_setting('memory_limit')", "current_setting()"},
	{"SELECT getvariable('x')", "getvariable()"},
	{"SELECT getenv('HOME')", "getenv()"},
	{"SELECT version()", "version()"},
	{"SELECT current_database()", "current_database()"},
	{"SELECT current_schemas(true)", "current_schemas()"},
	{"SELECT current_query()", "current_query()"},
	{"SELECT nextval('seq')", "nextval()"},
	{"SELECT setseed(0.5)", "setseed()"},
	{"SELECT json_serialize_sql('SELECT * FROM secret_profiles')", "json_serialize_sql()"},
	{"SELECT json_deserialize_sql('{}')", "json_deserialize_sql()"},
	{"SELECT * FROM json_execute_serialized_sql('{}')", "json_execute_serialized_sql()"},
	{"SELECT error('boom')", "error()"},
	{"SELECT sleep_ms(100000)", "sleep_ms()"},
	{"SELECT current_user", `"current_user"`},
	{"SELECT user", `"user"`},
	{"SELECT * FROM events WHERE event_name = current_schema", `"current_schema"`},
	{"SELECT session_user, current_role", `"session_user"`},
	{"SELECT txid_current()", "txid_current()"},
	{"SELECT list_aggr([1], 'current_setting')", "current_setting()"},
	{"SELECT list_aggr([1], lower('SUM'))", "computed function name"},
	{"SELECT TREAT(1 AS current_setting)", "main.current_setting()"},

	// query()/query_table() and direct reads of hidden relations.
	{"SELECT * FROM query('SELECT * FROM secret_profiles')", "query()"},
	{"SELECT * FROM query_table('secret_profiles')", "query_table()"},
	{"SELECT * FROM secret_profiles", `table "secret_profiles"`},
	{"SELECT * FROM \"SECRET_PROFILES\"", `table "SECRET_PROFILES"`},
	{"SELECT * FROM ctool.ingest_log", `qualified table name "ctool.ingest_log"`},
	{"SELECT * FROM main.events", `qualified table name "main.events"`},
	{"SELECT * FROM memory.main.events", `qualified table name "memory.main.events"`},
	{"SELECT * FROM system.main.events", `qualified table name "system.main.events"`},
	{"SELECT * FROM ctool_meta.sources", "qualified table name"},
	{"SELECT * FROM events e JOIN secret_profiles s ON true", `table "secret_profiles"`},
	{"SELECT (SELECT count(*) FROM secret_profiles)", `table "secret_profiles"`},
	{"SELECT * FROM events WHERE EXISTS (SELECT 1 FROM ctool.ingest_log)", "ctool.ingest_log"},
	{"SELECT event_name FROM events UNION ALL SELECT profile_id FROM secret_profiles", `table "secret_profiles"`},
	{"SELECT * FROM events WHERE cost IN (SELECT profile_id FROM secret_profiles)", `table "secret_profiles"`},
	{"SELECT * FROM events, LATERAL (SELECT * FROM secret_profiles)", `table "secret_profiles"`},
	{"SELECT * FROM events LIMIT (SELECT count(*) FROM secret_profiles)", `table "secret_profiles"`},
	{"SELECT * FROM events ORDER BY (SELECT max(profile_id) FROM secret_profiles)", `table "secret_profiles"`},
	{"SELECT * FROM events QUALIFY row_number() OVER () < (SELECT count(*) FROM secret_profiles)", `table "secret_profiles"`},
	{"SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM secret_profiles)) FROM events", `table "secret_profiles"`},
	{"SELECT row_number() OVER (ORDER BY (SELECT 1 FROM secret_profiles)) FROM events", `table "secret_profiles"`},
	{"SELECT * REPLACE ((SELECT max(profile_id) FROM secret_profiles) AS cost) FROM events", `table "secret_profiles"`},
	{"SELECT COLUMNS(c -> c IN (SELECT profile_id FROM secret_profiles)) FROM events", `table "secret_profiles"`},
	{"VALUES ((SELECT max(profile_id) FROM secret_profiles))", `table "secret_profiles"`},
	{"SELECT * FROM range((SELECT count(*) FROM secret_profiles))", `table "secret_profiles"`},
	{"SELECT * FROM unnest((SELECT list(profile_id) FROM secret_profiles))", `table "secret_profiles"`},
	{"SELECT * FROM json_each((SELECT to_json(list(profile_id)) FROM secret_profiles))", `table "secret_profiles"`},
	{"SELECT is_open((SELECT max(profile_id) FROM secret_profiles), TIMESTAMP '2025-10-03 12:00')", `table "secret_profiles"`},
	{"SELECT list_transform([1], x -> (SELECT max(profile_id) FROM secret_profiles))", `table "secret_profiles"`},
	{"FROM events PIVOT (count(*) FOR cost IN ('a')) JOIN secret_profiles ON true", `table "secret_profiles"`},
	{"SELECT * FROM events JOIN stores ON (SELECT true FROM secret_profiles LIMIT 1)", `table "secret_profiles"`},
	{"SELECT * FROM events AT (VERSION => 1)", "AT (...) time travel"},
	{"SELECT * FROM events AT (TIMESTAMP => TIMESTAMP '2020-01-01')", "AT (...) time travel"},
	{"PIVOT events ON cost IN my_enum USING count(*)", "ENUM"},

	// CTE shadowing and scope tricks.
	{"WITH a AS (SELECT * FROM secret_profiles) SELECT * FROM a", `table "secret_profiles"`},
	{"WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a", `table "b"`},
	{"WITH a AS (SELECT * FROM secret_profiles), secret_profiles AS (SELECT 1) SELECT * FROM a", `table "secret_profiles"`},
	{"WITH secret_profiles AS (SELECT * FROM secret_profiles) SELECT * FROM secret_profiles", `table "secret_profiles"`},
	{"WITH RECURSIVE secret_profiles AS (SELECT * FROM secret_profiles) SELECT * FROM secret_profiles", `table "secret_profiles"`},
	{"WITH RECURSIVE secret_profiles(p) AS (SELECT * FROM secret_profiles UNION ALL SELECT 'x') SELECT * FROM secret_profiles", `table "secret_profiles"`},
	{"SELECT * FROM (WITH secret_profiles AS (SELECT 1) SELECT 1) t, secret_profiles", `table "secret_profiles"`},
	{"SELECT * FROM secret_profiles, (WITH secret_profiles AS (SELECT 1) SELECT 1) t", `table "secret_profiles"`},
	{"(WITH secret_profiles AS (SELECT 'x' AS p) SELECT * FROM secret_profiles) UNION ALL SELECT profile_id FROM secret_profiles", `table "secret_profiles"`},
	{"WITH a AS (WITH secret_profiles AS (SELECT 1) SELECT 1) SELECT * FROM secret_profiles", `table "secret_profiles"`},
	{"WITH ingest_log AS (SELECT 1) SELECT * FROM ctool.ingest_log", `qualified table name "ctool.ingest_log"`},
	{"WITH x AS (SELECT 1) SELECT * FROM (SELECT * FROM secret_profiles) WHERE EXISTS (SELECT * FROM x)", `table "secret_profiles"`},
	{"WITH RECURSIVE t(n) USING KEY (n) AS (SELECT 1 UNION SELECT n FROM recurring.t) SELECT * FROM t", `qualified table name "recurring.t"`},
	{"WITH \"\u017fecret_profiles\" AS (SELECT 'cte' AS profile_id) SELECT * FROM secret_profiles", `table "secret_profiles"`},
	{"WITH RECURSIVE secret_profiles(p) AS (SELECT 'a' INTERSECT SELECT * FROM secret_profiles) SELECT * FROM secret_profiles", `table "secret_profiles"`},

	// Prepared-statement parameters.
	{"SELECT ?", "parameter"},
	{"SELECT $1", "parameter"},
	{"SELECT * FROM events WHERE event_name = $name", "parameter"},
	{"SELECT * FROM events LIMIT $1", "parameter"},

	// Attempts to escape the row-limit wrapper.
	{"SELECT 1) UNION ALL (SELECT * FROM secret_profiles", "syntax error"},
	{"SELECT 1) AS ctool_q; DROP TABLE events; --", "syntax error"},
	{"SELECT 1) t, secret_profiles --", "syntax error"},
	{"SELECT * FROM events) AS ctool_q, (SELECT * FROM secret_profiles", "syntax error"},
	{"SELECT 1 /* unterminated", "syntax error"},

	// Schema-qualified functions and macros that are not the product's.
	{"SELECT main.lower('x')", "qualified function call main.lower()"},
	{"SELECT system.main.version()", "qualified function call system.main.version()"},
	{"SELECT pg_catalog.current_setting('memory_limit')", "qualified function call pg_catalog.current_setting()"},
	{"SELECT main.is_open('S001', TIMESTAMP '2025-10-03 12:00')", "qualified function call main.is_open()"},
	{"SELECT event_name.lower() FROM events", "qualified function call"},
	{"SELECT 1 OPERATOR(pg_catalog.+) 1", "pg_catalog()"},
	{"SELECT pg_get_viewdef(1)", "pg_get_viewdef()"},
	{"SELECT pg_typeof(1)", "pg_typeof()"},
	{"SELECT has_table_privilege('secret_profiles', 'select')", "has_table_privilege()"},
	{"SELECT get_block_size('memory')", "get_block_size()"},
	{"SELECT format_type(1, 1)", "format_type()"},
	{"SELECT col_description(1, 1)", "col_description()"},
	{"SELECT in_search_path('memory', 'main')", "in_search_path()"},
	{"SELECT my_hidden_macro(1)", "my_hidden_macro()"},
	{"SELECT stats(cost) FROM events", "stats()"},
	{"SELECT count(*) EXPORT_STATE FROM events", "export_state"},

	// Named types from the catalog.
	{"SELECT 'x'::ctool.mood", `type "mood"`},
	{"SELECT CAST('events' AS regclass)", `type "regclass"`},
	{"SELECT enum_range(NULL::secret_enum)", `type "secret_enum"`},

	// Input the parser should not see, and empty input.
	{"", "empty query"},
	{"   -- only a comment\n/* and this */ ;", "empty query"},
	{";;", "empty query"},
	{"SELEC 1", "syntax error"},
	{"SELECT 1\x00; DROP TABLE events", "NUL"},
	{"SELECT '\xff'", "UTF-8"},
}

// legitCorpus must pass and then run on the stand-in database.
var legitCorpus = []string{
	`FROM 'events.csv' WHERE cost LIKE '%"is_free": true%'`,
	`SELECT event_name FROM events WHERE registration_required = 'True'`,
	`SELECT store_name FROM stores WHERE store_name LIKE '%ヒルズ%'`,
	`SELECT product_name FROM products WHERE product_description LIKE '%1,000円%'`,
	`SELECT * FROM 'input/events.csv' WHERE date_time LIKE '2025-10%'`,
	`SELECT * FROM "filtered_product_data.csv" WHERE tag = 'drink'`,
	`FROM 'input/filtered_product_data.csv' SELECT product_name`,
	`SELECT store_id FROM 'stores.csv' WHERE parking LIKE '%"available": true%'`,
	`SELECT * FROM events WHERE description LIKE '%DELETE%'`,
	`SELECT * FROM events WHERE description LIKE '%DROP TABLE%'`,
	`SELECT * FROM events WHERE event_name ILIKE '%select%' OR description NOT LIKE '%;%'`,
	`SELECT 'It''s; DROP TABLE events; --' AS s, "select" FROM (SELECT 1 AS "select")`,
	`SELECT event_name AS "select", description AS "from", cost AS "delete" FROM events`,
	`WITH free AS (SELECT * FROM events WHERE cost LIKE '%"is_free": true%') SELECT count(*) FROM free`,
	`WITH s AS MATERIALIZED (SELECT * FROM stores), p AS (SELECT * FROM products WHERE store_id IN (SELECT store_id FROM s)) SELECT * FROM p`,
	`WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t`,
	`WITH events AS (SELECT 'shadow' AS event_name) SELECT * FROM events`,
	`SELECT store_name FROM stores UNION SELECT store_name FROM products ORDER BY 1`,
	`SELECT store_id FROM stores EXCEPT SELECT store_id FROM products`,
	`VALUES (1, 'a'), (2, 'b')`,
	`SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(n, s) WHERE n > 1`,
	`SELECT store_id, product_name, row_number() OVER (PARTITION BY store_id ORDER BY product_name) AS rn FROM products`,
	`SELECT store_id, product_name FROM products QUALIFY row_number() OVER (PARTITION BY store_id ORDER BY product_name) = 1`,
	`SELECT event_name, lag(event_name) OVER w FROM events WINDOW w AS (ORDER BY date_time)`,
	`SELECT event_name FROM events ORDER BY event_name LIMIT 2 OFFSET 1`,
	`SELECT s.store_name, p.product_name, e.event_name FROM stores s JOIN products p ON s.store_id = p.store_id LEFT JOIN events e ON e.event_name = s.store_name`,
	`SELECT store_name FROM stores WHERE is_open(store_id, TIMESTAMP '2025-10-03 12:00')`,
	`SELECT tokyo_now(), CAST(tokyo_now() AS DATE)`,
	`SELECT * FROM store_hours WHERE day = 'friday' AND opens <= TIME '12:00'`,
	`SELECT * FROM store_closures`,
	`SELECT event_name, is_free FROM events_typed WHERE registration_required`,
	`SELECT store_name FROM stores_typed WHERE parking_available`,
	`SELECT product_name, price_yen FROM products_typed ORDER BY price_yen DESC NULLS LAST`,
	`SELECT [1, 2, 3] AS l, {'a': 1, 'b': 'x'} AS s, MAP {'k': 1} AS m, json_extract_string(cost, '$.is_free') AS j FROM events`,
	`SELECT list_transform([1, 2], x -> x * 2), list_filter([1, 2, 3], lambda x: x > 1), [x + 1 FOR x IN [1, 2] IF x > 1]`,
	`SELECT unnest(['a', 'b']) AS x`,
	`SELECT * FROM range(5) r(i) WHERE i % 2 = 0`,
	`SELECT * FROM generate_series(1, 3) g(i), unnest([10, 20]) u(v)`,
	`SELECT key, value FROM json_each('{"a": 1, "b": 2}')`,
	`SELECT extract(year FROM DATE '2025-10-03'), date_trunc('month', TIMESTAMP '2025-10-03 12:00'), current_date, current_timestamp`,
	`SELECT strftime(TIMESTAMP '2025-10-03 12:00', '%Y-%m-%d'), TIMESTAMP '2025-10-03 12:00' AT TIME ZONE 'UTC', INTERVAL 1 DAY + DATE '2025-10-03'`,
	`SELECT upper(event_name), length(description), regexp_replace(description, '[0-9]+', '#', 'g'), trim('  x  '), substring('hello' FROM 2 FOR 3), position('l' IN 'hello') FROM events`,
	`SELECT store_id, count(*) AS n, string_agg(product_name, ', ' ORDER BY product_name) FROM products GROUP BY ALL ORDER BY n DESC`,
	`SELECT DISTINCT ON (store_id) store_id, product_name FROM products ORDER BY store_id, product_name`,
	`SELECT e.event_name FROM events e WHERE EXISTS (SELECT 1 FROM stores s WHERE s.store_name = e.event_name)`,
	`FROM events PIVOT (count(*) FOR registration_required IN ('True', 'False'))`,
	`FROM events UNPIVOT (val FOR col IN (cost, registration_required))`,
	`UNPIVOT events ON cost, registration_required INTO NAME col VALUE val`,
	`PIVOT events ON registration_required IN ('True', 'False') USING count(*) GROUP BY date_time`,
	`SELECT list_aggr([1, 2, 3], 'sum'), list_sum([1, 2]), split_part('a-b', '-', 2), 'abc' LIKE 'a%' ESCAPE '\', 'x' SIMILAR TO 'x', 'x' GLOB 'x*'`,
	`SELECT * EXCLUDE (description) FROM events`,
	`SELECT COLUMNS('event.*') FROM events`,
	`SELECT * FROM events USING SAMPLE 50%`,
	`SELECT TRY_CAST(cost AS JSON) ->> 'is_free' AS free, CAST('[1]' AS JSON) AS j, CAST('1' AS DECIMAL(10, 2)), CAST([1] AS VARCHAR[]) FROM events`,
	`SELECT coalesce(NULL, 1), nullif(1, 1), CASE WHEN 1 = 1 THEN 'y' ELSE 'n' END, 1 BETWEEN 0 AND 2, 'a' IN ('a', 'b'), 2 > ALL (SELECT 1)`,
	`SELECT 1;`,
	`SELECT 1;;  ;`,
	"SELECT 1 -- trailing comment",
	"SELECT event_name FROM events; -- a comment after the semicolon",
	"SELECT event_name FROM events /* block comment */",
	"\n\t  SELECT event_name\n  FROM events\n  WHERE cost LIKE '%true%'  \n",
}

func TestHostileCorpusIsRefused(t *testing.T) {
	if len(hostileCorpus) < 70 {
		t.Fatalf("hostile corpus has %d cases, want at least 70", len(hostileCorpus))
	}
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	for _, tc := range hostileCorpus {
		got, err := Check(context.Background(), conn, tc.sql, p, 10)
		var rej *Rejection
		if !errors.As(err, &rej) {
			t.Errorf("Check(%q) = %q, %v; want a *Rejection", tc.sql, got, err)
			continue
		}
		if got != "" {
			t.Errorf("Check(%q) returned text %q with a rejection", tc.sql, got)
		}
		if tc.want != "" && !strings.Contains(strings.ToLower(rej.Error()), strings.ToLower(tc.want)) {
			t.Errorf("Check(%q) message %q does not mention %q", tc.sql, rej.Error(), tc.want)
		}
	}
}

func TestLegitCorpusPassesAndRuns(t *testing.T) {
	if len(legitCorpus) < 25 {
		t.Fatalf("legit corpus has %d queries, want at least 25", len(legitCorpus))
	}
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	for _, q := range legitCorpus {
		final, err := Check(context.Background(), conn, q, p, 10)
		if err != nil {
			t.Errorf("Check(%q): %v", q, err)
			continue
		}
		if !strings.HasPrefix(final, "SELECT * FROM (\n") || !strings.HasSuffix(final, "\n) AS ctool_q LIMIT 11") {
			t.Errorf("Check(%q) = %q, not the row-limit wrapper", q, final)
		}
		if _, err := guardCountRows(conn, final); err != nil {
			t.Errorf("running %q (from %q): %v", final, q, err)
		}
	}
}

// TestSeedQueriesReturnRows checks the seed-style queries against the stand-in data, so a guard that
// mangled them (e.g. dropped a WHERE) would show.
func TestSeedQueriesReturnRows(t *testing.T) {
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	for _, tc := range []struct {
		sql  string
		rows int
	}{
		{`FROM 'events.csv' WHERE cost LIKE '%"is_free": true%'`, 2},
		{`SELECT event_name FROM events WHERE registration_required = 'True'`, 1},
		{`SELECT store_name FROM stores WHERE store_name LIKE '%ヒルズ%'`, 1},
		{`SELECT product_name FROM products WHERE product_description LIKE '%1,000円%'`, 1},
		{`SELECT * FROM events WHERE description LIKE '%DELETE%'`, 1},
		{`SELECT store_name FROM stores WHERE is_open(store_id, TIMESTAMP '2025-10-03 12:00')`, 3},
		{`SELECT store_name FROM stores WHERE is_open(store_id, TIMESTAMP '2025-12-31 12:00')`, 0},
		{`WITH events AS (SELECT 'shadow' AS event_name) SELECT * FROM events`, 1},
	} {
		final, err := Check(context.Background(), conn, tc.sql, p, 10)
		if err != nil {
			t.Errorf("Check(%q): %v", tc.sql, err)
			continue
		}
		n, err := guardCountRows(conn, final)
		if err != nil {
			t.Errorf("running %q: %v", final, err)
		} else if n != tc.rows {
			t.Errorf("%q returned %d rows, want %d", tc.sql, n, tc.rows)
		}
	}
}

// TestAllowedShadowingReadsTheCTE runs queries that name a CTE like the hidden table in every place a
// relation can appear: DuckDB must bind each to the CTE, as the guard assumed, never to the table.
func TestAllowedShadowingReadsTheCTE(t *testing.T) {
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	const cte = "WITH secret_profiles AS (SELECT 'cte' AS profile_id) "
	for _, q := range []string{
		cte + "SELECT * FROM secret_profiles",
		cte + `SELECT * FROM "SECRET_PROFILES"`,
		cte + "SELECT (SELECT max(profile_id) FROM secret_profiles)",
		cte + "SELECT * FROM (SELECT 1) t, LATERAL (SELECT profile_id FROM secret_profiles)",
		cte + "SELECT * FROM unnest((SELECT list(profile_id) FROM secret_profiles))",
		cte + "SELECT * FROM json_each((SELECT to_json(list(profile_id)) FROM secret_profiles))",
		cte + "SELECT * FROM (WITH x AS (SELECT * FROM secret_profiles) SELECT * FROM x)",
		cte + "SELECT profile_id FROM secret_profiles UNION ALL SELECT profile_id FROM secret_profiles",
		cte + "SELECT * FROM events WHERE event_name IN (SELECT profile_id FROM secret_profiles) OR true",
		cte + "SELECT upper(profile_id) FROM secret_profiles LIMIT (SELECT count(*) FROM secret_profiles)",
		"WITH a AS (SELECT 'cte' AS profile_id), secret_profiles AS (SELECT * FROM a) SELECT * FROM secret_profiles",
		"WITH RECURSIVE secret_profiles(profile_id) AS (SELECT 'cte' UNION ALL SELECT profile_id || 'x' FROM secret_profiles WHERE length(profile_id) < 5) SELECT * FROM secret_profiles",
		"WITH RECURSIVE secret_profiles(profile_id) AS (SELECT 'cte' UNION ALL SELECT s.profile_id || 'y' FROM (SELECT * FROM secret_profiles) s WHERE length(s.profile_id) < 5) SELECT * FROM secret_profiles",
	} {
		final, err := Check(context.Background(), conn, q, p, 10)
		if err != nil {
			t.Errorf("Check(%q): %v", q, err)
			continue
		}
		rows, err := conn.QueryContext(context.Background(), final)
		if err != nil {
			t.Errorf("running %q: %v", final, err)
			continue
		}
		cols, _ := rows.Columns()
		n := 0
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if s, ok := v.(string); ok && strings.Contains(s, "p-secret") {
					t.Errorf("%q read the hidden table: %q", q, s)
				}
			}
			n++
		}
		rows.Close()
		if n == 0 {
			t.Errorf("%q returned no rows; want the CTE's", q)
		}
	}
}

func guardCountRows(conn *sql.Conn, q string) (int, error) {
	rows, err := conn.QueryContext(context.Background(), q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

func guardFirstInt(conn *sql.Conn, q string) (int, error) {
	var v int
	err := conn.QueryRowContext(context.Background(), q).Scan(&v)
	return v, err
}

func TestRowCap(t *testing.T) {
	conn := openGuardStandIn(t)
	p := guardTestPolicy("fifty")
	for _, tc := range []struct {
		sql  string
		rows int
	}{
		{"SELECT * FROM fifty", 11},
		{"SELECT * FROM fifty LIMIT 5", 5},
		{"SELECT * FROM fifty LIMIT 100", 11},
		{"SELECT * FROM fifty LIMIT 10%", 5},
		{"SELECT * FROM fifty ORDER BY i OFFSET 45", 5},
		{"SELECT * FROM fifty LIMIT (SELECT 100)", 11},
		{"SELECT * FROM fifty OFFSET 1000000000000", 0},
		{"SELECT * FROM fifty LIMIT 1000000000000000000", 11},
		{"SELECT * FROM fifty -- trailing comment", 11},
		{"SELECT * FROM fifty; -- comment after the semicolon", 11},
		{"SELECT * FROM fifty LIMIT 3 -- trailing comment", 3},
		{"SELECT * FROM fifty UNION ALL SELECT * FROM fifty", 11},
	} {
		final, err := Check(context.Background(), conn, tc.sql, p, 10)
		if err != nil {
			t.Errorf("Check(%q): %v", tc.sql, err)
			continue
		}
		n, err := guardCountRows(conn, final)
		if err != nil {
			t.Errorf("running %q: %v", final, err)
		} else if n != tc.rows {
			t.Errorf("%q returned %d rows, want %d (text %q)", tc.sql, n, tc.rows, final)
		}
	}

	// ORDER BY inside the wrapper is kept: the first row is the expected one.
	final, err := Check(context.Background(), conn, "SELECT i FROM fifty ORDER BY i DESC", p, 10)
	if err != nil {
		t.Fatal(err)
	}
	if first, err := guardFirstInt(conn, final); err != nil || first != 49 {
		t.Errorf("first row of %q = %d, %v; want 49", final, first, err)
	}
	final, err = Check(context.Background(), conn, "SELECT i FROM fifty ORDER BY i OFFSET 45", p, 10)
	if err != nil {
		t.Fatal(err)
	}
	if first, err := guardFirstInt(conn, final); err != nil || first != 45 {
		t.Errorf("first row of %q = %d, %v; want 45", final, first, err)
	}
}

func TestWrapperText(t *testing.T) {
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	// The agent's own text is kept when it wraps cleanly.
	got, err := Check(context.Background(), conn, "SELECT event_name FROM events -- note\n;  \n", p, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := "SELECT * FROM (\nSELECT event_name FROM events -- note\n) AS ctool_q LIMIT 4"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A comment after the ';' cannot be wrapped as is; DuckDB's canonical text is used instead.
	got, err = Check(context.Background(), conn, "SELECT event_name FROM events; -- note", p, 3)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "note") || !strings.HasPrefix(got, "SELECT * FROM (\n") || !strings.HasSuffix(got, "\n) AS ctool_q LIMIT 4") {
		t.Errorf("got %q, want the canonical text in the wrapper", got)
	}
}

// TestVerifyWrappedRejectsNearMisses: the re-check accepts only the exact wrapper around the checked node.
func TestVerifyWrappedRejectsNearMisses(t *testing.T) {
	conn := openGuardStandIn(t)
	ctx := context.Background()
	res, err := serializeText(ctx, conn, "SELECT event_name FROM events")
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := decodeAST(res.Statements[0])
	if err != nil {
		t.Fatal(err)
	}
	checked := stripLocations(stmt.(astObj)["node"])
	if ok, err := verifyWrapped(ctx, conn, "SELECT * FROM (\n  SELECT  event_name\nFROM events\n) AS ctool_q LIMIT 11", checked, 10); !ok || err != nil {
		t.Errorf("exact wrapper refused: %v %v", ok, err)
	}
	for _, final := range []string{
		"SELECT * FROM (\nSELECT event_name FROM stores\n) AS ctool_q LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q LIMIT 12",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q LIMIT 11 OFFSET 1",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q(x) LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS other LIMIT 11",
		"SELECT *, 1 FROM (\nSELECT event_name FROM events\n) AS ctool_q LIMIT 11",
		"SELECT * EXCLUDE (event_name) FROM (\nSELECT event_name FROM events\n) AS ctool_q LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q, secret_profiles LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q WHERE true LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q ORDER BY 1 LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q UNION ALL SELECT * FROM secret_profiles LIMIT 11",
		"WITH x AS (SELECT 1) SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q LIMIT 11; SELECT 1",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q USING SAMPLE 5 LIMIT 11",
		"SELECT * FROM (\nSELECT event_name FROM events\n) AS ctool_q LIMIT 11 -- fine\n; DROP TABLE events",
	} {
		if ok, err := verifyWrapped(ctx, conn, final, checked, 10); ok || err != nil {
			t.Errorf("verifyWrapped accepted %q (%v)", final, err)
		}
	}
}

func TestMessages(t *testing.T) {
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	check := func(q string) string {
		t.Helper()
		_, err := Check(context.Background(), conn, q, p, 10)
		var rej *Rejection
		if !errors.As(err, &rej) {
			t.Fatalf("Check(%q) = %v, want a *Rejection", q, err)
		}
		return rej.Error()
	}
	if got, want := check("DELETE FROM events"), "refused: DELETE. ctool query runs exactly one read-only SELECT statement (WITH, UNION, VALUES, ORDER BY, window functions and QUALIFY are fine)."; got != want {
		t.Errorf("DELETE message = %q, want %q", got, want)
	}
	names := append([]string(nil), guardPublicRelations...)
	sort.Strings(names)
	if got, want := check("SELECT * FROM secret_profiles"), "Tables you may use: "+strings.Join(names, ", ")+"."; !strings.HasSuffix(got, want) {
		t.Errorf("unknown-table message = %q, want it to end with %q", got, want)
	}
	if got := check("SELECT current_setting('memory_limit')"); !strings.Contains(got, "refused: function current_setting().") {
		t.Errorf("function message = %q", got)
	}
	if got := check("SELECT * FROM read_csv('x.csv')"); !strings.Contains(got, "range(), generate_series(), unnest(), json_each(), json_tree()") {
		t.Errorf("table-function message = %q does not say what is allowed", got)
	}
	if got := check("SELEC 1"); !strings.Contains(got, `syntax error at or near "SELEC"`) {
		t.Errorf("syntax message = %q does not carry DuckDB's message", got)
	}
}

// TestFunctionListsCoverDuckDB fails when DuckDB has a function that nobody reviewed, and when the
// allow-list names one DuckDB does not have.
func TestFunctionListsCoverDuckDB(t *testing.T) {
	conn := openGuardStandIn(t)
	rows, err := conn.QueryContext(context.Background(),
		`SELECT DISTINCT function_name, function_type, schema_name FROM duckdb_functions() WHERE schema_name IN ('main', 'pg_catalog') AND database_name = 'system'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	exists := map[string]bool{}
	for rows.Next() {
		var name, typ, schema string
		if err := rows.Scan(&name, &typ, &schema); err != nil {
			t.Fatal(err)
		}
		l := asciiLower(name)
		if schema == "main" && (typ == "scalar" || typ == "aggregate" || typ == "macro") {
			exists[l] = true
		}
		denied := reviewedDeniedFunctions[l]
		for _, pre := range deniedFunctionPrefixes {
			denied = denied || strings.HasPrefix(l, pre)
		}
		if !allowedFunctions[l] && !denied {
			t.Errorf("DuckDB function %s (%s, %s) is on neither list: review it and add it to allowedFunctions or reviewedDeniedFunctions", name, typ, schema)
		}
		if allowedFunctions[l] && denied {
			t.Errorf("function %s is both allowed and denied", name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for name := range allowedFunctions {
		if !exists[name] && name != "unnest" && name != "unlist" {
			t.Errorf("allowed function %s is not a scalar, aggregate or macro of DuckDB", name)
		}
	}
	for name := range parserQualifiedFunctions {
		if !allowedFunctions[name] {
			t.Errorf("parser-qualified function %s is not allowed", name)
		}
	}
}

// TestAllowedFunctionsPass calls every allowed named function once: the guard must not refuse any.
func TestAllowedFunctionsPass(t *testing.T) {
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	for name := range allowedFunctions {
		if !guardIsIdentifier(name) {
			continue // operators such as ~~ are reached through their syntax
		}
		// nullif and position have grammar of their own: try the argument forms until one parses.
		var q string
		var err error
		for _, args := range []string{"(1)", "(1, 2)", "('a' IN 'b')"} {
			q = "SELECT " + name + args
			if _, err = Check(context.Background(), conn, q, p, 10); err == nil || !strings.Contains(err.Error(), "syntax error") {
				break
			}
		}
		if err != nil {
			t.Errorf("Check(%q): %v", q, err)
		}
	}
}

func guardIsIdentifier(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

func TestDeniedFunctionsAreRefused(t *testing.T) {
	conn := openGuardStandIn(t)
	p := guardTestPolicy()
	for name := range reviewedDeniedFunctions {
		if p.Macros[name] {
			continue
		}
		q := "SELECT " + `"` + name + `"` + "(1)"
		_, err := Check(context.Background(), conn, q, p, 10)
		var rej *Rejection
		if !errors.As(err, &rej) || !strings.Contains(rej.Error(), name+"()") {
			t.Errorf("Check(%q) = %v, want a refusal naming %s()", q, err, name)
		}
	}
}

func TestDuckDBFailureIsPlainError(t *testing.T) {
	conn := openGuardStandIn(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Check(ctx, conn, "SELECT 1", guardTestPolicy(), 10)
	var rej *Rejection
	if err == nil || errors.As(err, &rej) {
		t.Errorf("Check with a cancelled context = %v, want a plain error", err)
	}
	if _, err := Check(context.Background(), conn, "SELECT 1", guardTestPolicy(), 0); err == nil || errors.As(err, &rej) {
		t.Errorf("Check with rowCap 0 = %v, want a plain error", err)
	}
}

func TestFirstKeyword(t *testing.T) {
	for in, want := range map[string]string{
		"DELETE FROM x":                    "DELETE",
		"  -- c\n/* a /* b */ c */ ((drop": "DROP",
		"-- only":                          "",
		"/* unterminated":                  "",
		"with a as (select 1) delete":      "WITH",
		"(((  select":                      "SELECT",
	} {
		if got := firstKeyword(in); got != want {
			t.Errorf("firstKeyword(%q) = %q, want %q", in, got, want)
		}
	}
}
