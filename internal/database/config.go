package database

import (
	"net/url"
	"strconv"
	"strings"
)

// smallBuild is the file size under which a query is planned for small tables:
//
//   - Late materialization is off. For ORDER BY ... LIMIT, DuckDB first finds the top rows' row ids
//     and then joins them back to the table: on a large table that spares reading the wide columns of
//     every row (a quarter of the time on 1,000,000 products), on a small one the extra join is most
//     of the query (bench/results/call-cost.md).
//   - Only the optimizers in keptOptimizers run. The others cost a few percent of a warm query's CPU
//     on the sample build and save nothing on tables of a few thousand rows (BenchmarkSmallBuildOptimizers;
//     bench/results/call-cost.md, shapes-and-optimizers.md).
//
// The sample build and one of 1,000 products are under 6 MB; 100,000 products make about 12 MB, where
// late materialization already pays (bench/results/peer-scale-100000.md: the price range ordered by
// price took 7.9 times plain DuckDB's time below a 16 MB bound).
const smallBuild = 8 << 20

// keptOptimizers are the optimizers a small build keeps. Filter pushdown and join ordering turn a
// join written as FROM a, b WHERE a.x = b.y into a hash join (without them it is a cross product,
// quadratic in the rows); top_n keeps ORDER BY ... LIMIT from sorting every row. The others kept
// decide how an expression, a CTE or a subquery is run at all: without them, hostile queries of the
// engine corpus (guard/guardtest/hostile.txtar) ran out of memory or crashed a worker where they had
// timed out.
var keptOptimizers = []string{
	"filter_pushdown", "join_order", "top_n",
	"expression_rewriter", "cte_inlining", "materialized_cte", "cte_filter_pusher", "common_subplan",
	"deliminator", "unnest_rewriter",
}

// smallBuildDisabledOptimizers is every other optimizer of DuckDB 1.5 (duckdb_optimizers(); a test
// holds the two lists to it, so that an upgrade that adds one shows): each refines a plan that is
// already right, which a table of a few thousand rows does not repay.
var smallBuildDisabledOptimizers = []string{
	"filter_pullup", "empty_result_pullup", "regex_range", "in_clause", "unused_columns",
	"statistics_propagation", "common_subexpressions", "common_aggregate", "column_lifetime",
	"limit_pushdown", "row_group_pruner", "top_n_window_elimination", "build_side_probe_side",
	"compressed_materialization", "duplicate_groups", "reorder_filter", "sampling_pushdown",
	"join_filter_pushdown", "extension", "sum_rewriter", "late_materialization", "join_elimination",
	"window_self_join",
}

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
		q.Set("disabled_optimizers", strings.Join(smallBuildDisabledOptimizers, ","))
	}
	return "?" + q.Encode()
}
