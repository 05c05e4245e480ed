package querytree

// Statements written from pieces of parsed ones, for readers of an accepted query (the hints count the
// rows of its FROM that match some of its WHERE clause's parts): a copy of a SELECT of ctool's own (a
// Template, parsed by DuckDB) given the query's FROM, its WITH clause and some of its expressions.
// Nothing is spliced into text: DuckDB writes the result back as SQL (Deparse, json_deserialize_sql,
// the document a bound argument). That text is the agent's own in another order, and DuckDB does not
// always quote what it writes back (a star's relation name comes back bare), so it is never run as it
// is: the reader hands it to Check like any query of the agent's, under the query's policy, and runs
// the checked statement guard.Check returns (database.Conn runs nothing else).

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/azabudai/ctool/internal/guard"
)

// Engine is what the reader asks of DuckDB: its parse of a text and its writing of a tree back as SQL,
// both of bound arguments, nothing run (database.Conn offers both).
type Engine interface {
	guard.Parser
	DeserializeSQL(ctx context.Context, docs []string) ([]string, error)
}

// templates are the parsed templates, by their text: parsed once per process, then only copied.
var templates struct {
	mu    sync.Mutex
	nodes map[string]astObj
}

// Template is a SELECT of ctool's own, constant text, as DuckDB's parser reads it, for With to copy;
// ok is false when DuckDB cannot parse it (or it is no plain SELECT).
func Template(ctx context.Context, conn Engine, text string) (Select, bool) {
	templates.mu.Lock()
	defer templates.mu.Unlock()
	if node, ok := templates.nodes[text]; ok {
		return Select{node}, true
	}
	stmt, err := guard.Parse(ctx, conn, text)
	if err != nil {
		return Select{}, false
	}
	s, ok := TopSelect(stmt)
	if !ok {
		return Select{}, false
	}
	if templates.nodes == nil {
		templates.nodes = map[string]astObj{}
	}
	templates.nodes[text] = s.o
	return s, true
}

// Pieces are what With puts in a copy of a SELECT.
type Pieces struct {
	From     From   // its FROM clause (the zero From keeps the SELECT's own)
	CTEs     Select // the SELECT whose WITH clause it takes (the zero Select keeps its own)
	Where    Expr   // its WHERE clause (the zero Expr: none)
	List     []Expr // its select list (nil keeps its own)
	GroupAll bool   // GROUP BY ALL: grouped by all of the select list but its aggregates
}

// With is a copy of the SELECT with the pieces in place of its own; s itself is unchanged, and so is
// every tree a piece comes from.
func (s Select) With(p Pieces) Select {
	node := astObj{}
	for k, v := range s.o {
		node[k] = v
	}
	if p.From.o != nil {
		node["from_table"] = p.From.o
	}
	if p.CTEs.o != nil {
		node["cte_map"] = p.CTEs.o["cte_map"]
	}
	node["where_clause"] = nil
	if p.Where.o != nil {
		node["where_clause"] = p.Where.o
	}
	if p.List != nil {
		list := make([]any, len(p.List))
		for i, e := range p.List {
			list[i] = e.o
		}
		node["select_list"] = list
	}
	if p.GroupAll {
		node["aggregate_handling"] = "FORCE_AGGREGATES"
	}
	return Select{node}
}

// And is the AND of es, and Or their OR: es[0] itself when there is one, the zero Expr for none.
func And(es ...Expr) Expr { return conjunction("CONJUNCTION_AND", es) }

// Or is the OR of es (see And).
func Or(es ...Expr) Expr { return conjunction("CONJUNCTION_OR", es) }

func conjunction(typ string, es []Expr) Expr {
	switch len(es) {
	case 0:
		return Expr{}
	case 1:
		return es[0]
	}
	children := make([]any, len(es))
	for i, e := range es {
		children[i] = e.o
	}
	return Expr{astObj{"class": "CONJUNCTION", "type": typ, "alias": "", "query_location": es[0].o["query_location"], "children": children}}
}

// Renamed is a copy of e in which each column reference qualified by from (without regard to case) is
// qualified by to instead, subqueries included; e itself is unchanged.
func (e Expr) Renamed(from, to string) Expr {
	var copyOf func(v any) any
	copyOf = func(v any) any {
		switch x := v.(type) {
		case astObj:
			out := astObj{}
			for k, c := range x {
				out[k] = copyOf(c)
			}
			if x["class"] == "COLUMN_REF" {
				if names, ok := x["column_names"].([]any); ok && len(names) == 2 {
					if q, _ := names[0].(string); guard.SameName(q, from) {
						out["column_names"] = []any{to, names[1]}
					}
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, c := range x {
				out[i] = copyOf(c)
			}
			return out
		}
		return v
	}
	if e.o == nil {
		return e
	}
	return Expr{copyOf(e.o).(astObj)}
}

// WithSubquery is a copy of a subquery expression (Subquery) that runs sel instead; e is unchanged.
// Anything but a subquery comes back as it is.
func (e Expr) WithSubquery(sel Select) Expr {
	stmt, ok := e.o["subquery"].(astObj)
	if astStr(e.o, "class") != "SUBQUERY" || !ok {
		return e
	}
	node := astObj{}
	for k, v := range e.o {
		node[k] = v
	}
	sub := astObj{}
	for k, v := range stmt {
		sub[k] = v
	}
	sub["node"] = sel.o
	node["subquery"] = sub
	return Expr{node}
}

// Renamed is a copy of the FROM clause in which each table (through joins, never inside subqueries)
// for which rename returns a name reads that relation instead, under the name the query gave it (its
// alias, or its old name), so the query's columns still name it; f is unchanged.
func (f From) Renamed(rename func(Table) string) From {
	var visit func(v any) any
	visit = func(v any) any {
		m, ok := v.(astObj)
		if !ok {
			return v
		}
		switch m["type"] {
		case "JOIN":
			out := astObj{}
			for k, c := range m {
				out[k] = c
			}
			out["left"], out["right"] = visit(m["left"]), visit(m["right"])
			return out
		case "BASE_TABLE":
			t := tableOf(m)
			name := rename(t)
			if name == "" {
				return m
			}
			out := astObj{}
			for k, c := range m {
				out[k] = c
			}
			out["alias"], out["table_name"], out["schema_name"], out["catalog_name"] = t.Qualifier(), name, "", ""
			return out
		}
		return m
	}
	if f.o == nil {
		return f
	}
	o, _ := visit(f.o).(astObj)
	return From{o}
}

// Without is a copy of the FROM clause without the tables (through joins, never inside subqueries) for
// which drop reports true: a join of one is its other side, and the join's condition goes with it; ok
// is false when no table would be left. f is unchanged.
func (f From) Without(drop func(Table) bool) (From, bool) {
	var visit func(v any) (any, bool)
	visit = func(v any) (any, bool) {
		m, ok := v.(astObj)
		if !ok {
			return v, true
		}
		switch m["type"] {
		case "JOIN":
			left, lok := visit(m["left"])
			right, rok := visit(m["right"])
			switch {
			case !lok && !rok:
				return nil, false
			case !lok:
				return right, true
			case !rok:
				return left, true
			}
			out := astObj{}
			for k, c := range m {
				out[k] = c
			}
			out["left"], out["right"] = left, right
			return out, true
		case "BASE_TABLE":
			return m, !drop(tableOf(m))
		}
		return m, true
	}
	if f.o == nil {
		return f, true
	}
	v, ok := visit(f.o)
	o, _ := v.(astObj)
	return From{o}, ok
}

// Deparse is each SELECT as SQL, as DuckDB writes it back (json_deserialize_sql, every document a
// bound argument of one statement); ok is false when DuckDB cannot write one of them. The text is the
// agent's own in another order: it runs only once Check has accepted it.
func Deparse(ctx context.Context, conn Engine, sels ...Select) ([]string, bool) {
	docs := make([]string, len(sels))
	for i, s := range sels {
		stmt := astObj{"named_param_map": []any{}, "node": s.o}
		b, err := json.Marshal(astObj{"error": false, "statements": []any{stmt}})
		if err != nil {
			return nil, false
		}
		docs[i] = string(b)
	}
	texts, err := conn.DeserializeSQL(ctx, docs)
	return texts, err == nil
}
