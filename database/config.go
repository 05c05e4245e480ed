package database

import (
	"net/url"
	"strconv"
)

// dsn is the in-memory instance's configuration, given when DuckDB creates it: each setting here
// costs nothing at open, where a SET statement is a query of its own (parsed, planned and run). Only
// settings DuckDB knows before its extensions load can go here (TimeZone is ICU's: it stays a SET);
// the lock-down that must follow the ATTACH stays in lockdown.
func (o options) dsn() string {
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
	return "?" + q.Encode()
}
