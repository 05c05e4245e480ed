package guard

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"
)

// An empty answer's hint counts many sets of AND parts, and names some of them: done one statement
// at a time that is two round trips to DuckDB per count and one per name. Truths writes them all at
// once: one statement whose groups give the count of any set of parts in one pass over the query's
// FROM, and every part's text, turned back into SQL in one call.

// Truths is the checked statement of SELECT <part 1>, <part 2>, ..., count(*) over the query's FROM
// (and its CTEs) GROUP BY ALL: the rows where all the parts of a set hold are those of the groups
// where each is true, as a WHERE clause keeps them. texts are the parts as Condition gives them.
func (c *Counter) Truths(parts []Expr) (count *Checked, texts []string, ok bool) {
	list, _ := c.template["select_list"].([]any)
	if len(list) != 1 || len(parts) == 0 || len(parts) > 8 {
		return nil, nil, false
	}
	selectList := make([]any, 0, len(parts)+1)
	for _, p := range parts {
		selectList = append(selectList, p.o)
	}
	selectList = append(selectList, list[0])
	doc, err := c.document(c.sel["from_table"], nil, c.sel["cte_map"], selectList)
	if err != nil {
		return nil, nil, false
	}
	docs := []string{doc}
	for _, p := range parts {
		doc, err := c.document(nil, p.o, nil, nil)
		if err != nil {
			return nil, nil, false
		}
		docs = append(docs, doc)
	}
	out, ok := c.deserialize(docs)
	if !ok {
		return nil, nil, false
	}
	texts = make([]string, len(parts))
	for i, text := range out[1:] {
		if texts[i], ok = conditionText(text); !ok {
			return nil, nil, false
		}
	}
	count, ok = c.check(out[0], maxTruthGroups)
	return count, texts, ok
}

// document is the template with the given FROM, WHERE and CTEs, as json_deserialize_sql reads it;
// with a select list, grouped by all of it but its aggregates.
func (c *Counter) document(from, where, cte any, selectList []any) (string, error) {
	node := astObj{}
	for k, v := range c.template {
		node[k] = v
	}
	if from != nil {
		node["from_table"] = from
	}
	if cte != nil {
		node["cte_map"] = cte
	}
	if selectList != nil {
		node["select_list"] = selectList
		node["aggregate_handling"] = "FORCE_AGGREGATES" // GROUP BY ALL
	}
	node["where_clause"] = where
	stmt := astObj{"named_param_map": []any{}, "node": node}
	b, err := json.Marshal(astObj{"error": false, "statements": []any{stmt}})
	return string(b), err
}

// deserialize turns documents back into SQL in one statement.
func (c *Counter) deserialize(docs []string) ([]string, bool) {
	args := make([]any, len(docs))
	for i, d := range docs {
		args[i] = d
	}
	out := make([]sql.NullString, len(docs))
	ptrs := make([]any, len(docs))
	for i := range out {
		ptrs[i] = &out[i]
	}
	if err := c.conn.QueryRow(c.ctx, deserializeCalls(len(docs)), args...).Scan(ptrs...); err != nil {
		return nil, false
	}
	texts := make([]string, len(out))
	for i, o := range out {
		if !o.Valid {
			return nil, false
		}
		texts[i] = o.String
	}
	return texts, true
}

// countTemplate is SELECT count(*) as DuckDB's parser reads it, parsed once per process: it never
// changes, and the counters only copy it.
var countTemplate struct {
	mu   sync.Mutex
	node astObj
}

// deserializeCalls is SELECT json_deserialize_sql(?), ... with n calls, each of a bound document.
func deserializeCalls(n int) SQL {
	calls := make([]SQL, n)
	for i := range calls {
		calls[i] = Const("system.main.json_deserialize_sql(CAST(? AS JSON))")
	}
	return Format("SELECT %s", Join(calls, ", "))
}

func parsedCountTemplate(ctx context.Context, conn *Conn) (astObj, bool) {
	countTemplate.mu.Lock()
	defer countTemplate.mu.Unlock()
	if countTemplate.node != nil {
		return countTemplate.node, true
	}
	t, err := parse(ctx, conn, "SELECT count(*)")
	if err != nil {
		return nil, false
	}
	node, ok := t["node"].(astObj)
	if !ok {
		return nil, false
	}
	countTemplate.node = node
	return node, true
}
