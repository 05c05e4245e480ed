package hint

import (
	"fmt"
	"strconv"

	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/fold"
)

// Folded: names are typed in many forms (ｼﾞｪﾗｰﾄ for ジェラート, ＢＡＲ for bar, hiragana for katakana,
// two spaces for one), and the build has the SQL macro fold() (fold.Fold) to compare them however
// typed. When a LIKE, ILIKE, = or contains() on a free-text column matches no row as written but does
// once both sides are folded, the hint writes the folded condition, with how many rows it matches and
// their first values.
const Folded Kind = "folded"

// maxFolded is how many values the hint names.
const maxFolded = 3

// maxFoldValues is the most distinct values of a column the hint folds: fold() costs 50 to 100
// microseconds a value here (fold.MacroSQL), and an empty answer should not wait long for it.
// A variable for its test.
var maxFoldValues = 2000

var folded = &analyzer{scope: eachCondition, run: func(p *pass, i int) []Hint {
	c := p.conds[i]
	if !c.col.freeText() || len(c.literals) != 1 || !p.unmatched(i) {
		return nil
	}
	col, rel := guard.MustIdent(c.col.name), guard.MustIdent(c.col.relation)
	var match guard.SQL
	var written string
	lit := schema.QuoteString(c.literals[0])
	// The literal is folded here, by fold.Fold (TestFoldMacroIsFold holds fold() to it): fold(?)
	// would be run again on every row.
	switch c.op {
	case "=":
		match, written = guard.Const("fold(v) = ?"), "fold("+c.col.name+") = fold("+lit+")"
	case "LIKE":
		match, written = guard.Const("fold(v) LIKE ?"), "fold("+c.col.name+") LIKE fold("+lit+")"
	case "ILIKE":
		match, written = guard.Const("fold(v) ILIKE ?"), "fold("+c.col.name+") ILIKE fold("+lit+")"
	case "contains":
		match, written = guard.Const("contains(fold(v), ?)"), "contains(fold("+c.col.name+"), fold("+lit+"))"
	default:
		return nil
	}
	// How many values there are depends on the build alone: read once per build.
	distinct, err := p.cache.Row(p.ctx, p.conn, guard.Format("SELECT count(DISTINCT %s) FROM %s", col, rel), 1)
	if err != nil {
		return nil
	}
	if n, err := strconv.Atoi(distinct[0].String); err != nil || n > maxFoldValues {
		return nil
	}
	// Each distinct value is folded once, and counted with its rows.
	rows, err := p.conn.Query(p.ctx, guard.Format("SELECT v, sum(n) OVER (), count(*) OVER () FROM "+
		"(SELECT %s AS v, count(*) AS n FROM %s WHERE %s IS NOT NULL GROUP BY v) WHERE %s ORDER BY v LIMIT %s",
		col, rel, col, match, guard.Int(maxFolded)), fold.Fold(c.literals[0]))
	if err != nil {
		return nil
	}
	defer rows.Close()
	var values []string
	var n, kinds int64
	for rows.Next() {
		var v string
		if err := rows.Scan(&v, &n, &kinds); err != nil {
			return nil
		}
		values = append(values, v)
	}
	if rows.Err() != nil || len(values) == 0 {
		return nil
	}
	named := quoteList(values)
	if more := int(kinds) - len(values); more > 0 {
		named += fmt.Sprintf(" and %d more %s", more, textout.Plural(more, "value", "values"))
	}
	return []Hint{{Kind: Folded, Condition: c.text, Text: fmt.Sprintf("%s matches %d %s of %s: %s (fold() folds width, kana and case)",
		clipText(written, 160), n, textout.Plural(int(n), "row", "rows"), c.col.relation, named)}}
}}
