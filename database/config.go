package database

import (
	"net/url"
	"strconv"
)

// smallBuild is the file size under which late materialization is off. For ORDER BY ... LIMIT, DuckDB
// first finds the top rows' row ids and then joins them back to the table: on a large table that
// spares reading the wide columns of every row (1,000,000 products: 37 ms with it, 145 ms without),
// on a small one the extra join is most of the query (the sample build's events: 1.10 ms of CPU
// with it, 0.62 ms without).
const smallBuild = 16 << 20

// dsn is the in-memory instance's configuration, given when DuckDB creates it: each setting here
// costs nothing at open, where a SET statement is a query of its own (parsed, planned and run). Only
// settings DuckDB knows before its extensions load can go here (TimeZone is ICU's: it stays a SET);
// the lock-down that must follow the ATTACH stays in lockdown.
func (o options) dsn(fileSize int64) string {
	q := url.Values{}
	// Nothing is installed or loaded on demand: the built-in extensions are all a query may use.
	q.Set("autoinstall_known_extensions", "false")
	q.Set("autoload_known_extensions", "false")
	// No temporary files: a query that does not fit in memory_limit fails instead of spilling.
	q.Set("temp_directory", "")
	q.Set("memory_limit", memoryLimit)
	if o.threads > 0 {
		q.Set("threads", strconv.Itoa(o.threads))
	}
	if fileSize < smallBuild {
		q.Set("late_materialization_max_rows", "0")
	}
	return "?" + q.Encode()
}
