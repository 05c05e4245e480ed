package hint

import (
	"context"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
	"github.com/azabudai/ctool/schema"
)

// Range: a date window outside the data ("this weekend" when the events end in December) looks like
// "nothing on". For an AND part that matches no row and reads dates or the clock, the hint gives the
// range the build holds for each date column it reads, as ISO dates, and today in Tokyo, so the agent
// can tell the two apart; for one that reads numbers, their range. When a condition's hint already
// named the part, the range comes alone.
const Range Kind = "range"

var ranges = &analyzer{scope: eachPart, run: func(p *pass, k int) []Hint {
	part := p.parts[k]
	if !mayDateHint(part, p.scope) {
		return nil // reads no data to say so
	}
	if n, ok := p.count(k); !ok || n > 0 || !readsColumn(part) {
		return nil
	}
	r := p.rangeOf(k)
	if r == "" {
		return nil
	}
	text := p.partText(k)
	if p.named(k) {
		return []Hint{{Kind: Range, Condition: text, Text: r}}
	}
	return []Hint{{Kind: Range, Condition: text, Text: text + " matches no row: " + r}}
}}

// clockFunctions read the current time.
var clockFunctions = map[string]bool{"tokyo_now": true, "current_date": true, "today": true, "now": true,
	"current_timestamp": true, "get_current_timestamp": true, "get_current_time": true, "current_localtimestamp": true}

// dateHint is "events_typed.end_date runs from 2025-10-01 to 2025-12-28; today in Tokyo is 2026-11-25"
// for a condition reading date columns or the clock, the range of a number column for one reading
// numbers, and "" for any other.
func dateHint(ctx context.Context, conn *database.Conn, cache *Cache, part querytree.Expr, scope []scopeEntry) string {
	var ranges []string
	seen := map[string]bool{}
	clock, dates := false, false
	part.Walk(func(x querytree.Expr) bool {
		if clockFunctions[strings.ToLower(x.Function())] {
			clock = true
		}
		if x.Op() == querytree.OpColumn {
			if c, ok := resolve(x, scope); ok {
				key := c.relation + "." + c.name
				expr, ok := dateExpr(c)
				if ok {
					dates = true
				} else if numeric[c.typ] {
					expr, ok = guard.MustIdent(c.name), true // a number's range says as much as a date's
				}
				if ok && !seen[key] && len(ranges) < 4 {
					seen[key] = true
					q := guard.Format("SELECT CAST(min(%s) AS VARCHAR), CAST(max(%s) AS VARCHAR) FROM %s", expr, dateExprMax(c, expr), guard.MustIdent(c.relation))
					if r, err := cache.Row(ctx, conn, q, 2); err == nil && r[0].Valid && r[1].Valid {
						ranges = append(ranges, fmt.Sprintf("%s.%s runs from %s to %s", c.relation, c.name, r[0].String, r[1].String))
					}
				}
			}
		}
		return true
	})
	if len(ranges) == 0 && !clock {
		return ""
	}
	if !dates && !clock {
		return strings.Join(ranges, "; ")
	}
	var today database.NullString
	if conn.QueryRow(ctx, guard.Const("SELECT CAST(CAST(tokyo_now() AS DATE) AS VARCHAR)")).Scan(&today) == nil && today.Valid {
		ranges = append(ranges, "today in Tokyo is "+today.String)
	}
	return strings.Join(ranges, "; ")
}

// mayDateHint reports whether dateHint could say anything of part: it reads the clock, or a column
// holding dates or numbers. It reads no data.
func mayDateHint(part querytree.Expr, scope []scopeEntry) bool {
	may := false
	part.Walk(func(x querytree.Expr) bool {
		if clockFunctions[strings.ToLower(x.Function())] {
			may = true
		}
		if x.Op() == querytree.OpColumn {
			if c, ok := resolve(x, scope); ok && (isDate(c) || numeric[c.typ]) {
				may = true
			}
		}
		return !may
	})
	return may
}

// numeric are the view column types whose range a hint gives.
var numeric = map[string]bool{"INTEGER": true, "BIGINT": true, "DOUBLE": true, "DECIMAL": true}

// isDate reports whether the column holds dates (dateExpr).
func isDate(c publicColumn) bool {
	_, ok := dateExpr(c)
	return ok
}

// dateExpr is the column as a DATE, for its smallest value; ok is false when it holds no dates.
func dateExpr(c publicColumn) (expr guard.SQL, ok bool) {
	col := guard.MustIdent(c.name)
	switch c.typ {
	case "DATE":
		return col, true
	case "TIMESTAMP", "TIMESTAMPTZ":
		return guard.Format("CAST(%s AS DATE)", col), true
	}
	switch c.kind {
	case schema.DateRange:
		return guard.Format("TRY_CAST(split_part(%s, '/', 1) AS DATE)", col), true
	case schema.Timestamp:
		return guard.Format("CAST(TRY_CAST(%s AS TIMESTAMP) AS DATE)", col), true
	}
	return guard.SQL{}, false
}

// dateExprMax is the column as a DATE for its largest value: a range's end.
func dateExprMax(c publicColumn, expr guard.SQL) guard.SQL {
	if c.kind == schema.DateRange {
		col := guard.MustIdent(c.name)
		return guard.Format("TRY_CAST(coalesce(nullif(split_part(%s, '/', 2), ''), split_part(%s, '/', 1)) AS DATE)", col, col)
	}
	return expr
}
