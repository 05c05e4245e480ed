package hint

import (
	"context"
	"strconv"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
)

// pass is one call's reading of a query that found no rows, shared by the analyzers: the query's
// conditions and AND parts, and what the analyzers ask of the build, each read on first use and
// once. It runs on the call's connection, within the call's context, and reads only public relations.
type pass struct {
	ctx    context.Context
	conn   *database.Conn
	cache  *Cache
	policy guard.Policy

	conds     []condition      // every SELECT's conditions on public columns (conditions.go), the first maxConditions
	moreConds int              // how many conditions there are past those
	top       querytree.Select // the statement's SELECT, when it is a plain one
	parts     []querytree.Expr // its WHERE clause's AND parts; none past maxParts
	allParts  int              // how many AND parts it has, read or not
	scope     []scopeEntry     // the public relations its FROM reads

	alone  []*bool // does each condition match a row by itself (nil: not known)
	near   map[int]*nearValues
	runner *partRunner // nil until a count is asked
	ranges map[int]string
}

// maxParts is the most AND parts of one WHERE clause looked at; larger sets are left to the
// conditions.
const maxParts = 8

func newPass(ctx context.Context, conn *database.Conn, cache *Cache, q Query) (*pass, bool) {
	stmt, ok := q.statement(ctx, conn)
	if !ok {
		return nil, false
	}
	p := &pass{ctx: ctx, conn: conn, cache: cache, policy: guard.ForDataset(q.Dataset),
		near: map[int]*nearValues{}, ranges: map[int]string{}}
	p.conds, p.moreConds = collectConditions(stmt)
	if top, ok := querytree.TopSelect(stmt); ok {
		p.top, p.scope = top, scopeOf(top, top.CTEs())
		parts := top.AndParts()
		if p.allParts = len(parts); len(parts) <= maxParts {
			p.parts = parts
		}
	}
	return p, true
}

// size is how many things of scope s the query has.
func (p *pass) size(s scope) int {
	switch s {
	case eachCondition:
		return len(p.conds)
	case eachPart:
		return len(p.parts)
	}
	return 1
}

// matches tells whether condition i matches a row by itself; ok is false when DuckDB could not say.
// All the conditions are asked at once, the first time one is.
func (p *pass) matches(i int) (matched, ok bool) {
	if p.alone == nil { // matchAlone's answer is never nil
		p.alone = matchAlone(p.ctx, p.conn, p.cache, p.conds)
	}
	if p.alone[i] == nil { // DuckDB could not answer it with the others: asked alone
		c := p.conds[i]
		where, args := c.where()
		var m bool
		q := guard.Format("SELECT EXISTS (SELECT 1 FROM %s WHERE %s)", guard.MustIdent(c.col.relation), where)
		if err := p.conn.QueryRow(p.ctx, q, args...).Scan(&m); err != nil {
			return false, false
		}
		p.alone[i] = &m
	}
	return *p.alone[i], true
}

// unmatched tells whether condition i matches no row by itself, as DuckDB says.
func (p *pass) unmatched(i int) bool {
	matched, ok := p.matches(i)
	return ok && !matched
}

// named tells whether AND part k holds a condition that matches no row by itself: the condition's
// hints name it already.
func (p *pass) named(k int) bool {
	for i, c := range p.conds {
		if p.parts[k].Contains(c.node) && p.unmatched(i) {
			return true
		}
	}
	return false
}

// otherParts are the AND parts of the top SELECT but the one condition i is written in (through AND
// and OR alone): a row the query could find with another value in the condition's place matches them
// all. None when the condition is not written there, as in a subquery.
func (p *pass) otherParts(i int) []int {
	for k, part := range p.parts {
		if !leafOf(part, p.conds[i].node) {
			continue
		}
		var out []int
		for j := range p.parts {
			if j != k {
				out = append(out, j)
			}
		}
		return out
	}
	return nil
}

// leafOf reports whether node is e, or one of the expressions its ANDs and ORs join.
func leafOf(e, node querytree.Expr) bool {
	if e.Contains(node) && node.Contains(e) { // the same node
		return true
	}
	if op := e.Op(); op == querytree.OpAnd || op == querytree.OpOr {
		for _, a := range e.Args() {
			if leafOf(a, node) {
				return true
			}
		}
	}
	return false
}

// count is how many rows of the query's FROM match all the AND parts of set; ok is false when DuckDB
// could not count them. The first count asks for all of them (counts.go).
func (p *pass) count(set ...int) (int64, bool) {
	return p.counts().count(set...)
}

// partText is AND part k as SQL, for a hint.
func (p *pass) partText(k int) string { return p.counts().text(k) }

func (p *pass) counts() *partRunner {
	if p.runner == nil {
		p.runner = newPartRunner(p.ctx, p.conn, p.top, p.parts, p.policy)
	}
	return p.runner
}

// rangeOf is the range the build holds of the dates or numbers AND part k reads ("" for none).
func (p *pass) rangeOf(k int) string {
	r, ok := p.ranges[k]
	if !ok {
		r = dateHint(p.ctx, p.conn, p.cache, p.parts[k], p.scope)
		p.ranges[k] = r
	}
	return r
}

// matchAlone tells whether each condition matches a row by itself: from the build's cache, and the
// rest in one statement (a condition is a column compared with constants: its answer depends on the
// build's data alone). An entry is nil when DuckDB could not answer it with the others (an error in
// one of them).
func matchAlone(ctx context.Context, conn *database.Conn, cache *Cache, conds []condition) []*bool {
	found := make([]*bool, len(conds))
	keys := make([]string, len(conds))
	var exists []guard.SQL
	var args []any
	var asked []int
	for i, c := range conds {
		where, a := c.where()
		q := guard.Format("EXISTS (SELECT 1 FROM %s WHERE %s)", guard.MustIdent(c.col.relation), where)
		key, cacheable := answerKey(q, a)
		if cacheable {
			keys[i] = key
		}
		if row, ok := cache.answer(keys[i]); cacheable && ok && len(row) == 1 {
			yes := row[0].String == "true"
			found[i] = &yes
			continue
		}
		exists = append(exists, q)
		args = append(args, a...)
		asked = append(asked, i)
	}
	if len(asked) == 0 {
		return found
	}
	answers := make([]bool, len(asked))
	ptrs := make([]any, len(asked))
	for i := range answers {
		ptrs[i] = &answers[i]
	}
	if err := conn.QueryRow(ctx, guard.Format("SELECT %s", guard.Join(exists, ", ")), args...).Scan(ptrs...); err != nil {
		return found
	}
	for j, i := range asked {
		found[i] = &answers[j]
		if keys[i] != "" {
			cache.keep(keys[i], []database.NullString{{String: strconv.FormatBool(answers[j]), Valid: true}})
		}
	}
	return found
}
