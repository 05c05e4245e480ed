package console

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azabudai/ctool/schema"
)

// Limits on what a request may ask for.
const (
	pageSize       = 50 // a list's rows per page unless _size says otherwise; the changes' pages
	maxFacetValues = 30
	maxFilterVals  = 20
	maxValueBytes  = 400
)

// maxListRows is what _size=all shows at most on one page: a page of more would be slow to send and
// to draw; the exports hold every row. A variable for the tests.
var maxListRows = 5_000

// pageSizes are the values _size takes, the default first; "all" is maxListRows.
var pageSizes = []string{"50", "100", "500", "all"}

// Open-at states of a store.
const (
	stateOpen    = "open"
	stateClosed  = "closed"
	stateUnknown = "unknown"
)

// listQuery is a list's request: filters (facets and exact values), search, sort, page and its size
// and, for stores, the time the open state is taken at. Everything in it came from a visitor: it
// reaches SQL only as bound arguments, and names only as columns looked up in the table.
type listQuery struct {
	T       *table
	Filters []filter
	Search  string
	Terms   []string
	Sort    string // a column name; "" for the build's order
	Desc    bool
	Page    int    // from 1
	Size    int    // rows per page
	SizeArg string // _size as given: "" for the default, else one of pageSizes
	At      time.Time
	AtGiven bool   // at= was given (the export then carries the state)
	Open    string // "", open, closed or unknown
	// Unknown are the parameters the list does not take (a mistyped categry=): a page shows them and
	// what was probably meant, an export refuses them.
	Unknown []unknownParam
}

// filter is one column's wanted values; "" stands for no value (NULL).
type filter struct {
	Col    column
	Values []string
}

// unknownParam is a parameter a list does not take, with its values, and the one it most likely
// stands for ("" when none is close).
type unknownParam struct {
	Name   string
	Values []string
	Meant  string
	Fix    bool // the list takes Values under Meant: the notice links the list so
}

// parseList reads a list's query string. Bad values are errors a visitor can read, in their language
// (badRequest); unknown parameters are kept in Unknown, never dropped unsaid.
func parseList(t *table, q url.Values, now time.Time) (*listQuery, error) {
	lq := &listQuery{T: t, Page: 1, Size: pageSize, At: now}
	for _, c := range t.Cols {
		vals, ok := q[c.Name]
		if !ok || len(vals) == 0 {
			continue
		}
		if len(vals) > maxFilterVals {
			return nil, badRequest("too many values for %s", c.Name)
		}
		for _, v := range vals {
			if len(v) > maxValueBytes {
				return nil, badRequest("a value for %s is too long", c.Name)
			}
			if c.Type == "BOOLEAN" && v != "" && v != "true" && v != "false" {
				return nil, badRequest("%s is true or false", c.Name)
			}
		}
		lq.Filters = append(lq.Filters, filter{Col: c, Values: slices.Compact(slices.Sorted(slices.Values(vals)))})
	}
	lq.Search = strings.TrimSpace(q.Get("q"))
	if len(lq.Search) > 4*maxSearchRunes*5 {
		return nil, badRequest("the search is too long")
	}
	lq.Terms = Terms(lq.Search)
	sort, desc := q.Get("_sort"), false
	if s := q.Get("_sort_desc"); s != "" {
		sort, desc = s, true
	}
	if sort != "" {
		c, ok := t.column(sort)
		if !ok || c.List {
			return nil, badRequest("cannot sort by %q", sort)
		}
		lq.Sort, lq.Desc = c.Name, desc
	}
	if p := q.Get("_page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1_000_000 {
			return nil, badRequest("page %q is not a page number", p)
		}
		lq.Page = n
	}
	switch size := q.Get("_size"); size {
	case "", pageSizes[0]:
	case "all":
		lq.Size, lq.SizeArg = maxListRows, size
	default:
		n, err := strconv.Atoi(size)
		if err != nil || !slices.Contains(pageSizes, size) {
			return nil, badRequest("_size %q is not a page size: 50, 100, 500 or all", size)
		}
		lq.Size, lq.SizeArg = n, size
	}
	if t.IsStores() {
		if at := q.Get("at"); at != "" {
			ts, err := parseAt(at)
			if err != nil {
				return nil, err
			}
			lq.At, lq.AtGiven = ts, true
		}
		switch o := q.Get("open"); o {
		case "", stateOpen, stateClosed, stateUnknown:
			lq.Open = o
		default:
			return nil, badRequest("open is open, closed or unknown")
		}
	}
	lq.Unknown = unknownParams(t, q, now)
	return lq, nil
}

// parseAt reads a date and time in Tokyo as an HTML datetime-local field sends it.
func parseAt(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, schema.Tokyo); err == nil && t.Year() >= 1900 && t.Year() <= 9999 {
			return t, nil
		}
	}
	return time.Time{}, badRequest("at %q is not a date and time (YYYY-MM-DDTHH:MM)", s)
}

// params are the names a list of t takes: its columns (filters), then the list's own.
func (t *table) params() []string {
	var out []string
	for _, c := range t.Cols {
		out = append(out, c.Name)
	}
	out = append(out, "q", "_sort", "_sort_desc", "_page", "_size")
	if t.IsStores() {
		out = append(out, "at", "open")
	}
	return out
}

// paramAliases are other names people type for a list's parameters: Datasette's and GitHub's, and
// plain words. Each is only ever a suggestion.
var paramAliases = map[string]string{
	"_search": "q", "search": "q", "query": "q", "keyword": "q", "keywords": "q",
	"sort": "_sort", "sort_by": "_sort", "order": "_sort", "order_by": "_sort", "_order": "_sort",
	"desc": "_sort_desc", "sort_desc": "_sort_desc",
	"page": "_page", "p": "_page",
	"size": "_size", "per_page": "_size", "page_size": "_size", "limit": "_size", "_limit": "_size",
}

// maxUnknownShown is how many unknown parameters a notice names; the rest are counted.
const maxUnknownShown = 10

// unknownParams are the parameters of q a list of t does not take, by name, each with what was
// probably meant: a parameter of the list written with other case, a column's label, a known alias,
// or a name one or two typing mistakes away. A suggestion is kept only if the list takes its values.
func unknownParams(t *table, q url.Values, now time.Time) []unknownParam {
	known := t.params()
	var out []unknownParam
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !slices.Contains(known, k) && !yield(k) {
				return
			}
		}
	}) {
		u := unknownParam{Name: name, Values: q[name], Meant: closestParam(t, known, name)}
		if u.Meant != "" {
			// A link to a list that would itself be refused (per_page=20 is no _size) is no help, nor
			// one to a page the list may not have.
			_, err := parseList(t, url.Values{u.Meant: u.Values}, now)
			u.Fix = err == nil && u.Meant != "_page"
		}
		out = append(out, u)
	}
	return out
}

// closestParam is the known parameter name most likely meant by name, or "".
func closestParam(t *table, known []string, name string) string {
	folded := schema.FoldNFKC(name)
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	for _, c := range t.Cols {
		if folded != "" && (schema.FoldNFKC(c.Ja) == folded || schema.FoldNFKC(c.En) == folded) {
			return c.Name
		}
	}
	if a, ok := paramAliases[strings.ToLower(name)]; ok {
		return a
	}
	best, bestD := "", 3
	try := func(candidate, meant string) {
		// One mistake in a short name, two in a longer one: "q" is not "p" mistyped.
		limit := 1
		if len(candidate) >= 6 {
			limit = 2
		}
		if len(candidate) < 3 {
			limit = 0
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(candidate)); d <= limit && d < bestD {
			best, bestD = meant, d
		}
	}
	for _, k := range known {
		try(k, k)
	}
	for _, a := range slices.Sorted(maps.Keys(paramAliases)) {
		try(a, paramAliases[a])
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: insertions, deletions,
// substitutions and swaps of two neighbours, each one mistake. Names longer than 64 bytes are far
// from every parameter.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// values are the list's parameters, for links that keep them: filters, search, sort, page size, and
// for stores the time and state. The page is not among them (a link names its own).
func (lq *listQuery) values() url.Values {
	v := url.Values{}
	for _, f := range lq.Filters {
		v[f.Col.Name] = append([]string(nil), f.Values...)
	}
	if lq.Search != "" {
		v.Set("q", lq.Search)
	}
	if lq.Sort != "" {
		if lq.Desc {
			v.Set("_sort_desc", lq.Sort)
		} else {
			v.Set("_sort", lq.Sort)
		}
	}
	if lq.SizeArg != "" {
		v.Set("_size", lq.SizeArg)
	}
	if lq.AtGiven {
		v.Set("at", lq.At.Format("2006-01-02T15:04"))
	}
	if lq.Open != "" {
		v.Set("open", lq.Open)
	}
	return v
}

// unknownList is the unknown parameters as a sentence, in a page's language: a notice's, or an
// export's refusal.
type unknownList []unknownParam

func unknownNotice(us []unknownParam) unknownList { return unknownList(us) }

func (us unknownList) localize(p *page) string {
	var parts []string
	for i, u := range us {
		if i == maxUnknownShown {
			parts = append(parts, p.Tf("and %d more", len(us)-i))
			break
		}
		part := shortName(u.Name)
		if u.Meant != "" {
			part += p.Tf(" (did you mean %s?)", u.Meant)
		}
		parts = append(parts, part)
	}
	key := "Unknown parameter: %s."
	if len(us) > 1 {
		key = "Unknown parameters: %s."
	}
	return p.Tf(key, strings.Join(parts, p.T(", ")))
}

// shortName is a parameter's name as a message quotes it: at most 40 characters, and "" as "".
func shortName(name string) string {
	if name == "" {
		return `""`
	}
	return clipText(name)
}

// clipText is at most 40 characters of s: what a notice quotes of a parameter's value.
func clipText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
