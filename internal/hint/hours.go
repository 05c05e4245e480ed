package hint

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
)

// UnknownHours: stores whose hours could not be extracted have no store_hours rows, so to a query that
// filters stores by store_hours (or is_open, which reads it) they look closed every day. When at least
// one of them would pass the query's other conditions, the answer's note names them (at most maxNamed,
// then a count), so "closed on Mondays" is not read as a fact about them; when none would, there is no
// note. A query whose rows are store_hours' own (its FROM reads nothing else) lists hours, never a
// store of unknown hours, and has no note either.
const UnknownHours Kind = "unknown-hours"

// maxNamed is how many stores of unknown hours a note names.
const maxNamed = 5

// firstUnknown names the first maxNamed stores of unknown hours, each with its opening_hours cell as
// written (at most 40 characters): where the rule could not read it, the agent can.
var firstUnknown = guard.Format("SELECT CASE WHEN opening_hours IS NULL THEN store_name "+
	"ELSE store_name || ' (opening_hours: ' || left(opening_hours, 40) || CASE WHEN length(opening_hours) > 40 THEN '…' ELSE '' END || ')' END "+
	"FROM stores_typed WHERE NOT hours_known ORDER BY store_id LIMIT %s", guard.Int(maxNamed))

// The relation the note is about, and the one that lists every store with hours_known.
const (
	hoursRelation  = "store_hours"
	storesRelation = "stores_typed"
	hoursMacro     = schema.MacroIsOpen
)

// countUnknown counts the stores of unknown hours.
const countUnknown = "SELECT count(*) FROM stores_typed WHERE NOT hours_known"

// The notes are the remarks on q's answer, with rows or without: an offer tested by its free text
// alone (OfferNotes, offers.go), and the stores of unknown hours that would pass its other conditions,
// for a query that reads store_hours or is_open (HoursNotes). Given the same *Query they share one
// parse. The offer notes depend on the query's column references alone, never its literals, so a
// caller may keep them for a query shape; the hours notes count the query's own rows, on every call.

// HoursNotes is q's UnknownHours note, if it has one.
func HoursNotes(ctx context.Context, conn *database.Conn, cache *Cache, q *Query) []Hint {
	// The text test only spares other queries the work: the statement decides.
	lower := strings.ToLower(q.Text)
	if !strings.Contains(lower, hoursRelation) && !strings.Contains(lower, hoursMacro) {
		return nil
	}
	row, err := cache.Row(ctx, conn, guard.Const(countUnknown), 1)
	if err != nil {
		return nil // a build from before hours_known
	}
	if n, err := strconv.Atoi(row[0].String); err != nil || n == 0 {
		return nil
	}
	// Not kept in the build's cache: it is one query's, and would crowd out what every call reads.
	if text := unknownHoursNote(ctx, conn, cache, q); text != "" {
		return []Hint{{Kind: UnknownHours, Text: text}}
	}
	return nil
}

// unknownHoursNote is the note for q, "" for none.
func unknownHoursNote(ctx context.Context, conn *database.Conn, cache *Cache, q *Query) string {
	stmt, ok := q.statement(ctx, conn)
	if !ok {
		return ""
	}
	if !readsHours(querytree.Whole(stmt)) {
		return "" // the words were in a string or a comment
	}
	if top, ok := querytree.TopSelect(stmt); ok && rowsAreHours(top) {
		return ""
	}
	if passing, ok := passingStores(ctx, conn, cache, stmt, guard.ForDataset(q.Dataset)); ok {
		return passing.text(true)
	}
	// The query's other conditions could not be run without its hours: every store of unknown hours is
	// named, as it may be one the query would have found.
	all, _ := unknownStores(ctx, conn, cache)
	return all.text(false)
}

// unknownStores are all the stores of unknown hours, from the build's cache.
func unknownStores(ctx context.Context, conn *database.Conn, cache *Cache) (storeList, bool) {
	names, err := cache.Values(ctx, conn, firstUnknown)
	if err != nil {
		return storeList{}, false
	}
	row, err := cache.Row(ctx, conn, guard.Const(countUnknown), 1)
	if err != nil {
		return storeList{}, false
	}
	n, err := strconv.Atoi(row[0].String)
	return storeList{n: n, names: names}, err == nil
}

// storeList is how many stores of unknown hours a note is about, and the first names.
type storeList struct {
	n     int
	names []string
}

// text is the note on the stores; passing says the query's other conditions let them through.
func (s storeList) text(passing bool) string {
	if s.n == 0 {
		return ""
	}
	names := quoteList(s.names)
	if s.n > len(s.names) {
		names += fmt.Sprintf(" and %d more", s.n-len(s.names))
	}
	them := textout.Plural(s.n, "it has", "they have")
	them += " no store_hours rows and is_open is false for " + textout.Plural(s.n, "it", "them") + ", which does not mean closed"
	if passing {
		return fmt.Sprintf("%d %s of unknown hours (stores_typed.hours_known = false) %s the query's other conditions: %s; %s",
			s.n, textout.Plural(s.n, "store", "stores"), textout.Plural(s.n, "passes", "pass"), names, them)
	}
	return fmt.Sprintf("%d %s unknown hours (stores_typed.hours_known = false), and the query's other conditions could not be checked against them: %s; %s",
		s.n, textout.Plural(s.n, "store has", "stores have"), names, them)
}

// noteTemplate lists the stores of unknown hours (named as firstUnknown names them) for which a row of the query's FROM passes its
// other conditions (the first maxNamed, and how many): With puts the query's FROM, its WITH clause and
// those conditions in the EXISTS, with one ctool_s.store_id = ctool_u.store_id for each stores
// relation the FROM reads. It has no LIMIT of its own: Check's row cap, maxNamed, keeps the first
// ones, and a LIMIT within it would cost a second parse (guard/limit.go).
const noteTemplate = "SELECT CASE WHEN ctool_u.opening_hours IS NULL THEN ctool_u.store_name " +
	"ELSE ctool_u.store_name || ' (opening_hours: ' || left(ctool_u.opening_hours, 40) || " +
	"CASE WHEN length(ctool_u.opening_hours) > 40 THEN '…' ELSE '' END || ')' END AS store_name, " +
	"count(*) OVER () AS n FROM stores_typed AS ctool_u " +
	"WHERE NOT ctool_u.hours_known AND EXISTS (SELECT 1 WHERE ctool_s.store_id = ctool_u.store_id) " +
	"ORDER BY ctool_u.store_id"

// passingStores runs the query's FROM and WHERE without what reads hours, for the stores of unknown
// hours: ok is false when that cannot be written or run. It drops from the WHERE clause every AND
// part that reads store_hours (its own columns, or a table of it) or is_open, and from the FROM
// clause every store_hours table it joins; a FROM of store_hours alone reads stores_typed in its
// place, where each store has a row. Each drop lets more rows through, never fewer, so a store that
// would pass the query's other conditions is always found.
func passingStores(ctx context.Context, conn *database.Conn, cache *Cache, stmt map[string]any, policy guard.Policy) (storeList, bool) {
	top, ok := querytree.TopSelect(stmt)
	if !ok {
		return storeList{}, false
	}
	whole := querytree.Whole(stmt)
	_, ctes := querytree.Selects(stmt)
	if ctes[hoursRelation] || ctes[storesRelation] || usesName(whole, "ctool_u") || usesName(whole, "ctool_s") {
		return storeList{}, false // names the statement below gives a meaning of its own
	}
	stores := func(t querytree.Table) bool { return isStoresTable(t) && !ctes[strings.ToLower(t.Name)] }
	hoursTables := map[string]bool{}
	from, ok := top.From().Without(func(t querytree.Table) bool {
		if isHoursTable(t) {
			hoursTables[strings.ToLower(t.Qualifier())] = true
			return true
		}
		return false
	})
	if !ok {
		hoursTables = map[string]bool{}
		from = top.From().Renamed(func(t querytree.Table) string {
			if isHoursTable(t) {
				return storesRelation
			}
			return ""
		})
	}
	ctesReadHours := readsHours(top.WithClause())
	if readsHours(from) || ctesReadHours && readsCTE(from, top.CTEs()) {
		return storeList{}, false // the FROM keeps rows of store_hours
	}
	var kept []querytree.Expr
	for _, part := range top.AndParts() {
		if readsHours(part) || namesTable(part, hoursTables) || ctesReadHours && readsCTE(part, top.CTEs()) {
			continue
		}
		kept = append(kept, part)
	}
	if t, one := from.Table(); one && stores(t) && len(kept) == 0 {
		return unknownStores(ctx, conn, cache) // every store has a row there, and nothing else is asked of it
	}
	tmpl, ok := querytree.Template(ctx, conn, noteTemplate)
	if !ok {
		return storeList{}, false
	}
	outer := tmpl.AndParts()
	if len(outer) != 2 {
		return storeList{}, false
	}
	inner, ok := outer[1].Subquery()
	if !ok {
		return storeList{}, false
	}
	var same []querytree.Expr
	for _, t := range from.Tables() {
		if stores(t) {
			same = append(same, inner.Where().Renamed("ctool_s", t.Qualifier()))
		}
	}
	if len(same) == 0 {
		return storeList{}, false // no relation of stores to tell them by
	}
	inner = inner.With(querytree.Pieces{From: from, CTEs: top, Where: querytree.And(append(kept, querytree.Or(same...))...)})
	texts, ok := querytree.Deparse(ctx, conn, tmpl.With(querytree.Pieces{Where: querytree.And(outer[0], outer[1].WithSubquery(inner))}))
	if !ok {
		return storeList{}, false
	}
	checked, err := guard.Check(ctx, conn, texts[0], policy, maxNamed)
	if err != nil {
		return storeList{}, false
	}
	var list storeList
	execErr, readErr := conn.Run(ctx, checked, func(rows *database.Stream) error {
		vals := make([]any, 2)
		for len(list.names) < checked.Rows() { // the statement fetches one row past its LIMIT
			if more, err := rows.Next(vals); err != nil || !more {
				return err
			}
			name, _ := vals[0].(string)
			n, ok := vals[1].(int64)
			if !ok {
				return fmt.Errorf("count is %T", vals[1])
			}
			list.names, list.n = append(list.names, name), int(n)
		}
		return nil
	})
	return list, execErr == nil && readErr == nil
}

// hoursColumns are the columns of store_hours that stores_typed does not have, lower-cased.
var hoursColumns = sync.OnceValue(func() map[string]bool {
	hours, _ := schema.RelationNamed(hoursRelation)
	stores, _ := schema.RelationNamed(storesRelation)
	has := map[string]bool{}
	for _, c := range stores.Columns {
		has[strings.ToLower(c.Name)] = true
	}
	out := map[string]bool{}
	for _, c := range hours.Columns {
		if !has[strings.ToLower(c.Name)] {
			out[strings.ToLower(c.Name)] = true
		}
	}
	return out
})

func isHoursTable(t querytree.Table) bool { return strings.EqualFold(t.Name, hoursRelation) }

// rowsAreHours reports whether every table the SELECT's FROM reads, subqueries included, is
// store_hours: its rows are hours, and a store without any cannot be one of them. A CTE's name in the
// FROM could read anything, so it counts as another table.
func rowsAreHours(top querytree.Select) bool {
	ctes := top.CTEs()
	hours, other := false, false
	top.From().Walk(func(x querytree.Expr) bool {
		if t, ok := x.Table(); ok {
			if isHoursTable(t) && !ctes[strings.ToLower(t.Name)] {
				hours = true
			} else {
				other = true
			}
		}
		return !other
	})
	return hours && !other
}

// isStoresTable reports whether t is a relation with one row per store: the stores table, its file
// name, or a typed view that extends it.
func isStoresTable(t querytree.Table) bool {
	r, ok := schema.RelationNamed(t.Name)
	return ok && r.Dataset == schema.Stores && (r.Kind != schema.ViewRelation || r.Extends())
}

// walker is an Expr or a From: what can be walked.
type walker interface {
	Walk(func(querytree.Expr) bool)
}

// readsHours reports whether w reads store_hours: a table of it, one of its own columns (by any
// qualifier, or none), or is_open.
func readsHours(w walker) bool {
	return finds(w, func(x querytree.Expr) bool {
		t, ok := x.Table()
		names := x.ColumnNames()
		return ok && isHoursTable(t) || strings.EqualFold(x.Function(), hoursMacro) ||
			len(names) > 0 && hoursColumns()[strings.ToLower(names[len(names)-1])]
	})
}

// namesTable reports whether w reads a column qualified by one of the tables (lower-cased names).
func namesTable(w walker, tables map[string]bool) bool {
	return finds(w, func(x querytree.Expr) bool {
		names := x.ColumnNames()
		return len(names) == 2 && tables[strings.ToLower(names[0])]
	})
}

// readsCTE reports whether w reads one of the CTEs (lower-cased names).
func readsCTE(w walker, ctes map[string]bool) bool {
	return finds(w, func(x querytree.Expr) bool {
		t, ok := x.Table()
		return ok && t.Schema == "" && ctes[strings.ToLower(t.Name)]
	})
}

// usesName reports whether w names a table, an alias or a column's qualifier name, without regard
// to case.
func usesName(w walker, name string) bool {
	return finds(w, func(x querytree.Expr) bool {
		t, ok := x.Table()
		names := x.ColumnNames()
		return ok && (strings.EqualFold(t.Name, name) || strings.EqualFold(t.Alias, name)) ||
			len(names) == 2 && strings.EqualFold(names[0], name)
	})
}

// finds reports whether f holds for a node of w.
func finds(w walker, f func(querytree.Expr) bool) bool {
	found := false
	w.Walk(func(x querytree.Expr) bool {
		found = f(x)
		return !found
	})
	return found
}
