package hint

import (
	"context"
	"strings"
	"sync"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
)

// What the hints read of a build's data (a column's values, a date column's range, the text columns
// the label words are looked for in, the stores of unknown hours) is the same on every call until an
// ingest writes a new build: a build file never changes. So it is read once per build, on first use,
// and kept in the engine beside the build's id (the label values of the descriptions are kept with
// it: query/vocabulary.go). Query workers have little memory: a build's cache holds at most
// maxHintBytes, and what does not fit is asked of DuckDB on every call.

// maxHintBytes bounds the text one build's cache holds.
const maxHintBytes = 1 << 20

// maxAnswerBytes bounds the part of it that statements' answers take: a JSON path, and so an answer,
// is the query's own, and the text of a label's words should still fit.
const maxAnswerBytes = maxHintBytes / 4

// maxHintEntries bounds the answers one build's cache holds (a JSON path is the query's own text, so
// their number is the agents' to choose).
const maxHintEntries = 256

// keptBuilds is how many builds' caches an engine keeps: the current one, and the one that calls
// started before an ingest may still be finishing on.
const keptBuilds = 2

// Caches are an engine's caches, one per build, the newest last. The zero Caches is ready to use.
type Caches struct {
	mu     sync.Mutex
	builds []*Cache
}

// For returns the cache of the build with id, making it (and dropping the oldest) for a new build.
func (h *Caches) For(id string) *Cache {
	if id == "" {
		return nil // a build without an id cannot be told from the next: nothing is cached
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.builds {
		if b.id == id {
			return b
		}
	}
	b := &Cache{id: id, answers: map[string][]database.NullString{}, texts: map[string]*textColumns{}}
	h.builds = append(h.builds, b)
	if len(h.builds) > keptBuilds {
		h.builds = append([]*Cache{}, h.builds[len(h.builds)-keptBuilds:]...)
	}
	return b
}

// Cache is one build's cache. A nil *Cache caches nothing: every read goes to DuckDB.
type Cache struct {
	id string

	mu         sync.Mutex
	size       int                              // bytes held, at most maxHintBytes
	answerSize int                              // of which answers, at most maxAnswerBytes
	answers    map[string][]database.NullString // a statement's answer by its text and arguments
	texts      map[string]*textColumns          // a table's text columns; nil when they do not fit
}

// room takes n bytes of the budget, reporting whether they fit. b.mu is held.
func (b *Cache) room(n int) bool {
	if b.size+n > maxHintBytes {
		return false
	}
	b.size += n
	return true
}

// Values is stringsOf for a statement whose answer depends on the build's data alone (no clock, no
// randomness), answered from the cache once read.
func (b *Cache) Values(ctx context.Context, conn *database.Conn, q guard.SQL, args ...any) ([]string, error) {
	if b == nil {
		return stringsOf(ctx, conn, q, args...)
	}
	key, ok := answerKey(q, args)
	if !ok {
		return stringsOf(ctx, conn, q, args...)
	}
	if row, ok := b.answer(key); ok {
		out := make([]string, len(row))
		for i, v := range row {
			out[i] = v.String
		}
		return out, nil
	}
	out, err := stringsOf(ctx, conn, q, args...)
	if err != nil {
		return nil, err
	}
	row := make([]database.NullString, len(out))
	for i, v := range out {
		row[i] = database.NullString{String: v, Valid: true}
	}
	b.keep(key, row)
	return out, nil
}

// Row reads the one row of a statement whose answer depends on the build's data alone, n columns
// read as text, from the cache once read.
func (b *Cache) Row(ctx context.Context, conn *database.Conn, q guard.SQL, n int) ([]database.NullString, error) {
	if b != nil {
		if row, ok := b.answer(q.String()); ok && len(row) == n {
			return row, nil
		}
	}
	row := make([]database.NullString, n)
	ptrs := make([]any, n)
	for i := range row {
		ptrs[i] = &row[i]
	}
	if err := conn.QueryRow(ctx, q).Scan(ptrs...); err != nil {
		return nil, err
	}
	if b != nil {
		b.keep(q.String(), row)
	}
	return row, nil
}

func (b *Cache) answer(key string) ([]database.NullString, bool) {
	if b == nil {
		return nil, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	row, ok := b.answers[key]
	return row, ok
}

// keep stores an answer if it fits; one that does not is read again next time.
func (b *Cache) keep(key string, row []database.NullString) {
	if b == nil {
		return
	}
	n := len(key)
	for _, v := range row {
		n += len(v.String) + 16
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.answers[key]; ok || len(b.answers) >= maxHintEntries || b.answerSize+n > maxAnswerBytes || !b.room(n) {
		return
	}
	b.answerSize += n
	b.answers[key] = row
}

// answerKey is a statement's text and its text arguments; ok is false for other arguments.
func answerKey(q guard.SQL, args []any) (string, bool) {
	var k strings.Builder
	k.WriteString(q.String())
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			return "", false
		}
		k.WriteByte(0)
		k.WriteString(s)
	}
	return k.String(), true
}

// textColumns are a table's text columns, each as its distinct lower-cased values and how many rows
// hold each: the occurrences of a word are counted in Go, as contains(lower(col), word) would.
type textColumns struct {
	cols   []string
	values [][]string // per column, the distinct values of lower(col) that are not NULL
	counts [][]int64  // per column, the rows holding each value
}

// count is how many rows of each column contain any of words.
func (t *textColumns) count(words []string) []int64 {
	n := make([]int64, len(t.cols))
	for i, values := range t.values {
		for j, v := range values {
			for _, w := range words {
				if strings.Contains(v, w) {
					n[i] += t.counts[i][j]
					break
				}
			}
		}
	}
	return n
}

// textsOf returns the text columns cols of table, reading them on first use; nil when they do not fit
// the cache (or could not be read), and the caller asks DuckDB.
func (b *Cache) textsOf(ctx context.Context, conn *database.Conn, table string, cols []string) *textColumns {
	if b == nil {
		return nil
	}
	key := table + "\x00" + strings.Join(cols, "\x00")
	b.mu.Lock()
	t, done := b.texts[key]
	left := maxHintBytes - b.size
	b.mu.Unlock()
	if done {
		return t
	}
	t, size, err := readTexts(ctx, conn, table, cols, left)
	if err != nil {
		return nil // read again next time: the context may have ended
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if old, ok := b.texts[key]; ok {
		return old // another call read them meanwhile
	}
	if t != nil && !b.room(size) {
		t = nil
	}
	b.texts[key] = t
	return t
}

// readTexts reads the distinct lower-cased values of the columns, with their counts, in one statement;
// nil when they hold more than limit bytes.
func readTexts(ctx context.Context, conn *database.Conn, table string, cols []string, limit int) (*textColumns, int, error) {
	var parts []guard.SQL
	for i, col := range cols {
		c := guard.MustIdent(col)
		parts = append(parts, guard.Format("SELECT %s AS i, lower(%s) AS v, count(*) AS n FROM %s WHERE %s IS NOT NULL GROUP BY ALL",
			guard.Int(i), c, guard.MustIdent(table), c))
	}
	rows, err := conn.Query(ctx, guard.Join(parts, " UNION ALL "))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	t := &textColumns{cols: cols, values: make([][]string, len(cols)), counts: make([][]int64, len(cols))}
	size := 0
	for rows.Next() {
		var i int
		var v string
		var n int64
		if err := rows.Scan(&i, &v, &n); err != nil {
			return nil, 0, err
		}
		if size += len(v) + 24; size > limit {
			return nil, 0, nil
		}
		t.values[i] = append(t.values[i], v)
		t.counts[i] = append(t.counts[i], n)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return t, size, nil
}
