// The compared queries.

package main

// query is one of the compared queries: SQL with a %d where a literal varies, so that no two calls send
// the same text; tool is ctool's tool that answers it (DBHub answers every one with execute_sql).
// same is what the sides must agree on before timing: "" the number of rows, "*" every row (in any
// order), or a column's values (in any order), when which rows a LIMIT keeps among ties may differ.
type query struct {
	name string
	tool string
	sql  string
	same string
}

// queries are the sample run's, over the three tables of the build.
var queries = []query{
	{"stores", "search_stores", "SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'", ""},
	{"events (ORDER BY)", "search_events", "SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> 'X-%d' ORDER BY start_date", ""},
	{"products", "search_products", "SELECT product_name, product_description FROM products WHERE product_description LIKE '%%1,000円%%' AND product_name <> 'X-%d'", ""},
}

// scaleQueries are what a visitor's agent asks of a big catalogue, written as an agent writes them.
// Each returns at most ten rows, so neither side's row cap (ctool's 10, DBHub's max_rows = 10) changes
// the work, and plain DuckDB runs the very same text. The varying literal touches nothing an index
// could serve: a HAVING bound no group comes near for the label count (a SQLite user's index on tag
// then still answers it alone), a product_name that no row has where the rows are read anyway.
var scaleQueries = []query{
	{"label count", "search_products",
		"SELECT tag, count(*) AS n FROM products GROUP BY tag HAVING count(*) > -%d ORDER BY n DESC", "*"},
	{"price range, by price", "search_products",
		"SELECT store_name, product_name, price_yen FROM products_typed WHERE price_yen BETWEEN 1000 AND 2000 AND product_name <> 'X-%d' ORDER BY price_yen LIMIT 10", "price_yen"},
	{"name or description search, LIMIT 10", "search_products",
		"SELECT store_name, product_name, product_description FROM products WHERE (product_name LIKE '%%抹茶%%' OR product_description LIKE '%%抹茶%%') AND product_name <> 'X-%d' LIMIT 10", ""},
	{"substring count with a tag", "search_products",
		"SELECT count(*) AS n FROM products WHERE tag = 'スイーツ' AND product_description LIKE '%%柚子%%' AND product_name <> 'X-%d'", "*"},
}
